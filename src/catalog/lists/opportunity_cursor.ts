/**
 * Cursors of the opportunity list (see cursor.ts): the keys of each order, the list a cursor
 * belongs to, the keyset condition that continues after it, and the next_cursor of a page.
 */
import type postgres from "postgres";
import type { Sql } from "../../db/open.ts";
import { searchText } from "../common.ts";
import {
  checkKeys,
  type CursorKey,
  cursorScope,
  decodeCursor,
  encodeCursor,
  type KeyKind,
  readCursor,
} from "../cursor.ts";
import { InvalidCursorError } from "../../platform/errors.ts";
import type { OpportunityQuery, OpportunitySort } from "../schemas.ts";
import { isSubScoreSort, SUB_SCORE_COLUMNS, subScoreKey } from "./sub_scores.ts";

/** What a page's rows carry for their cursor (a ListRow of opportunities.ts). */
interface KeyedRow {
  id: number;
  score: number;
  pain_point_intensity?: number;
  willingness_to_pay_score?: number;
  tech_difficulty?: number;
  sustainability_score?: number;
  k_us?: string;
  k_rank?: number;
}

/** The relevance of a row to `q` (cover density), the first key of the relevance order. */
export function rank(sql: Sql, query: OpportunityQuery): postgres.Fragment {
  return sql`ts_rank_cd(o.search, oi_search_query(${searchText(query.q) ?? ""}))`;
}

/** What the keys of each order are (see cursor.ts): the keys of queryOrder, in order. */
const KEY_KINDS: Record<"score" | "newest" | "relevance" | "sub", readonly KeyKind[]> = {
  score: ["score", "us", "id"],
  newest: ["us", "id"],
  relevance: ["rank", "score", "us", "id"],
  // A sub-score order: the row's sub-score (its column's value, 0-10), then the score order.
  sub: ["sub", "score", "us", "id"],
};

function kindsOf(sort: OpportunitySort): readonly KeyKind[] {
  return isSubScoreSort(sort) ? KEY_KINDS.sub : KEY_KINDS[sort];
}

/** The order of a list: the one asked for, else relevance with q and score without. */
export function sortOf(query: OpportunityQuery): OpportunitySort {
  return query.sort ?? (searchText(query.q) ? "relevance" : "score");
}

/** The list a cursor belongs to: the normalised filters and the sort (not page or page_size). */
export function opportunityScope(query: OpportunityQuery): string {
  return cursorScope("opportunities", {
    q: searchText(query.q),
    platform: query.platform?.toLowerCase(),
    channel: query.channel,
    min_score: query.min_score,
    recommendation: query.recommendation,
    category: query.category,
    theme: query.theme,
    online_only: query.online_only,
    min_pain_point_intensity: query.min_pain_point_intensity,
    min_willingness_to_pay: query.min_willingness_to_pay,
    max_tech_difficulty: query.max_tech_difficulty,
    min_sustainability: query.min_sustainability,
    sort: sortOf(query),
  });
}

/** The sort keys `query.cursor` names (undefined without one); throws InvalidCursorError. */
export function cursorKeys(query: OpportunityQuery): CursorKey[] | undefined {
  if (query.cursor === undefined) return undefined;
  return decodeCursor(query.cursor, opportunityScope(query), kindsOf(sortOf(query)));
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
  const sort = sortOf(query);
  if (isSubScoreSort(sort)) {
    const sub = sort === "tech_difficulty" ? -Number(k[0]) : Number(k[0]);
    return sql`and (${subScoreKey(sql, sort)}, o.score, o.created_at, o.id) <
      (${sub}::int, ${k[1]}::int, ${at(k[2])}, ${k[3]}::int)`;
  }
  switch (sort) {
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
    ${sortOf(query) === "relevance" ? sql`, ${rank(sql, query)} as k_rank` : sql``}`;
}

/**
 * The next_cursor after a page read by readOpportunityPage (one row more than the page): null when that
 * row is missing, since the page is then the last.
 */
export function nextCursor(query: OpportunityQuery, rows: KeyedRow[]): string | null {
  if (rows.length <= query.page_size) return null;
  const last = rows[query.page_size - 1];
  const sort = sortOf(query);
  const keys: CursorKey[] = isSubScoreSort(sort)
    ? [last[SUB_SCORE_COLUMNS[sort]]!, last.score, last.k_us!, last.id]
    : sort === "newest"
    ? [last.k_us!, last.id]
    : sort === "relevance"
    ? [last.k_rank!, last.score, last.k_us!, last.id]
    : [last.score, last.k_us!, last.id];
  return encodeCursor(opportunityScope(query), keys);
}

/**
 * Where a cursor of a question's list (q in relevance order, or a best match) goes on: at a
 * position among its ranked candidates (src/catalog/questions/search.ts), or after a row of the
 * matches that follow them in score order (keyset, as the other lists).
 */
export type QuestionPosition = { at: number } | { after: CursorKey[] };

/** The scope of a question's list: its filters and order, apart from the keyset lists'. */
function questionScope(query: OpportunityQuery): string {
  return `${opportunityScope(query)}:question`;
}

/**
 * The position `query.cursor` names in a question's list, or undefined without one: a position
 * within the depth page numbers reach (so a cursor goes no deeper by offset than a page does),
 * or the keys of a row in score order.
 */
export function questionPosition(query: OpportunityQuery): QuestionPosition | undefined {
  if (query.cursor === undefined) return undefined;
  const keys = readCursor(query.cursor, questionScope(query));
  if (keys.length === 1) return { at: checkKeys(keys, ["at"])[0] as number };
  return { after: checkKeys(keys, KEY_KINDS.score) };
}

/** The cursor of a question's list at a position, or after a row in score order. */
export function questionCursor(
  query: OpportunityQuery,
  position: { at: number } | { after: KeyedRow },
): string {
  if ("at" in position) return encodeCursor(questionScope(query), [position.at]);
  const { score, k_us, id } = position.after;
  return encodeCursor(questionScope(query), [score, k_us!, id]);
}

/** `and (score, created_at, id) < (the cursor's)`: the matches after a row in score order. */
export function afterScoreKeys(sql: Sql, keys: CursorKey[] | undefined): postgres.Fragment {
  if (!keys) return sql``;
  return sql`and (o.score, o.created_at, o.id) < (${keys[0]}::int,
    (timestamptz 'epoch' + ${keys[1]}::bigint * interval '1 microsecond'), ${keys[2]}::int)`;
}

/**
 * Checks `query.cursor` before anything is charged (throws InvalidCursorError): a cursor of the
 * keyset lists, or with q one of a question's list (src/catalog/questions/search.ts), whichever it
 * is. In relevance order the list with q is always a question's, so only its cursors continue it
 * (the keyset of relevance is the export's own).
 */
export function checkCursor(query: OpportunityQuery): void {
  if (query.cursor === undefined) return;
  if (searchText(query.q)) {
    try {
      questionPosition(query);
      return;
    } catch (error) {
      // Not a question's cursor: perhaps one of the keyset order (other_list); a damaged or
      // out-of-range one stays refused as such.
      if (!(error instanceof InvalidCursorError) || error.reason !== "other_list") throw error;
      if (sortOf(query) === "relevance") throw error;
    }
  }
  cursorKeys(query);
}
