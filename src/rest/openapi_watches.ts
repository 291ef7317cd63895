/**
 * The OpenAPI entries of /api/v1/watches (the API's only non-GET operations), from the same zod
 * schemas that validate the bodies. openapi.ts passes in its error-response builder.
 */
import { z } from "zod";
import {
  DeliveryListSchema,
  WatchCreateSchema,
  WatchListSchema,
  WatchPatchSchema,
  WatchSchema,
  WatchTestResultSchema,
  WatchWithSecretsSchema,
} from "../watches/schemas.ts";

type JsonSchema = Record<string, unknown>;

function schemaOf(s: z.ZodType, io: "input" | "output" = "output"): JsonSchema {
  const { $schema: _, ...rest } = z.toJSONSchema(s, { io }) as JsonSchema;
  return rest;
}

const ID = {
  name: "id",
  in: "path",
  required: true,
  description: "Watch id",
  schema: { type: "integer" },
};

const FREE = "Every plan (Free: 1 watch, e-mail and feed only; Pro 10; Business 50); never " +
  "charged.";

/** The watch paths; `error` builds an error response of the given description. */
export function watchPaths(error: (description: string) => unknown): Record<string, unknown> {
  const responses = (status: string, description: string, ref?: string, notFound = true) => ({
    [status]: ref
      ? {
        description,
        content: { "application/json": { schema: { $ref: `#/components/schemas/${ref}` } } },
      }
      : { description },
    "401": error(
      "missing_api_key, invalid_api_key, or invalid_token (an OAuth access token that expired " +
        "or whose grant was revoked)",
    ),
    "403": error(
      "key_revoked, plan_required (webhooks need Pro), watch_limit_reached, or " +
        "insufficient_scope (an OAuth app the user did not grant the `watches` scope; " +
        "WWW-Authenticate names it)",
    ),
    ...(notFound ? { "404": error("not_found: no such watch of this account") } : {}),
    "422": error("invalid_parameter: details name each bad field (query.min_score, ...)"),
    "503": error("service_unavailable: the database cannot be reached"),
  });
  const body = (ref: string) => ({
    required: true,
    content: { "application/json": { schema: { $ref: `#/components/schemas/${ref}` } } },
  });
  return {
    "/api/v1/watches": {
      get: {
        operationId: "listWatches",
        summary: "List the account's watches",
        description: `Secrets are never shown again. ${FREE}`,
        responses: responses("200", "The watches", "WatchList", false),
      },
      post: {
        operationId: "createWatch",
        summary: "Create a watch (a saved search that delivers new matches)",
        description: "The query takes the parameters of GET /api/v1/opportunities, validated " +
          "by the same schema. After every import, opportunities newly matching it are sent " +
          "as Standard Webhooks events (signed with the secret in this answer, shown once), " +
          `in an e-mail digest, and/or listed in a private Atom feed (URL shown once). ${FREE}`,
        requestBody: body("WatchCreate"),
        responses: responses("201", "Created, with its secrets", "WatchWithSecrets", false),
      },
    },
    "/api/v1/watches/{id}": {
      parameters: [ID],
      get: {
        operationId: "getWatch",
        summary: "One watch",
        description: FREE,
        responses: responses("200", "The watch", "Watch"),
      },
      patch: {
        operationId: "updateWatch",
        summary: "Change, pause, or rotate the secrets of a watch",
        description: `New secrets are in the answer, once. ${FREE}`,
        requestBody: body("WatchPatch"),
        responses: responses("200", "The changed watch", "WatchWithSecrets"),
      },
      delete: {
        operationId: "deleteWatch",
        summary: "Delete a watch",
        description: FREE,
        responses: responses("204", "Deleted"),
      },
    },
    "/api/v1/watches/{id}/deliveries": {
      parameters: [ID],
      get: {
        operationId: "listWatchDeliveries",
        summary: "The last 100 delivery attempts of a watch",
        description: `Status code, time and error of each attempt, newest first. ${FREE}`,
        responses: responses("200", "The attempts", "DeliveryList"),
      },
    },
    "/api/v1/watches/{id}/test": {
      parameters: [ID],
      post: {
        operationId: "testWatch",
        summary: "Send a sample signed event to the watch's webhook now",
        description: `Answers whether the receiver accepted it. At most 10 test events a ` +
          `minute per account; webhooks need Pro. ${FREE}`,
        responses: {
          ...responses("200", "What the receiver answered", "WatchTestResult"),
          "429": error("rate_limited: more than 10 test events this minute (see Retry-After)"),
        },
      },
    },
  };
}

/** The component schemas the watch paths refer to. */
export function watchSchemas(): Record<string, JsonSchema> {
  return {
    Watch: schemaOf(WatchSchema),
    WatchList: schemaOf(WatchListSchema),
    WatchWithSecrets: schemaOf(WatchWithSecretsSchema),
    WatchCreate: schemaOf(WatchCreateSchema, "input"),
    WatchPatch: schemaOf(WatchPatchSchema, "input"),
    DeliveryList: schemaOf(DeliveryListSchema),
    WatchTestResult: schemaOf(WatchTestResultSchema),
  };
}
