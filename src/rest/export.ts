/**
 * GET /api/v1/opportunities/export: every opportunity of a filter, streamed as JSON
 * Lines or CSV, for the Business plan. The rows are read in keyset chunks of EXPORT_CHUNK (the
 * list's cursor, so each costs the same at any depth, and a row that existed when the export
 * began is sent exactly once even while imports run) and written as each chunk arrives.
 *
 * Price: 1 call per started EXPORT_CHUNK rows (at least 1), charged before the first byte from
 * the exact total, so a client knows the price from the X-Total-Count and X-Quota headers and an
 * export the quota cannot pay for is a 429 that charges nothing. If the stream fails midway, the
 * chunks not sent are given back.
 */
import * as z from "zod";
import { admit, type Operation, OPERATIONS, refund } from "../metering/admission.ts";
import { apiKeyOf, authenticate } from "../accounts/credentials.ts";
import { chargeUnits, refundUnits } from "../metering/bulk_charge.ts";
import type { Caller } from "../accounts/credentials.ts";
import { toListItem } from "../catalog/opportunities.ts";
import { readOpportunityPage } from "../catalog/opportunities.ts";
import { nextCursor } from "../catalog/opportunity_cursor.ts";
import { parseQuery } from "../catalog/params.ts";
import {
  type OpportunityListItem,
  OpportunityListItemSchema,
  type OpportunityQuery,
  OpportunityQuerySchema,
} from "../catalog/schemas.ts";
import type { Content } from "../catalog/content.ts";
import type { Sql } from "../db/open.ts";
import { MethodNotAllowedError, QuotaExceededError } from "../platform/errors.ts";
import { errorResponse, quotaHeaders } from "../platform/responses.ts";
import { logFailure, type Outcome } from "../platform/request_log.ts";
import { csvLine } from "./csv.ts";

/** Rows per chunk read, and per call charged. */
export const EXPORT_CHUNK = 1000;

/** The export as an operation of the quota (its first call; chargeUnits adds the rest). */
const EXPORT_OPERATION: Operation = OPERATIONS.exportOpportunities;

const { page: _p, page_size: _s, cursor: _c, ...FILTERS } = OpportunityQuerySchema.shape;

/** The export's parameters: the list's filters and sort, and the format. */
export const ExportQuerySchema = z.object({
  ...FILTERS,
  format: z.enum(["jsonl", "csv"], "must be one of jsonl, csv").default("jsonl").describe(
    "jsonl: one list item as JSON per line; csv: a header line, then one line per item",
  ),
}).refine((query) => query.sort !== "relevance" || (query.q ?? "").trim() !== "", {
  path: ["sort"],
  message: "relevance needs q",
});

const COLUMNS = Object.keys(OpportunityListItemSchema.shape) as (keyof OpportunityListItem)[];

/** What the export needs of the REST edge. */
export interface ExportDeps {
  sql: Sql;
  content: Content;
}

/** Answers GET /api/v1/opportunities/export: key -> parameters -> plan -> price -> stream. */
export async function serveExport(
  request: Request,
  url: URL,
  deps: ExportDeps,
): Promise<Outcome> {
  if (request.method !== "GET") throw new MethodNotAllowedError(request.method, "GET, HEAD");
  const key = apiKeyOf(request, url);
  let params: z.infer<typeof ExportQuerySchema>;
  try {
    params = parseQuery(ExportQuerySchema, url);
  } catch (error) {
    const caller = await authenticate(deps.sql, key);
    return { response: errorResponse(error, caller.usage), caller };
  }
  const { format, ...filters } = params;
  const query: OpportunityQuery = { ...filters, page: 1, page_size: EXPORT_CHUNK };
  const at = new Date();
  const { caller, refusal } = await admit(deps.sql, key, EXPORT_OPERATION, undefined, at);
  if (refusal) {
    const quota = refusal instanceof QuotaExceededError ? "rejected" : undefined;
    return { response: errorResponse(refusal, caller.usage), caller, quota };
  }
  let total: number;
  try {
    // The list's own total (cached, from the summaries without q).
    total = (await deps.content.listOpportunities(caller.dataVersion, { ...query, page_size: 1 }))
      .total;
  } catch (error) {
    await refund(deps.sql, caller, at);
    logFailure(error, request, url);
    return { response: errorResponse(error), caller };
  }
  const units = Math.max(1, Math.ceil(total / EXPORT_CHUNK));
  const used = await chargeUnits(deps.sql, caller, units - 1, at);
  if (used === undefined) {
    const after = await refund(deps.sql, caller, at) ?? caller.usage.used - 1;
    const { limit, reset_at } = caller.usage;
    const error = new QuotaExceededError(after, limit, reset_at);
    error.message = `This export of ${total} opportunities costs ${units} calls (1 per started ` +
      `${EXPORT_CHUNK}); ${Math.max(0, limit - after)} are left this month, until ${reset_at}`;
    const usage = { ...caller.usage, used: after, remaining: Math.max(0, limit - after) };
    return { response: errorResponse(error, usage), caller, quota: "rejected" };
  }
  const usage = { ...caller.usage, used, remaining: Math.max(0, caller.usage.limit - used) };
  const headers = {
    ...quotaHeaders(usage),
    "Content-Type": format === "csv" ? "text/csv; charset=utf-8" : "application/x-ndjson",
    "Content-Disposition": `attachment; filename="opportunities.${format}"`,
    "Cache-Control": "no-store",
    "X-Total-Count": String(total),
    "X-Export-Calls": String(units),
  };
  const body = exportStream(deps, { query, format, total, units, caller, at, request, url });
  return { response: new Response(body, { status: 200, headers }), caller, quota: "charged" };
}

/** The rows of the export, chunk by chunk as the client reads them. */
function exportStream(
  deps: ExportDeps,
  run: {
    query: OpportunityQuery;
    format: "jsonl" | "csv";
    total: number;
    units: number;
    caller: Caller;
    at: Date;
    request: Request;
    url: URL;
  },
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let cursor: string | undefined;
  let started = false;
  let sent = 0;
  // A client that stops reading has had the export it paid for; nothing more is read.
  let cancelled = false;
  return new ReadableStream<Uint8Array>({
    cancel() {
      cancelled = true;
    },
    async pull(controller) {
      try {
        let text = "";
        if (!started && run.format === "csv") text += COLUMNS.join(",") + "\r\n";
        if (started && cursor === undefined) return controller.close();
        started = true;
        const chunk = { ...run.query, cursor };
        const rows = await readOpportunityPage(deps.sql, chunk);
        if (cancelled) return;
        const items = rows.slice(0, EXPORT_CHUNK).map((r) =>
          toListItem(r, deps.content.publicBaseUrl)
        );
        for (const item of items) {
          text += run.format === "csv" ? csvLine(COLUMNS, item) : JSON.stringify(item) + "\n";
        }
        sent += items.length;
        cursor = nextCursor(chunk, rows) ?? undefined;
        if (text) controller.enqueue(encoder.encode(text));
        if (cursor === undefined) controller.close();
      } catch (error) {
        if (cancelled) return;
        // The calls of the chunks not sent are given back.
        const owed = Math.max(1, Math.ceil(sent / EXPORT_CHUNK));
        await refundUnits(deps.sql, run.caller, run.units - owed, run.at);
        logFailure(error, run.request, run.url);
        controller.error(error);
      }
    },
  });
}
