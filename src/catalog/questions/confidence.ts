/**
 * How well an answer to a question addresses it, on the similarity scale of similarity.ts
 * (docs/rest.md, "The similarity scale"):
 *
 * - The question's words: the significant words of its subject (subject.ts: framing words out),
 *   weighed as similarity.ts weighs an idea's, except that a word of three letters or more
 *   counts the opportunities holding any word it starts, as `q` matches it ("invoi").
 * - A named category or theme is one word of the question, the weight of its name's words, that
 *   its opportunities hold in their titles.
 * - An item's relevance: cover^(3/4) * sqrt((1 + title) / 2), cover the share of the question's
 *   weight the item holds, title the share it holds in its title. 1.0: the question's every word
 *   is in the title; held only in descriptions, at most 0.71.
 * - The answer's confidence: its best item's relevance (0 when it has none); below 0.5 the
 *   answer does not address the question.
 * - unmatched_terms: the question's significant words that no opportunity holds.
 */
import type { Sql } from "../../db/open.ts";
import { quoteLexeme, termsOf, weightOf } from "./similarity.ts";

/** One significant word of a question. */
export interface QuestionTerm {
  term: string;
  /** As written, lowercased. */
  word: string;
  df: number;
  weight: number;
}

/** The significant words of `text` (a question's subject), in order, with their weights. */
export async function questionTerms(sql: Sql, text: string): Promise<QuestionTerm[]> {
  if (!text.trim()) return [];
  return await sql<QuestionTerm[]>`
    with ${termsOf(sql, text)},
    counted as (
      select t.term, t.word, t.i, least(n.docs, (
        select coalesce(sum(st.docs), 0) from search_terms st
        where st.term >= t.term and st.term <= t.term || case when length(t.term) >= 3
          then chr(1114111) else '' end and st.term <> ''))::int as df
      from terms t cross join n
    )
    select c.term, c.word, c.df,
      ${weightOf(sql, sql`c.df`, sql`n.docs`)}::float8 as weight
    from counted c cross join n order by c.i`;
}

/** The question's words nothing in the catalogue holds, as written. */
export function unmatchedTerms(terms: QuestionTerm[]): string[] {
  return terms.filter((t) => t.df === 0).map((t) => t.word);
}

/** A named category or theme as a word of the question. */
export interface NamedTerm {
  themeIds: number[];
  weight: number;
}

/**
 * The tsquery text of a question's word as `q` matches it: a word of three letters or more as a
 * prefix; with `weight`, in that part of the vector only ("A": the title).
 */
export function termQuery(term: QuestionTerm, weight = ""): string {
  const star = term.term.length >= 3 ? "*" : "";
  return star || weight ? `${quoteLexeme(term.term)}:${star}${weight}` : quoteLexeme(term.term);
}

/**
 * The relevance of each of the rows `ids` to the question of `terms` (and `named`), from 0 to 1
 * (see the module comment); rows that hold nothing score 0.
 */
export async function relevances(
  sql: Sql,
  ids: number[],
  terms: QuestionTerm[],
  named?: NamedTerm,
): Promise<Map<number, number>> {
  const total = terms.reduce((sum, t) => sum + t.weight, 0) + (named?.weight ?? 0);
  if (ids.length === 0 || total <= 0) return new Map();
  const queries = terms.map((t) => [termQuery(t), termQuery(t, "A"), t.weight]);
  const rows = await sql<{ id: number; cover: number; title: number }[]>`
    with t as (
      select (x->>0)::tsquery as q, (x->>1)::tsquery as qa, (x->>2)::float8 as w
      from jsonb_array_elements(${JSON.stringify(queries)}::text::jsonb) as x
    ),
    o as (
      select s.id, s.search, s.theme_id in (select jsonb_array_elements_text(${
    JSON.stringify(named?.themeIds ?? [])
  }::text::jsonb)::int) as named
      from opportunity_search s
      where s.id in (select jsonb_array_elements_text(${JSON.stringify(ids)}::text::jsonb)::int)
    )
    select o.id,
      (coalesce((select sum(t.w) from t where o.search @@ t.q), 0)
        + case when o.named then ${named?.weight ?? 0}::float8 else 0 end)::float8 as cover,
      (coalesce((select sum(t.w) from t where o.search @@ t.qa), 0)
        + case when o.named then ${named?.weight ?? 0}::float8 else 0 end)::float8 as title
    from o`;
  return new Map(rows.map((r) => [r.id, scale(r.cover / total, r.title / total)]));
}

/** The similarity scale: cover^(3/4) * sqrt((1 + title) / 2), to 3 decimals. */
export function scale(cover: number, title: number): number {
  const value = Math.pow(Math.min(1, cover), 0.75) * Math.sqrt((1 + Math.min(1, title)) / 2);
  return Math.round(value * 1000) / 1000;
}
