/**
 * Cursors of the opportunity list (see cursor.ts): the keys of each order, the list a cursor
 * belongs to, the keyset condition that continues after it, and the next_cursor of a page.
 */
import type postgres from "postgres";
import type { Sql } from "../db/open.ts";
import { searchText } from "./common.ts";
import { type CursorKey, cursorScope, decodeCursor, encodeCursor } from "./cursor.ts";
import type { OpportunityQuery } from "./schemas.ts";

/** What a page's rows carry for their cursor (a ListRow of opportunities.ts). */
interface KeyedRow {
  id: number;
  score: number;
  k_us?: string;
  k_rank?: number;
}

/** The relevance of a row to `q` (cover density), the first key of the relevance order. */
export function rank(sql: Sql, query: OpportunityQuery): postgres.Fragment {
  return sql`ts_rank_cd(o.search, oi_search_query(${searchText(query.q) ?? ""}))`;
}

/** The cursor shape of each order's keys (see cursor.ts): the keys of queryOrder, in order. */
const KEY_SHAPES = {
  score: ["n", "t", "n"],
  newest: ["t", "n"],
  relevance: ["n", "n", "t", "n"],
} as const;

/** The list a cursor belongs to: the normalised filters and the sort (not page or page_size). */
export function opportunityScope(query: OpportunityQuery): string {
  return cursorScope("opportunities", {
    q: searchText(query.q),
    platform: query.platform?.toLowerCase(),
    channel: query.channel,
    min_score: query.min_score,
    recommendation: query.recommendation,
    category: query.category,
    online_only: query.online_only,
    sort: query.sort,
  });
}

/** The sort keys `query.cursor` names (undefined without one); throws InvalidCursorError. */
export function cursorKeys(query: OpportunityQuery): CursorKey[] | undefined {
  if (query.cursor === undefined) return undefined;
  return decodeCursor(query.cursor, opportunityScope(query), [...KEY_SHAPES[query.sort]]);
}

/**
 * `and (sort keys) < (the cursor's)`: every order is descending in all its keys, so one row
 * comparison finds the rows after the cursor, and PostgreSQL starts the sort index's scan there.
 */
export function afterCursor(sql: Sql, query: OpportunityQuery): postgres.Fragment {
  const k = cursorKeys(query);
  if (!k) return sql``;
  // Microseconds since the epoch: exact, where a JavaScript Date would drop them.
  const at = (us: CursorKey) =>
    sql`(timestamptz 'epoch' + ${us}::bigint * interval '1 microsecond')`;
  switch (query.sort) {
    case "newest":
      return sql`and (o.created_at, o.id) < (${at(k[0])}, ${k[1]}::int)`;
    case "relevance":
      return sql`and (${rank(sql, query)}, o.score, o.created_at, o.id) <
        (${k[0]}::real, ${k[1]}::int, ${at(k[2])}, ${k[3]}::int)`;
    default:
      return sql`and (o.score, o.created_at, o.id) < (${k[0]}::int, ${at(k[1])}, ${k[2]}::int)`;
  }
}

/** The columns a page selects besides listColumns: the sort keys of its next_cursor. */
export function keyColumns(sql: Sql, query: OpportunityQuery): postgres.Fragment {
  return sql`, (extract(epoch from o.created_at) * 1000000)::bigint::text as k_us
    ${query.sort === "relevance" ? sql`, ${rank(sql, query)} as k_rank` : sql``}`;
}

/**
 * The next_cursor after a page read by readOpportunityPage (one row more than the page): null when that
 * row is missing, since the page is then the last.
 */
export function nextCursor(query: OpportunityQuery, rows: KeyedRow[]): string | null {
  if (rows.length <= query.page_size) return null;
  const last = rows[query.page_size - 1];
  const keys: CursorKey[] = query.sort === "newest"
    ? [last.k_us!, last.id]
    : query.sort === "relevance"
    ? [last.k_rank!, last.score, last.k_us!, last.id]
    : [last.score, last.k_us!, last.id];
  return encodeCursor(opportunityScope(query), keys);
}
