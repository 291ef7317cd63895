/**
 * The error bodies of the OpenAPI document (docs/DECISIONS.md section 4): every non-2xx answer's,
 * and the 429 of a used-up quota.
 */
import { z } from "zod";
import { PLANS } from "../platform/plans.ts";

/** The error body of every non-2xx answer (docs/DECISIONS.md section 4). */
export const ErrorBodySchema = z.object({
  error: z.string().describe("A stable code: missing_api_key, invalid_api_key, key_revoked, ..."),
  message: z.string().describe("One sentence for a person"),
  details: z.array(z.object({ param: z.string(), message: z.string() })).optional()
    .describe("invalid_parameter: one entry per bad parameter"),
  request_id: z.string().optional().describe("The request id, as in X-Request-Id"),
  revoked_by: z.enum(["owner", "admin"]).optional().describe("key_revoked: who revoked the key"),
  required_plan: z.enum(PLANS).optional().describe("plan_required"),
  current_plan: z.enum(PLANS).optional().describe("plan_required"),
  operation: z.string().optional().describe("plan_required: the operation refused"),
  upgrade_url: z.string().optional().describe("plan_required: where to change plan"),
  param: z.string().optional().describe(
    'invalid_cursor and page_too_deep: "cursor", the parameter to use or fix',
  ),
  reason: z.enum(["malformed", "other_list"]).optional().describe(
    "invalid_cursor: malformed (damaged, not signed by this service, or a key out of its range) " +
      "or other_list (made by a list of other filters or another sort)",
  ),
  max_depth: z.number().int().optional().describe(
    "page_too_deep: the deepest item a page number reaches (page * page_size)",
  ),
});

/** The 429 body of the specification. */
export const QuotaExceededBodySchema = z.object({
  error: z.literal("quota_exceeded"),
  message: z.string().optional(),
  current: z.number().int().describe("Calls used in the current month"),
  limit: z.number().int().describe("The plan's monthly call limit"),
  reset_at: z.iso.datetime({ offset: true }).describe("When the quota resets"),
  upgrade_url: z.string().describe("Where a higher plan adds calls at once"),
  request_id: z.string().optional().describe("The request id, as in X-Request-Id"),
});
