/**
 * GET /api/v1/opportunities/export: every opportunity of a filter, streamed as JSON Lines or CSV,
 * for the Business plan. The rows are the list's (GET /api/v1/opportunities with the same filters
 * and sort), read by the list's own code (Content.exportPages) in pages of EXPORT_CHUNK that
 * follow its next_cursor, so that an export holds exactly the rows of the list in its order, a
 * question's best match and relevance order included, each chunk costing the same at any depth.
 *
 * Price: 1 call per started EXPORT_CHUNK rows of the exact total (at least 1), shown before the
 * first byte (X-Total-Count, X-Export-Calls). The key and the plan are checked charging nothing;
 * the first chunk gives the total; the whole price is then reserved in one statement
 * (reserveUnits), so concurrent exports never pass the month's limit and never refuse one that
 * the quota still covers; an export the quota cannot pay is a 429 that charges nothing. When the
 * stream ends the charge is settled at the started EXPORT_CHUNKs sent (at least 1 once it ends
 * normally, none when a client that disconnects or a failure has sent no row) and the rest given
 * back. A HEAD answers the headers, the price included, and charges nothing: it reads the list's
 * total with a page of one row, never a chunk of rows.
 */
import * as z from "zod";
import { admit, type Operation, OPERATIONS } from "../metering/admission.ts";
import { apiKeyOf, authenticate, type Caller } from "../accounts/credentials.ts";
import { refundUnits, reserveUnits } from "../metering/bulk_charge.ts";
import { parseQuery } from "../catalog/params.ts";
import {
  type OpportunityList,
  type OpportunityListItem,
  OpportunityListItemSchema,
  type OpportunityQuery,
  OpportunityQuerySchema,
} from "../catalog/schemas.ts";
import type { Content } from "../catalog/content.ts";
import type { Sql } from "../db/open.ts";
import {
  MethodNotAllowedError,
  QuotaExceededError,
  toApiError,
  withUpgradeUrl,
} from "../platform/errors.ts";
import { errorResponse, QUOTA_CHARGED, quotaHeaders } from "../platform/responses.ts";
import { logFailure, type Outcome } from "../platform/request_log.ts";
import { isHead } from "../platform/head.ts";
import type { UsageState } from "../platform/plans.ts";
import { csvLine } from "./csv.ts";

/** Rows per chunk read, and per call charged. */
export const EXPORT_CHUNK = 1000;

/**
 * The export's checks of key and plan, charging nothing: its price is known only with its total
 * (reserveUnits charges it).
 */
const EXPORT_CHECK: Operation = { ...OPERATIONS.exportOpportunities, cost: 0 };

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

/** The calls for `rows` rows: 1 per started EXPORT_CHUNK (none for none). */
export function exportCalls(rows: number): number {
  return Math.ceil(rows / EXPORT_CHUNK);
}

/** Answers GET and HEAD /api/v1/opportunities/export: key -> parameters -> plan -> price -> stream. */
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
  const { caller, refusal } = await admit(deps.sql, key, EXPORT_CHECK, undefined, at);
  if (refusal) {
    const body = withUpgradeUrl(refusal, deps.content.publicBaseUrl);
    return { response: errorResponse(body, caller.usage), caller };
  }
  const base = deps.content.publicBaseUrl;
  // Nothing left: no export can be paid, whatever its total.
  if (caller.usage.remaining <= 0) return quotaRefusal(base, caller, caller.usage);
  const head = isHead(request);
  // A HEAD is free, so it reads only the price: the list's total with a page of one row (from
  // the list's cache when it holds it), never a chunk of the export's rows.
  const pages = head ? undefined : deps.content.exportPages(caller.dataVersion, query);
  let first: OpportunityList;
  try {
    first = pages
      ? await pages(undefined)
      : await deps.content.listOpportunities(caller.dataVersion, { ...query, page_size: 1 });
  } catch (error) {
    if (toApiError(error).status === 500) logFailure(error, request, url);
    return { response: errorResponse(error, caller.usage), caller };
  }
  const total = first.total;
  const units = Math.max(1, exportCalls(total));
  const price = { total, units, quality: qualityHeaders(first) };
  if (!pages) {
    if (units > caller.usage.remaining) return quotaRefusal(base, caller, caller.usage, price);
    const headers = exportHeaders(format, price, caller.usage, 0);
    return { response: new Response(null, { status: 200, headers }), caller, quota: "free" };
  }
  const { reserved, used } = await reserveUnits(deps.sql, caller, units, at);
  const usage = { ...caller.usage, used, remaining: Math.max(0, caller.usage.limit - used) };
  if (!reserved) return quotaRefusal(base, caller, usage, price);
  const body = exportStream(deps, { pages, first, format, units, caller, at, request, url });
  const headers = exportHeaders(format, price, usage, price.units);
  return { response: new Response(body, { status: 200, headers }), caller, quota: "charged" };
}

/** The 429 of an export the quota cannot pay, naming its price when it is known; nothing charged. */
function quotaRefusal(
  publicBaseUrl: string,
  caller: Caller,
  usage: UsageState,
  price?: { total: number; units: number },
): Outcome {
  const { used, limit, reset_at } = usage;
  const error = new QuotaExceededError(used, limit, reset_at);
  if (price) {
    error.message = `This export of ${price.total} opportunities costs ${price.units} calls ` +
      `(1 per started ${EXPORT_CHUNK}); ${Math.max(0, limit - used)} are left this month, ` +
      `until ${reset_at}`;
  }
  const body = withUpgradeUrl(error, publicBaseUrl);
  return { response: errorResponse(body, usage), caller, quota: "rejected" };
}

/**
 * What the export's q became and how well the rows answer it (the list's read_as,
 * ignored_terms, confidence and unmatched_terms), as headers since the body is rows: none
 * without q. Words are percent-encoded, comma-separated; read_as is percent-encoded JSON.
 */
function qualityHeaders(list: OpportunityList): Record<string, string> {
  if (list.read_as === null) return {};
  const words = (list: string[]) => list.map(encodeURIComponent).join(",");
  return {
    ...(list.confidence === null ? {} : { "X-Confidence": String(list.confidence) }),
    "X-Unmatched-Terms": words(list.unmatched_terms),
    "X-Ignored-Terms": words(list.ignored_terms),
    "X-Read-As": encodeURIComponent(JSON.stringify(list.read_as)),
  };
}

function exportHeaders(
  format: "jsonl" | "csv",
  price: { total: number; units: number; quality?: Record<string, string> },
  usage: UsageState,
  charged: number,
): Record<string, string> {
  return {
    ...price.quality,
    ...quotaHeaders(usage),
    // Never a repeat: an export takes its price each time.
    [QUOTA_CHARGED]: String(charged),
    "Content-Type": format === "csv" ? "text/csv; charset=utf-8" : "application/x-ndjson",
    "Content-Disposition": `attachment; filename="opportunities.${format}"`,
    "Cache-Control": "no-store",
    "X-Total-Count": String(price.total),
    "X-Export-Calls": String(price.units),
  };
}

/**
 * The rows of the export, a chunk each time the client reads (highWaterMark 0: nothing is read
 * ahead, so the rows counted as sent are the rows handed to the client), and the settlement of
 * its reserved `units` when the stream closes, is cancelled or fails.
 */
function exportStream(
  deps: ExportDeps,
  run: {
    pages: (cursor: string | undefined) => Promise<OpportunityList>;
    first: OpportunityList;
    format: "jsonl" | "csv";
    units: number;
    caller: Caller;
    at: Date;
    request: Request;
    url: URL;
  },
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let chunk: OpportunityList | undefined = run.first;
  let chunkCursor: string | undefined;
  let started = false;
  let sent = 0;
  let settled = false;
  // A client that stops reading pays for what it was sent; nothing more is read.
  let cancelled = false;
  /** Gives back the reserved units beyond `owed` (once; never more than reserved is kept). */
  async function settle(owed: number): Promise<void> {
    if (settled) return;
    settled = true;
    await refundUnits(deps.sql, run.caller, run.units - Math.min(run.units, owed), run.at);
  }
  return new ReadableStream<Uint8Array>({
    async cancel() {
      cancelled = true;
      await settle(exportCalls(sent));
    },
    async pull(controller) {
      try {
        chunk ??= await run.pages(chunkCursor);
        if (cancelled) return;
        let text = "";
        if (!started && run.format === "csv") text += COLUMNS.join(",") + "\r\n";
        started = true;
        for (const item of chunk.items) {
          text += run.format === "csv" ? csvLine(COLUMNS, item) : JSON.stringify(item) + "\n";
        }
        sent += chunk.items.length;
        const next = chunk.next_cursor;
        chunk = undefined;
        chunkCursor = next ?? undefined;
        // Settled before the last bytes go out, so that a client that read to the end finds
        // its usage final.
        if (next === null) await settle(Math.max(1, exportCalls(sent)));
        if (text) controller.enqueue(encoder.encode(text));
        if (next === null) controller.close();
      } catch (error) {
        if (cancelled) return;
        await settle(exportCalls(sent));
        logFailure(error, run.request, run.url);
        controller.error(error);
      }
    },
  }, { highWaterMark: 0 });
}
