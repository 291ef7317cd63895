/**
 * The shape of a usage report (GET /api/v1/usage, the MCP tool get_usage), as zod schemas.
 * Pure on purpose (only zod): the MCP tool definitions, which the npm stdio package bundles,
 * and the OpenAPI document read it.
 */
import * as z from "zod";

export const UsageQuerySchema = z.object({
  month: z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/, "must be a month as YYYY-MM").optional()
    .describe(
      "The UTC month, YYYY-MM: this one (default) or one of the 12 before",
    ),
});
export type UsageQuery = z.infer<typeof UsageQuerySchema>;

export const UsageReportSchema = z.object({
  month: z.string().describe("The reported UTC calendar month, YYYY-MM"),
  plan: z.enum(["free", "pro", "business"]).describe("The account's plan now"),
  used: z.number().int().describe("Calls charged in the month, all keys and surfaces"),
  limit: z.number().int().describe("Calls a month on the account's current plan"),
  remaining: z.number().int().describe("limit - used, never below 0"),
  repeats: z.number().int().describe(
    "Repeats answered free in the month (the same call by the account, answered from the same " +
      "data within 24 hours), not in used",
  ),
  reset_at: z.string().describe("When the month's quota resets (00:00 UTC on the next 1st)"),
  by_key: z.array(z.object({
    prefix: z.string().describe(
      "The key's public 12-character prefix, or oauth:<grant id> for an app connected by OAuth",
    ),
    name: z.string(),
    calls: z.number().int(),
    revoked: z.boolean(),
  })).describe(
    "Charged calls per key and per connected app (name = the app's name), most first; keys " +
      "usable in the month, with 0 too",
  ),
  by_day: z.array(z.object({
    date: z.string().describe("UTC day, YYYY-MM-DD"),
    calls: z.number().int(),
  })).describe(
    "Charged calls per UTC day, from the 1st to today (to the last day of a past month)",
  ),
  by_surface: z.object({
    rest: z.number().int().describe("Calls charged on the REST API"),
    mcp: z.number().int().describe("Calls charged through MCP tools"),
  }),
});
export type UsageReport = z.infer<typeof UsageReportSchema>;
