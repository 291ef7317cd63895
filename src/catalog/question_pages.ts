/**
 * The pages of a question's list (src/catalog/search.ts): its ranked candidates, then the rest of
 * its matches in score order. A page is found by its number, or by a cursor
 * (src/catalog/opportunity_cursor.ts): a position among the candidates, or the keys of the last
 * row read of the rest, so that a walk by cursor costs the same at any depth.
 */
import type { CursorKey } from "./cursor.ts";
import type { ListRow } from "./opportunities.ts";
import { questionCursor, questionPosition } from "./opportunity_cursor.ts";
import type { OpportunityQuery } from "./schemas.ts";

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
