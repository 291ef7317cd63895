/**
 * What the two surfaces offer, for the home page's plan table: the REST endpoints as the served
 * OpenAPI document lists them (an operationId of OPERATIONS names its operation; the paths under
 * /api/v1/watches are the watch endpoints) and the MCP tools as `tools/list` shows them (TOOLS,
 * then WATCH_TOOLS; search and fetch under each operation they run). Read here, at the root,
 * because the web edge does not import the other edges. An endpoint that is neither is left out
 * rather than stopping the start; tests/web/home_test.ts fails for it, so the table is extended
 * when an endpoint is added.
 */
import { OPERATIONS } from "./accounts/admission.ts";
import { type OperationName, STANDS_FOR } from "./accounts/operations.ts";
import { TOOLS, WATCH_TOOLS } from "./mcp/tools.ts";
import { openApiDocument } from "./rest/openapi.ts";
import type { Offering, Surfaces } from "./web/handler.ts";

// The operations of an OpenAPI path item; its other keys (parameters, summary, servers ...) are
// shared by them, not methods.
const HTTP_METHODS = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);

function offeringOf(path: string, operationId: unknown): Offering | undefined {
  if (typeof operationId === "string" && operationId in OPERATIONS) {
    return operationId as OperationName;
  }
  return path === "/api/v1/watches" || path.startsWith("/api/v1/watches/") ? "watch" : undefined;
}

/** The REST endpoints and MCP tools of the service, each with what it runs. */
export function listSurfaces(): Surfaces {
  const paths = openApiDocument().paths as Record<
    string,
    Record<string, { operationId?: string; summary?: string }>
  >;
  const rest = Object.entries(paths).flatMap(([path, item]) =>
    Object.entries(item).flatMap(([method, spec]) => {
      if (!HTTP_METHODS.has(method)) return [];
      const operation = offeringOf(path, spec.operationId);
      if (!operation) return [];
      return [{ method: method.toUpperCase(), path, operation, summary: spec.summary ?? path }];
    })
  );
  const mcp = [
    // search and fetch are listed under each operation they stand for.
    ...TOOLS.flatMap((tool) =>
      tool.operation === "search" || tool.operation === "fetch"
        ? STANDS_FOR[tool.operation].map((operation) => ({ name: tool.name, operation }))
        : [{ name: tool.name, operation: tool.operation as Offering }]
    ),
    ...WATCH_TOOLS.map((tool) => ({ name: tool.name, operation: "watch" as const })),
  ];
  return { rest, mcp };
}
