/**
 * Zod schemas of watches: the bodies of POST and PATCH /api/v1/watches (also the MCP tools'
 * inputs) and the records they answer. Pure (zod and catalog/schemas.ts only), so the MCP tool
 * definitions and the stdio package can read them. A watch's query is validated by the very
 * schema of GET /api/v1/opportunities.
 */
import * as z from "zod";
import { RECOMMENDATIONS } from "../catalog/schemas.ts";
import { TREND_STATUSES } from "../catalog/trend_rule.ts";

const THEME_FOLLOWS = ["any", ...TREND_STATUSES] as const;

/** What a watch follows of its query's theme or category (src/watches/theme_watches.ts). */
const ThemeStatusInput = z.enum(THEME_FOLLOWS, `must be one of ${THEME_FOLLOWS.join(", ")}`);

const DateTime = z.iso.datetime({ offset: true }).describe("ISO 8601 date-time with UTC offset");

/** A watch name: what the owner calls it in lists, mails and the feed title. */
const Name = z.string().trim().min(1, "must not be empty").max(
  100,
  "must be at most 100 characters",
)
  .describe("What you call this watch (in mails, the feed title and events)");

const WebhookInput = z.strictObject({
  url: z.string().max(2000, "must be at most 2000 characters").describe(
    "An https URL; events are signed per Standard Webhooks",
  ),
}, "must be an object with a url");

/** The query part of a watch: the parameters of GET /api/v1/opportunities, given as JSON. */
const QueryInput = z.union([z.record(z.string(), z.unknown()), z.string()]).describe(
  "The opportunity list's filters (q, platform, ...), as an object or a query string " +
    "such as q=invoice&min_score=70",
);

export const DeliveriesInputSchema = z.strictObject({
  webhook: WebhookInput.nullable().optional().describe(
    "Pro and Business: POST new matches to a URL; null removes it",
  ),
  email: z.boolean("must be true or false").optional().describe(
    "E-mail a digest of the new matches after each import",
  ),
  feed: z.boolean("must be true or false").optional().describe(
    "Keep a private Atom feed of the matches",
  ),
}, "must be an object");

export const WatchCreateSchema = z.strictObject({
  name: Name,
  query: QueryInput.default({}),
  deliveries: DeliveriesInputSchema.describe(
    "At least one of webhook, email, feed",
  ),
  theme_status: ThemeStatusInput.nullable().optional().describe(
    "Also deliver status changes of query.theme or of query.category's themes (all without " +
      "either): any, or the status to wait for",
  ),
});
export type WatchCreate = z.infer<typeof WatchCreateSchema>;

export const WatchPatchSchema = z.strictObject({
  name: Name.optional(),
  query: QueryInput.optional(),
  deliveries: DeliveriesInputSchema.optional(),
  paused: z.boolean("must be true or false").optional().describe(
    "A paused watch records no matches and delivers nothing",
  ),
  rotate_webhook_secret: z.boolean("must be true or false").optional().describe(
    "Replace the signing secret; the new one is in the answer, once",
  ),
  rotate_feed_token: z.boolean("must be true or false").optional().describe(
    "Replace the feed URL's token; the old URL stops working, the new one is in the answer",
  ),
  theme_status: ThemeStatusInput.nullable().optional().describe(
    "Follow theme status changes (any or one status), or null to stop",
  ),
});
export type WatchPatch = z.infer<typeof WatchPatchSchema>;

export const WatchIdSchema = z.object({
  id: z.number().int("must be an integer").describe("Watch id (see list_watches)"),
});

/** The stored query of a watch: the list filters (sort, page and page_size do not apply). */
export const WatchQuerySchema = z.object({
  q: z.string().optional(),
  platform: z.string().optional(),
  channel: z.string().optional(),
  min_score: z.number().int(),
  recommendation: z.enum(RECOMMENDATIONS).optional(),
  category: z.string().optional(),
  theme: z.string().optional(),
  online_only: z.boolean(),
  min_pain_point_intensity: z.number().int().optional(),
  min_willingness_to_pay: z.number().int().optional(),
  max_tech_difficulty: z.number().int().optional(),
  min_sustainability: z.number().int().optional(),
});
export type WatchQuery = z.infer<typeof WatchQuerySchema>;

export const WatchSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  query: WatchQuerySchema,
  deliveries: z.object({
    webhook: z.object({
      url: z.string(),
      disabled_at: DateTime.nullable().describe(
        "Set when the webhook was switched off after failing for 3 days; PATCH a url again " +
          "to switch it on",
      ),
      failing_since: DateTime.nullable(),
    }).nullable(),
    email: z.boolean(),
    feed: z.boolean(),
  }),
  paused: z.boolean().describe("Paused by its owner (PATCH paused), or by unsubscribing"),
  status: z.enum(["active", "paused", "paused_plan_limit"]).describe(
    "active: it records and delivers new matches; paused: paused by its owner (or left " +
      "without a delivery); paused_plan_limit: the account holds more watches than its plan " +
      "keeps on (after a downgrade), so only the newest within the limit deliver; an upgrade, " +
      "or deleting or pausing a newer watch, resumes it",
  ),
  status_reason: z.string().nullable().describe(
    "Why the watch is paused, in words; null when active",
  ),
  theme_status: z.enum(THEME_FOLLOWS).optional().describe(
    "Present when the watch follows theme status changes: any, or the status it waits for",
  ),
  created_at: DateTime,
  updated_at: DateTime,
});
export type Watch = z.infer<typeof WatchSchema>;

/** A created or changed watch, with the secrets made by this call (shown only here). */
export const WatchWithSecretsSchema = WatchSchema.extend({
  webhook_secret: z.string().optional().describe(
    "The signing secret (whsec_...), shown only when made or rotated: verify each event " +
      "with it (Standard Webhooks)",
  ),
  feed_url: z.string().optional().describe(
    "The private Atom feed URL, shown only when made or rotated",
  ),
});
export type WatchWithSecrets = z.infer<typeof WatchWithSecretsSchema>;

export const WatchListSchema = z.object({ items: z.array(WatchSchema) });
export type WatchList = z.infer<typeof WatchListSchema>;

export const DeliveryAttemptSchema = z.object({
  id: z.number().int(),
  kind: z.enum(["webhook", "email", "disabled_notice", "test"]),
  event_id: z.string().nullable().describe("The webhook-id of the event, null for a test"),
  attempt: z.number().int().describe("1 for the first attempt of an event, 2 for its retry..."),
  attempted_at: DateTime,
  ok: z.boolean(),
  status_code: z.number().int().nullable(),
  error: z.string().nullable(),
  duration_ms: z.number().int(),
});
export const DeliveryListSchema = z.object({
  items: z.array(DeliveryAttemptSchema).describe("The last 100 attempts, newest first"),
});
export type DeliveryList = z.infer<typeof DeliveryListSchema>;

export const WatchTestResultSchema = z.object({
  ok: z.boolean(),
  status_code: z.number().int().nullable(),
  error: z.string().nullable(),
  event_id: z.string(),
});
export type WatchTestResult = z.infer<typeof WatchTestResultSchema>;

export const WatchDeletedSchema = z.object({ deleted: z.literal(true), id: z.number().int() });
