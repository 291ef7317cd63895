/**
 * What a tool answers by default: a compact answer that fits an agent's context. Clients cut
 * tool output at about 10 KB (Codex at 10 KiB, Claude Code warns at 10,000 tokens), and a list
 * of 20 full records was 30 KB, so every tool answer with `detail: "compact"` (the default) is
 * held to ANSWER_BUDGET bytes on the wire, text and structured content together:
 *
 * - records repeated in an answer keep the fields an agent needs to choose (COMPACT, per tool and
 *   path: an opportunity's id, title, verdict, score, audience, relevance and url);
 * - a list says how many items are left after its page (`remaining`, null on a page reached by
 *   cursor), beside its total and next_cursor;
 * - then, while the answer is still over the budget, its longest texts are shortened (ending in
 *   "…") and the answer says `truncated: true`.
 *
 * `detail: "full"` gives the REST answer unchanged. The list tools take 10 items a page by
 * default here (REST: 20) and match_idea 5 (TOOL_DEFAULTS). REST offers the same compact records
 * with `fields=compact`, or a list of item fields (src/rest/handler.ts). Pure (zod only), like
 * src/mcp/tools.ts: the npm stdio package shapes its answers with it too.
 */
import * as z from "zod";

/** The most bytes a tool answer takes by default: the whole `tools/call` result. */
export const ANSWER_BUDGET = 8_192;

/** How much of an answer a caller asks for. */
export const DetailSchema = z.object({
  detail: z.enum(["compact", "full"], "must be one of compact, full").default("compact")
    .describe("full: every field"),
});
export type Detail = z.infer<typeof DetailSchema>["detail"];

/** The fields an opportunity keeps in a compact answer (relevance and similarity when given). */
export const OPPORTUNITY_COMPACT = [
  "id",
  "title",
  "recommendation",
  "score",
  "target_audience",
  "relevance",
  "similarity",
  "url",
] as const;

// How tool descriptions say what a default answer holds and how to get more (src/mcp/tools.ts).
/** An opportunity as a default answer lists it. */
export const ITEM = OPPORTUNITY_COMPACT.filter((f) => f !== "similarity").join(", ");
/** A default page. */
export const PAGES = "10 a page (to 100) with total, remaining and next_cursor";
/** How to ask for every field. */
export const FULL = 'detail "full"';

/** The fields a theme keeps in a compact answer. */
export const THEME_COMPACT = [
  "id",
  "slug",
  "name",
  "category",
  "trend_direction",
  "trend_change",
  "trend_status",
  "growth",
  "opportunity_count",
  "similarity",
  "url",
] as const;

const CATEGORY_COMPACT = ["id", "slug", "name", "theme_count", "opportunity_count", "url"];
const ARTICLE_COMPACT = ["slug", "title", "url", "related_opportunity_id", "published_at"];

/**
 * The records each operation answers compactly (keyed by the operation's name in
 * src/metering/admission.ts; its MCP tool and REST route share it): a property path ("" for the answer itself; array
 * items are stepped through) and the fields kept there. A tool not named keeps every field and
 * is only held to the budget by shortening its texts.
 */
export type Compaction = Readonly<Record<string, readonly string[]>>;

export const COMPACT: Readonly<Record<string, Compaction>> = {
  getOverview: { categories: CATEGORY_COMPACT, trending: THEME_COMPACT },
  listBlogPosts: { items: ARTICLE_COMPACT },
  listOpportunities: { items: OPPORTUNITY_COMPACT },
  findSimilar: { items: OPPORTUNITY_COMPACT },
  matchIdea: { themes: THEME_COMPACT, opportunities: OPPORTUNITY_COMPACT },
  listTrendingThemes: { items: THEME_COMPACT },
  getTheme: { theme: [...THEME_COMPACT, "summary"], top_opportunities: OPPORTUNITY_COMPACT },
};

/** The defaults an MCP tool takes where its REST operation's differ: pages that fit the budget. */
export const TOOL_DEFAULTS: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  listOpportunities: { page_size: 10 },
  findSimilar: { page_size: 10 },
  listBlogPosts: { page_size: 10 },
  matchIdea: { limit: 5 },
};

/** A theme history keeps its newest points by default (26 weeks, or 26 months). */
const HISTORY_POINTS = 26;

/** A tool's arguments with its operation's tool defaults for what the caller left out. */
export function withToolDefaults(operation: string, args: unknown): unknown {
  const defaults = TOOL_DEFAULTS[operation];
  if (!defaults || typeof args !== "object" || args === null || Array.isArray(args)) {
    return defaults && (args === undefined || args === null) ? { ...defaults } : args;
  }
  const given = args as Record<string, unknown>;
  const out: Record<string, unknown> = { ...given };
  for (const [name, value] of Object.entries(defaults)) {
    if (given[name] === undefined || given[name] === null) out[name] = value;
  }
  return out;
}

type Json = Record<string, unknown>;

/** Keeps `keep` of the records at `path` of `node` (through arrays), as a new value. */
function pickAt(node: unknown, path: string[], keep: readonly string[]): unknown {
  if (Array.isArray(node)) return node.map((n) => pickAt(n, path, keep));
  if (typeof node !== "object" || node === null) return node;
  const record = node as Json;
  if (path.length > 0) {
    const [head, ...rest] = path;
    if (!(head in record)) return record;
    return { ...record, [head]: pickAt(record[head], rest, keep) };
  }
  return Object.fromEntries(keep.filter((name) => name in record).map((n) => [n, record[n]]));
}

/** The answer with only the compact fields of its records. */
export function compactRecords(body: Json, compaction: Compaction): Json {
  let out: unknown = body;
  for (const [path, keep] of Object.entries(compaction)) {
    out = pickAt(out, path === "" ? [] : path.split("."), keep);
  }
  return out as Json;
}

/** How many items are left after a list's page; null on a page reached by cursor. */
function remainingOf(body: Json): number | null {
  const { page, page_size: size, total, items } = body;
  if (typeof page !== "number" || typeof size !== "number" || typeof total !== "number") {
    return null;
  }
  const shown = (page - 1) * size + (Array.isArray(items) ? items.length : 0);
  return Math.max(0, total - shown);
}

/** A theme history's newest points, with how many earlier ones `detail: "full"` adds. */
function newestPoints(body: Json): Json {
  const points = body.points as { start: string; mentions: number }[];
  if (points.length <= HISTORY_POINTS) return body;
  const kept = points.slice(-HISTORY_POINTS);
  return {
    ...body,
    from: kept[0].start,
    points: kept,
    total_mentions: kept.reduce((sum, p) => sum + p.mentions, 0),
    earlier_points: points.length - kept.length,
  };
}

/** The compact answer of `tool` before its texts are fitted. */
function compactView(operation: string, body: Json): Json {
  const compaction = COMPACT[operation];
  let out = compaction ? compactRecords(body, compaction) : body;
  if (Array.isArray(out.items) && "total" in out) out = { ...out, remaining: remainingOf(out) };
  if (operation === "getThemeHistory" && Array.isArray(out.points)) out = newestPoints(out);
  return out;
}

/** The fields whose strings are prose, shortened to fit: never ids, slugs, urls or cursors. */
const TEXT_FIELDS = new Set([
  "title",
  "name",
  "summary",
  "description",
  "target_audience",
  "monetization_model",
  "market_size_estimate",
  "differentiation",
  "key_features",
  "competitors",
  "risks",
  "quote",
  "channel_name",
  "excerpt",
  "body_md",
  "text",
  "tags",
]);

/** `text` cut to `cap` characters, the last one "…" (a surrogate pair is never split). */
function cut(text: string, cap: number): string {
  if (text.length <= cap) return text;
  let end = cap - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return text.slice(0, end) + "…";
}

/** `node` with every prose string longer than `cap` cut; `inText` under a prose field. */
function capTexts(node: unknown, cap: number, inText = false): unknown {
  if (typeof node === "string") return inText ? cut(node, cap) : node;
  if (Array.isArray(node)) return node.map((n) => capTexts(n, cap, inText));
  if (typeof node !== "object" || node === null) return node;
  return Object.fromEntries(
    Object.entries(node).map(([k, v]) => [k, capTexts(v, cap, TEXT_FIELDS.has(k))]),
  );
}

/** The longest prose string of `node`. */
function longestText(node: unknown, inText = false): number {
  if (typeof node === "string") return inText ? node.length : 0;
  if (Array.isArray(node)) return Math.max(0, ...node.map((n) => longestText(n, inText)));
  if (typeof node !== "object" || node === null) return 0;
  return Math.max(0, ...Object.entries(node).map(([k, v]) => longestText(v, TEXT_FIELDS.has(k))));
}

const encoder = new TextEncoder();

/**
 * What the protocol adds around a result (the 2026-07-28 revision's `resultType` and `_meta`,
 * about 150 bytes), kept free when an answer is fitted.
 */
const ENVELOPE = 384;

/** The bytes of the `tools/call` result that carries `body` (structured and as text). */
export function resultBytes(body: Json): number {
  const text = JSON.stringify(body);
  return encoder.encode(JSON.stringify({
    content: [{ type: "text", text }],
    structuredContent: body,
  })).length;
}

/**
 * `body` within `budget`: as it is when it fits, else with its prose cut to the longest length
 * that fits (found by bisection) and `truncated: true`. What cannot be cut (ids, urls, numbers)
 * stays whole, so an answer of too many records can stay over: the tools' page sizes are chosen
 * so that theirs fit (tests/mcp/answer_size_test.ts).
 */
export function fitAnswer(body: Json, budget = ANSWER_BUDGET - ENVELOPE): Json {
  if (resultBytes(body) <= budget) return body;
  const fits = (cap: number) => resultBytes({ ...capTexts(body, cap) as Json, truncated: true });
  let low = 8;
  let high = Math.min(longestText(body), budget);
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (fits(mid) <= budget) low = mid;
    else high = mid - 1;
  }
  return { ...capTexts(body, low) as Json, truncated: true };
}

const shaped = new Map<string, WeakMap<object, Json>>();

/**
 * The answer of `operation` as `detail` asks: the body itself when full, else its compact view fitted
 * to the budget. Cached per answer object, as the answers themselves are (src/catalog/cache.ts).
 */
export function shapeAnswer(operation: string, body: Json, detail: Detail): Json {
  if (detail === "full") return body;
  let cache = shaped.get(operation);
  if (!cache) shaped.set(operation, cache = new WeakMap());
  let out = cache.get(body);
  if (!out) cache.set(body, out = fitAnswer(compactView(operation, body)));
  return out;
}
