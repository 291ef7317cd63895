/**
 * What to ask instead when an answer does not address its question (confidence below 0.5): the
 * themes and categories nearest the question, each with how to ask for it. A theme is near by
 * the share of the question's weight its name, summary and category hold, plus the best
 * relevance of its opportunities in the answer; a category by its own words and its themes.
 * When nothing is near, every category, largest first: the agent's model can pick by meaning.
 */
import type { Sql } from "../../db/open.ts";
import { type QuestionTerm, termQuery } from "./confidence.ts";
import type { Suggestion } from "../schemas.ts";
import { categoryUrl, themeUrl } from "../lists/list_items.ts";

/** Themes and categories suggested at most (everything when nothing is near: the categories). */
const THEMES = 3;
const CATEGORIES = 2;

type SuggestionRow = Omit<Suggestion, "url">;

/** A suggestion with the url of its public page; `base` is the public base URL. */
function withUrl(row: SuggestionRow, base: string): Suggestion {
  const url = row.kind === "theme" ? themeUrl(base, row.slug) : categoryUrl(base, row.slug);
  return { ...row, url };
}

/**
 * The suggestions for a question of `terms` whose answer's best rows are `best`; `base` is the
 * public base URL.
 */
export async function suggestionsFor(
  sql: Sql,
  terms: QuestionTerm[],
  { best, base }: { best: { id: number; relevance: number }[]; base: string },
): Promise<Suggestion[]> {
  const total = terms.reduce((sum, t) => sum + t.weight, 0) || 1;
  const queries = terms.map((t) => [termQuery(t), t.weight / total]);
  const rows = await sql<(SuggestionRow & { near: number })[]>`
    with t as (
      select (x->>0)::tsquery as q, (x->>1)::float8 as w
      from jsonb_array_elements(${JSON.stringify(queries)}::text::jsonb) as x
    ),
    b as (
      select s.theme_id, max((x->>1)::float8) as rel
      from jsonb_array_elements(${
    JSON.stringify(best.map((r) => [r.id, r.relevance]))
  }::text::jsonb) as x
      join opportunity_search s on s.id = (x->>0)::int group by s.theme_id
    ),
    themed as (
      select th.slug, th.name, th.summary, c.slug as category,
        coalesce((select sum(t.w) from t where to_tsvector('oi_search'::regconfig,
          th.name || ' ' || th.summary || ' ' || c.name || ' ' || c.description) @@ t.q), 0)
          + coalesce(b.rel, 0) as near
      from themes th join categories c on c.id = th.category_id
      left join b on b.theme_id = th.id
    ),
    top_themes as (
      select 'theme' as kind, slug, name, summary, jsonb_build_object('theme', slug) as ask, near
      from themed where near > 0 order by near desc, slug limit ${THEMES}
    ),
    cats as (
      select c.slug, c.name, c.description as summary,
        coalesce((select sum(t.w) from t where to_tsvector('oi_search'::regconfig,
          c.name || ' ' || c.description) @@ t.q), 0)
          + coalesce((select max(near) from themed where themed.category = c.slug), 0) as near,
        (select count(*) from themes x where x.category_id = c.id) as size
      from categories c
    ),
    top_cats as (
      select 'category' as kind, slug, name, summary, jsonb_build_object('category', slug) as ask,
        near
      from cats where near > 0 order by near desc, slug limit ${CATEGORIES}
    ),
    every_cat as (
      select 'category' as kind, slug, name, summary, jsonb_build_object('category', slug) as ask,
        0::float8 as near
      from cats where not exists (select 1 from top_cats) order by size desc, slug
    )
    select * from top_themes union all select * from top_cats union all select * from every_cat`;
  return rows.map(({ near: _near, ...s }) => withUrl(s, base));
}

/**
 * The suggestions for a question read by meaning (src/catalog/meaning/reading.ts): its nearest
 * themes and categories, by the subject's sentence vector, never by a framing word.
 */
export async function suggestionsByMeaning(
  sql: Sql,
  meaning: { themes: [number, number][]; categories: [number, number][] },
  base: string,
): Promise<Suggestion[]> {
  const themes = meaning.themes.slice(0, THEMES).map(([id]) => id);
  const categories = meaning.categories.slice(0, CATEGORIES).map(([id]) => id);
  const rows = await sql<(SuggestionRow & { n: number })[]>`
    select 'theme' as kind, t.slug, t.name, t.summary, jsonb_build_object('theme', t.slug) as ask,
      x.n
    from jsonb_array_elements_text(${JSON.stringify(themes)}::text::jsonb) with ordinality
      as x(id, n)
    join themes t on t.id = x.id::int
    union all
    select 'category', c.slug, c.name, c.description, jsonb_build_object('category', c.slug),
      100 + x.n
    from jsonb_array_elements_text(${JSON.stringify(categories)}::text::jsonb) with ordinality
      as x(id, n)
    join categories c on c.id = x.id::int
    order by n`;
  return rows.map(({ n: _n, ...s }) => withUrl(s, base));
}
