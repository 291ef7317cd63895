/**
 * Similar opportunities and idea match: the same ranked search as `q`, over the
 * significant words of an opportunity (its title, description, key features, audience and theme
 * name) or of an idea's text.
 *
 * - Terms: the text's lexemes (sql/0013_search_english.sql: English stems) that are not stop
 *   words and that other opportunities hold (search_terms), the TERMS rarest: rare words say
 *   what a text is about, common ones ("app", "help") only add noise and cost.
 * - Candidates: for each term, the CANDIDATES best-scored rows holding it (the GIN index finds
 *   them; rare terms have few), and for an opportunity the rows of its theme.
 * - Similarity: the idf-weighted share of the terms a candidate holds (in its title and
 *   description, key features or audience), the theme counting as one more term of average
 *   weight for an opportunity: 0 shares nothing, 1 everything.
 */
import type postgres from "postgres";
import type { Sql } from "../db/open.ts";
import { NotFoundError } from "../platform/errors.ts";
import type { QueryContext } from "./common.ts";
import { isRowId } from "../db/rows.ts";
import { listColumns, type ListRow, toListItem } from "./opportunities.ts";
import type { IdeaMatch, IdeaQuery, SimilarList, SimilarQuery } from "./similar_schemas.ts";
import { type ThemeRow, themeSelect, toTheme } from "./themes.ts";

/** Significant terms taken from a text. */
export const TERMS = 12;
/** Candidates per term. */
const CANDIDATES = 200;
/** Similar opportunities answered at most. */
export const SIMILAR_MAX = 100;

type Scored = ListRow & { similarity: number; competitors: string[]; theme_id: number };

/**
 * The nearest opportunities to the text `vector` (a tsvector fragment), as scored rows, best
 * first; `source` (an opportunity id) is left out and its theme counts as a term.
 */
async function nearest(
  sql: Sql,
  vector: postgres.Fragment,
  options: { source?: number; minDocs: number; limit: number },
): Promise<{ terms: string[]; rows: Scored[] }> {
  const source = options.source ?? 0;
  const rows = await sql<(Scored & { terms: string[] })[]>`
    with n as (select coalesce((select docs from search_terms where term = ''), 0) as docs),
    src as (select ${vector} as v, (select theme_id from opportunities where id = ${source}) as theme),
    terms as materialized (
      select st.term, quote_literal(st.term)::tsquery as q,
        ln(1 + (n.docs - st.docs + 0.5) / (st.docs + 0.5))::float8 as idf
      from src, n, unnest(tsvector_to_array(src.v)) as l(term)
      join search_terms st on st.term = l.term
      where st.term <> '' and st.docs >= ${options.minDocs}
        and ts_lexize('english_stem', st.term) is distinct from '{}'::text[]
      order by st.docs, st.term limit ${TERMS}
    ),
    weights as (
      select coalesce(sum(idf), 0) as total, coalesce(avg(idf), 0) as theme from terms
    ),
    cand as (
      select c.id from terms t cross join lateral (
        select o.id from opportunities o where o.search @@ t.q and o.id <> ${source}
        order by o.score desc, o.id desc limit ${CANDIDATES}) c
      union
      select c.id from src cross join lateral (
        select o.id from opportunities o where o.theme_id = src.theme and o.id <> ${source}
        order by o.score desc, o.id desc limit ${CANDIDATES}) c
    ),
    -- Each candidate's words once: its stored vector, key features and audience.
    vectors as materialized (
      select o.id, o.theme_id, o.search || to_tsvector('oi_search'::regconfig,
        array_to_string(o.key_features, ' ') || ' ' || o.target_audience) as v
      from cand join opportunities o on o.id = cand.id
    ),
    scored as (
      select x.id,
        ((select coalesce(sum(t.idf), 0) from terms t where x.v @@ t.q)
          + case when x.theme_id = src.theme then w.theme else 0 end)
        / nullif(w.total + case when src.theme is null then 0 else w.theme end, 0)
          as similarity
      from vectors x, src, weights w
    )
    select ${listColumns(sql)}, o.competitors, o.theme_id,
      round(s.similarity::numeric, 3)::float8 as similarity,
      array(select term from terms order by idf desc, term) as terms
    from scored s join opportunities o on o.id = s.id
    where s.similarity > 0
    order by s.similarity desc, o.score desc, o.id desc
    limit ${options.limit}`;
  const terms = rows[0]?.terms ?? [];
  return { terms, rows: rows.map(({ terms: _, ...row }) => row) };
}

/** The opportunities nearest to opportunity `id` (404 when there is none), paged. */
export async function findSimilar(
  sql: Sql,
  query: SimilarQuery,
  ctx: QueryContext,
): Promise<SimilarList> {
  const { id } = query;
  if (!isRowId(id)) throw new NotFoundError(`Cannot find opportunity ${id}`);
  const [found] = await sql<{ id: number }[]>`select id from opportunities where id = ${id}`;
  if (!found) throw new NotFoundError(`Cannot find opportunity ${id}`);
  const vector = sql`(
    select to_tsvector('oi_search'::regconfig, o.title || ' ' || o.description || ' ' ||
      array_to_string(o.key_features, ' ') || ' ' || o.target_audience || ' ' || t.name)
    from opportunities o join themes t on t.id = o.theme_id where o.id = ${id})`;
  const { rows } = await nearest(sql, vector, { source: id, minDocs: 2, limit: SIMILAR_MAX });
  const start = (query.page - 1) * query.page_size;
  return {
    items: rows.slice(start, start + query.page_size).map((row) => ({
      ...toListItem(row, ctx.publicBaseUrl),
      similarity: row.similarity,
    })),
    total: rows.length,
    page: query.page,
    page_size: query.page_size,
  };
}

/** The themes and opportunities nearest to an idea described in `text`. */
export async function matchIdea(
  sql: Sql,
  query: IdeaQuery,
  ctx: QueryContext,
): Promise<IdeaMatch> {
  const vector = sql`to_tsvector('oi_search'::regconfig, ${query.text})`;
  const { terms, rows } = await nearest(sql, vector, { minDocs: 1, limit: SIMILAR_MAX });
  // A theme is as near as its nearest opportunity (ties: more of its opportunities near).
  const byTheme = new Map<number, { similarity: number; count: number }>();
  for (const row of rows) {
    const seen = byTheme.get(row.theme_id);
    if (seen) seen.count++;
    else byTheme.set(row.theme_id, { similarity: row.similarity, count: 1 });
  }
  const themeIds = [...byTheme.entries()]
    .sort(([a, x], [b, y]) => y.similarity - x.similarity || y.count - x.count || a - b)
    .slice(0, query.limit).map(([id]) => id);
  const themeRows = themeIds.length === 0 ? [] : await sql<ThemeRow[]>`
    ${themeSelect(sql)} where t.id in (select jsonb_array_elements_text(${
    JSON.stringify(themeIds)
  }::text::jsonb)::int)`;
  const themes = new Map(themeRows.map((row) => [row.id, row]));
  return {
    terms,
    themes: themeIds.filter((id) => themes.has(id)).map((id) => ({
      ...toTheme(themes.get(id)!),
      similarity: byTheme.get(id)!.similarity,
    })),
    opportunities: rows.slice(0, query.limit).map((row) => ({
      ...toListItem(row, ctx.publicBaseUrl),
      competitors: row.competitors,
      similarity: row.similarity,
    })),
  };
}
