/**
 * A `q` as units and their rarity (src/catalog/questions/search.ts reads a question with them; blog
 * searches split theirs the same way): each plain word, "quoted phrase" or `a OR b` group is one
 * unit, `-word` and `-"phrase"` exclusions; a unit's rarity is a BM25 idf from the document
 * frequencies of search_terms.
 */
import type { Sql } from "../../db/open.ts";
import { searchText } from "../common.ts";

/** Units and exclusions of a `q`, as texts of web-search syntax. */
export interface SearchUnits {
  units: string[];
  exclusions: string[];
}

/** Splits `q` into units and exclusions (see the module comment). */
export function searchUnits(q: string | undefined): SearchUnits {
  const text = searchText(q) ?? "";
  const tokens: { text: string; negated: boolean }[] = [];
  let i = 0;
  while (i < text.length) {
    if (/\s/.test(text[i])) {
      i++;
      continue;
    }
    const negated = text[i] === "-";
    // A lone dash excludes the word after it, as websearch_to_tsquery reads it.
    if (negated) { while (++i < text.length && /\s/.test(text[i])); }
    if (text[i] === '"') {
      const end = text.indexOf('"', i + 1);
      const stop = end < 0 ? text.length : end;
      tokens.push({ text: `"${text.slice(i + 1, stop)}"`, negated });
      i = stop + 1;
      continue;
    }
    let j = i;
    while (j < text.length && !/\s/.test(text[j]) && text[j] !== '"') j++;
    if (j > i) tokens.push({ text: text.slice(i, j), negated });
    i = j;
  }
  const units: string[][] = [];
  const exclusions: string[] = [];
  let joinNext = false;
  for (const token of tokens) {
    if (token.negated) {
      exclusions.push(`-${token.text}`);
      joinNext = false;
    } else if (token.text.toLowerCase() === "or") {
      joinNext = units.length > 0;
    } else if (joinNext) {
      units[units.length - 1].push(token.text);
      joinNext = false;
    } else {
      units.push([token.text]);
    }
  }
  return { units: units.map((u) => u.join(" OR ")), exclusions };
}

/** A unit as a tsquery (text) and its rarity. */
export interface RankedUnit {
  q: string;
  /** `q` matched in the title only. */
  title: string;
  idf: number;
  /** Documents holding it (at most). */
  df: number;
  /** Documents in all. */
  docs: number;
}

/**
 * The significant units of `texts` with their rarity (idf), rarest first: each becomes its query
 * (oi_search_terms: stems, prefixes, no stop words); a unit with no significant word is dropped.
 * A prefix counts the documents of every lexeme it starts (capped at all of them); a phrase or
 * an OR group counts as its rarest lexeme.
 */
export async function rankUnits(sql: Sql, texts: string[]): Promise<RankedUnit[]> {
  if (texts.length === 0) return [];
  return await sql<RankedUnit[]>`
    with n as (select coalesce((select docs from search_terms where term = ''), 0) as docs),
    u as (
      select x.i, oi_search_terms(x.t) as q
      from jsonb_array_elements_text(${
    JSON.stringify(texts)
  }::text::jsonb) with ordinality as x(t, i)
    )
    select u.q::text as q, least(d.df, n.docs)::float8 as df, n.docs::float8 as docs,
      -- The same query on title words only (weight A): 'invoic':* -> 'invoic':*A.
      regexp_replace(u.q::text, '''((?:[^'']|'''')+)''(?::(\\*))?', '''\\1'':\\2A', 'g')
        as title,
      ln(1 + (n.docs - least(d.df, n.docs) + 0.5) / (least(d.df, n.docs) + 0.5))::float8 as idf
    from u cross join n
    cross join lateral (
      select coalesce(min(l.df), 0) as df from (
        select (
          select coalesce(sum(st.docs), 0) from search_terms st
          where st.term >= replace(m[1], '''''', '''')
            and st.term <= replace(m[1], '''''', '''') || case when m[2] is null then ''
              else chr(1114111) end
        ) as df
        from regexp_matches(u.q::text, '''((?:[^'']|'''')+)''(:\\*)?', 'g') as m
      ) l
    ) d
    where numnode(u.q) > 0
    order by idf desc, u.i`;
}
