/**
 * The public catalogue's question box (`/opportunities?q=`, no key): a search over public fields
 * only, the title (docs/DECISIONS.md, the public line). The API's search (search.ts) reads the
 * paid description too, so a keyless visitor could learn a description's words one query at a
 * time; this one reads `opportunity_search.title_search` (sql/0023_public_search.sql), never the
 * description, for its matches, its exclusions and its order alike. Web-search syntax as the API
 * reads it (stems, prefixes, stop words, quotes, `-word`, `or`); when no title holds every word,
 * the titles holding any of them, the best first (`match: "any"`).
 */
import type postgres from "postgres";
import type { Sql } from "../../db/open.ts";
import { searchText } from "../common.ts";
import { listColumns, type ListRow, toListItem } from "../lists/list_items.ts";
import { listFilter, type ListQuery } from "../lists/opportunities.ts";
import type { OpportunityList } from "../schemas.ts";

/** What a page of the catalogue shows (the public search has no cursor: its pages are numbered). */
export type PublicList =
  & Pick<OpportunityList, "items" | "total" | "match">
  & Partial<Pick<OpportunityList, "next_cursor">>;

/** The words of `text` as written: quoted phrases whole, `or` left out. */
function wordsOf(text: string): { include: string[]; exclude: string[] } {
  const tokens = (text.match(/"[^"]*"?|\S+/g) ?? []).filter((t) => t.toLowerCase() !== "or");
  return {
    include: tokens.filter((t) => !t.startsWith("-")),
    exclude: tokens.filter((t) => t.startsWith("-") && t.length > 1).map((t) => t.slice(1)),
  };
}

/** The title match of every word (the query of q), or of any of them (best match). */
function titleMatch(sql: Sql, text: string, mode: "all" | "any"): postgres.Fragment {
  if (mode === "all") return sql`oi_search_query(${text})`;
  const { include } = wordsOf(text);
  // One scalar subquery, evaluated once: the OR of each included word's terms.
  return sql`(
    select string_agg('(' || t::text || ')', ' | ')::tsquery
    from jsonb_array_elements_text(${JSON.stringify(include)}::text::jsonb) as w(word),
      oi_search_terms(w.word) as t
    where numnode(t) > 0)`;
}

function matchFilter(sql: Sql, text: string, mode: "all" | "any"): postgres.Fragment {
  const { exclude } = wordsOf(text);
  // In "all" mode the query holds the exclusions; the best match checks them apart.
  const excluded = mode === "any" && exclude.length > 0
    ? sql`and not exists (
        select 1 from jsonb_array_elements_text(${JSON.stringify(exclude)}::text::jsonb) as x(word)
        where s.title_search @@ oi_search_query(x.word))`
    : sql``;
  return sql`and s.title_search @@ ${titleMatch(sql, text, mode)} ${excluded}`;
}

async function countOf(sql: Sql, query: ListQuery, match: postgres.Fragment): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n
    from opportunities o join opportunity_search s on s.id = o.id
    ${listFilter(sql, { ...query, q: undefined }, match)}`;
  return row.n;
}

/**
 * A page of the public search for `query` (its `q` set): the titles matching q, the best match
 * first (then score, newest, id), with the exact total.
 */
export async function searchPublicCatalogue(
  sql: Sql,
  query: ListQuery,
  base: string,
): Promise<PublicList> {
  const text = searchText(query.q);
  if (!text) throw new Error("searchPublicCatalogue needs a q");
  let mode: "all" | "any" = "all";
  let total = await countOf(sql, query, matchFilter(sql, text, "all"));
  if (total === 0 && wordsOf(text).include.length > 1) {
    const any = await countOf(sql, query, matchFilter(sql, text, "any"));
    if (any > 0) [mode, total] = ["any", any];
  }
  if (total === 0) return { items: [], total, match: "all" };
  const rows = await sql<ListRow[]>`
    select ${listColumns(sql)}
    from opportunities o join opportunity_search s on s.id = o.id
    ${listFilter(sql, { ...query, q: undefined }, matchFilter(sql, text, mode))}
    order by ts_rank(s.title_search, ${titleMatch(sql, text, mode)}) desc,
      o.score desc, o.created_at desc, o.id desc
    limit ${query.page_size} offset ${(query.page - 1) * query.page_size}`;
  return { items: rows.map((row) => toListItem(row, base)), total, match: mode };
}
