/**
 * The pages of a question's list (src/catalog/questions/search.ts): its ranked candidates, then the
 * rest of its matches in score order. A page is found by its number, or by a cursor
 * (src/catalog/lists/opportunity_cursor.ts): a position among the candidates, or the keys of the
 * last row read of the rest, so that a walk by cursor costs the same at any depth.
 */
import type postgres from "postgres";
import type { Sql } from "../../db/open.ts";
import type { CursorKey } from "../cursor.ts";
import {
  findPage,
  listColumns,
  listFilter,
  type ListRow,
  pagePlan,
} from "../lists/opportunities.ts";
import { afterScoreKeys, questionCursor, questionPosition } from "../lists/opportunity_cursor.ts";
import type { OpportunityQuery } from "../schemas.ts";
import { isSubScoreSort, subScoreValue } from "../lists/sub_scores.ts";

/**
 * A page of a question's list: its ranked candidates, then the rest of the matches, which
 * `rest(offset, limit, after)` reads in score order (from an offset into them, or after a row's
 * sort keys). A page is found by its number, or by a cursor: a position among the candidates, or
 * the keys of the last row read of the rest, so that a walk by cursor costs the same at any depth.
 */
export async function withRest(
  query: OpportunityQuery,
  ranked: ListRow[],
  total: number,
  rest: (offset: number, limit: number, after?: CursorKey[]) => Promise<ListRow[]>,
): Promise<{ rows: ListRow[]; next_cursor: string | null }> {
  const size = query.page_size;
  const position = questionPosition(query);
  if (position && "after" in position) {
    const rows = await rest(0, size + 1, position.after);
    return { rows: rows.slice(0, size), next_cursor: restCursor(query, rows, size) };
  }
  const start = position ? position.at : (query.page - 1) * size;
  const head = ranked.slice(start, start + size);
  const more = ranked.length < total;
  if (head.length === size) {
    const next = start + size < ranked.length || more
      ? questionCursor(query, { at: start + size })
      : null;
    return { rows: head, next_cursor: next };
  }
  if (!more) return { rows: head, next_cursor: null };
  const tail = await rest(Math.max(0, start - ranked.length), size - head.length + 1);
  return {
    rows: [...head, ...tail].slice(0, size),
    next_cursor: restCursor(query, tail, size - head.length),
  };
}

/**
 * The cursor after the last of `taken` rows of the rest read for a page (one more was read when
 * the list goes on); null when it does not.
 */
function restCursor(query: OpportunityQuery, read: ListRow[], taken: number): string | null {
  if (read.length <= taken) return null;
  return questionCursor(query, { after: read[taken - 1] as KeyedListRow });
}

type KeyedListRow = ListRow & { k_us: string };

/** A page of the list in its own order (score or newest) with the keyword match of q. */
export async function pageRows(
  sql: Sql,
  query: OpportunityQuery,
  total: number,
  force: boolean,
  match?: (sql: Sql) => postgres.Fragment,
): Promise<ListRow[]> {
  if ((query.page - 1) * query.page_size >= total) return [];
  const plan = pagePlan(query, total);
  return await findPage(sql, query, force ? plan : "planner", force, match);
}

/**
 * Rows of the list in score order at an offset, past the ranked candidates (an `all` answer's
 * candidates are its first CANDIDATES rows in that order: its caller adds them to the offset).
 */
export async function rowsAt(
  sql: Sql,
  query: OpportunityQuery,
  match: ((sql: Sql) => postgres.Fragment) | undefined,
  offset: number,
  limit: number,
  after?: CursorKey[],
): Promise<ListRow[]> {
  const plain = { ...query, cursor: undefined };
  return await sql<ListRow[]>`
    select ${listColumns(sql)},
      (extract(epoch from o.created_at) * 1000000)::bigint::text as k_us
    from opportunities o ${listFilter(sql, plain, match?.(sql))} ${afterScoreKeys(sql, after)}
    order by o.score desc, o.created_at desc, o.id desc
    limit ${limit} offset ${after ? 0 : offset}`;
}

function time(value: Date | string): number {
  return (value instanceof Date ? value : new Date(value)).getTime();
}

/**
 * The list order after hits and relevance: score, newest, id (or newest, id; or a sub-score
 * first, src/catalog/lists/sub_scores.ts).
 */
export function compareRows(sort: string, a: ListRow, b: ListRow): number {
  if (isSubScoreSort(sort) && subScoreValue(a, sort) !== subScoreValue(b, sort)) {
    return subScoreValue(b, sort) - subScoreValue(a, sort);
  }
  if (sort !== "newest" && a.score !== b.score) return b.score - a.score;
  return time(b.created_at) - time(a.created_at) || b.id - a.id;
}
