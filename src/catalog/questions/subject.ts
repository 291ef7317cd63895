/**
 * What a question is about (docs/rest.md, "Reading a question"): `q` without its framing words
 * (framing.ts), and the category or theme it names, if any ("developer tools", "e-commerce",
 * "late invoice chasing"): a theme's or a category's name, its name with "and" for "&", or its
 * slug as words, found as a phrase of the question's stems. A theme is preferred to its
 * category, a longer name to a shorter one. The named phrase leaves the words to match; the
 * answer is then found within the category or theme (src/catalog/questions/search.ts).
 */
import type { Sql } from "../../db/open.ts";
import { searchText } from "../common.ts";
import { withoutFraming } from "./framing.ts";

/** A category or theme a question names. */
export interface Named {
  kind: "category" | "theme";
  slug: string;
  name: string;
  /** The themes it covers (a theme: itself). */
  themeIds: number[];
  /** The phrase of the question that names it, as written in the name. */
  phrase: string;
}

/** A question read: its subject words in `q` syntax (may be empty) and what it names. */
export interface Subject {
  /** `q` without framing words and without the named phrase; "" when nothing is left. */
  text: string;
  named?: Named;
  /** `q` without framing words, the named phrase kept (the reading when the name finds nothing). */
  unnamed: string;
}

/** Reads `q` (see the module comment); undefined when `q` has no text at all. */
export async function readSubject(
  sql: Sql,
  q: string | undefined,
  memo: <T>(key: string, compute: () => Promise<T>) => Promise<T>,
): Promise<Subject | undefined> {
  const text = searchText(q);
  if (!text) return undefined;
  const unnamed = withoutFraming(text);
  if (!unnamed) return { text: "", unnamed };
  const named = await memo(`named:${unnamed}`, () => findNamed(sql, unnamed));
  // Found by its stems; named only when the question holds the name's own words.
  const rest = named ? withoutPhrase(unnamed, named.phrase) : undefined;
  if (!named || rest === undefined) return { text: unnamed, unnamed };
  return { text: rest, named, unnamed };
}

/** The category or theme whose name is a phrase of `text` (see the module comment). */
async function findNamed(sql: Sql, text: string): Promise<Named | undefined> {
  const [row] = await sql<Named[]>`
    with v as (select to_tsvector('oi_search'::regconfig, ${text}) as v),
    names as (
      select 'theme' as kind, t.slug, t.name, array[t.id] as theme_ids, x.phrase
      from themes t
      cross join lateral unnest(array[t.name, replace(t.name, '&', 'and'),
        replace(t.slug, '-', ' ')]) as x(phrase)
      union all
      select 'category', c.slug, c.name,
        array(select t.id from themes t where t.category_id = c.id order by t.id), x.phrase
      from categories c
      cross join lateral unnest(array[c.name, replace(c.name, '&', 'and'),
        replace(c.slug, '-', ' ')]) as x(phrase)
    ),
    found as (
      select n.*, numnode(phraseto_tsquery('oi_search'::regconfig, n.phrase)) as size
      from names n cross join v
      where numnode(phraseto_tsquery('oi_search'::regconfig, n.phrase)) > 0
        and v.v @@ phraseto_tsquery('oi_search'::regconfig, n.phrase)
    )
    -- As JSON: an int[] comes back as its text when the connection has not loaded array types.
    select kind, slug, name, to_json(theme_ids) as "themeIds", phrase from found
    order by size desc, kind = 'theme' desc, slug limit 1`;
  return row;
}

/**
 * The same word, or its plural ("tools", "tool"; "categories", "category"). Not a shared stem:
 * "product" and "production" stem as "productivity" does, and name no category.
 */
function sameWord(a: string, b: string): boolean {
  if (a === b) return true;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return long === `${short}s` || long === `${short}es` ||
    (short.endsWith("y") && long === `${short.slice(0, -1)}ies`);
}

/** `text` without the first run of words that reads as `phrase`; undefined when none does. */
function withoutPhrase(text: string, phrase: string): string | undefined {
  const norm = (w: string) => w.toLowerCase().replace(/^[^\p{L}\p{N}&]+|[^\p{L}\p{N}&]+$/gu, "");
  const words = text.split(/\s+/);
  const wanted = phrase.split(/[\s-]+/).map(norm).filter(Boolean);
  const joined = (w: string) => norm(w).split("-").filter(Boolean);
  for (let i = 0; i < words.length; i++) {
    // Words of the text from i, hyphenated ones split, until the phrase's words are used up.
    let k = 0;
    let j = i;
    while (j < words.length && k < wanted.length) {
      const parts = joined(words[j]);
      if (parts.length === 0 || !parts.every((p, n) => sameWord(p, wanted[k + n] ?? ""))) break;
      k += parts.length;
      j++;
    }
    if (k === wanted.length) return [...words.slice(0, i), ...words.slice(j)].join(" ").trim();
  }
  return undefined;
}
