/**
 * The similarity scale shared by idea match and similar opportunities (docs/rest.md, "The
 * similarity scale"): how near a text (an idea, or an opportunity's title and description) is to
 * an opportunity, from 0 to 1.
 *
 * - Words: the text's significant lexemes (English stems of sql/0013_search_english.sql, not stop
 *   words, with a letter, two characters or more, not the whole of a hyphenated word, whose parts
 *   count). Opportunities are read through their `search` vector: title and description.
 * - Weight: a word's rarity in the catalogue, w = ln(1 + (N - d + 0.5) / (d + 0.5)), d its
 *   document frequency (search_terms) raised to N / 1000: every word rarer than one opportunity
 *   in a thousand weighs the same, so a word nothing holds is heavy without dwarfing the others,
 *   and the weights do not drift as the catalogue grows.
 * - cover: the share of the text's weight the opportunity holds (in its title or description);
 *   title: the share of the weight of the opportunity's title words the text holds.
 * - similarity = cover^(3/4) * sqrt((1 + title) / 2): the text's words carry it (a text held only
 *   in descriptions reaches 0.71), and 1.0 needs the text to say what the opportunity's title
 *   says: 1.0 means the same idea; below 0.5, the opportunity does not address the text.
 *
 * Candidates are bounded at any size (candidateIds): the rows holding all of the text's rarest
 * words, then all but the lightest of them, and so on, through the GIN index of the narrow
 * opportunity_search table; only they are scored.
 */
import type postgres from "postgres";
import type { Sql } from "../../db/open.ts";

/** Rarest held words whose conjunctions select the candidates. */
const SELECTING = 6;
/** Candidates wanted before the conjunctions stop widening. */
export const CANDIDATES = 200;
/** Candidates of words held by at most this many rows are their best-scored. */
const ORDERED_MAX = 2_000;
/**
 * A word held by more than this share of the opportunities selects nothing when the text has
 * a rarer one (as in search.ts: such words rank, but a conjunction of them is most of the
 * catalogue).
 */
const COMMON_SHARE = 0.2;

/** One significant word of a text. */
export interface Term {
  /** The lexeme (English stem). */
  term: string;
  /** The word as written, lowercased (an idea's first occurrence). */
  word: string;
  /** Opportunities holding it. */
  df: number;
  weight: number;
}

/** Opportunities in the catalogue (search_terms' row ''), at least 1. */
export function catalogueSize(sql: Sql): postgres.Fragment {
  return sql`(select greatest(coalesce((select docs from search_terms where term = ''), 0), 1)
    ::float8)`;
}

/** The weight of a word held by `docs` opportunities of `n` (see the module comment). */
export function weightOf(
  sql: Sql,
  docs: postgres.Fragment,
  n: postgres.Fragment,
): postgres.Fragment {
  return sql`ln(1 + (${n} - greatest(${docs}, ${n} / 1000) + 0.5)
    / (greatest(${docs}, ${n} / 1000) + 0.5))`;
}

/** Whether the lexeme `l` is a significant word (see the module comment). */
export function significant(sql: Sql, l: postgres.Fragment): postgres.Fragment {
  return sql`(${l} ~ '[[:alpha:]]' and length(${l}) >= 2 and strpos(${l}, '-') = 0
    and ts_lexize('english_stem', ${l}) is distinct from '{}'::text[])`;
}

/**
 * The common table expressions `n` (the catalogue's size, `docs`) and `terms` (each significant
 * lexeme of `text` once: `term`, the `word` as first written, lowercased, and its place `i`).
 */
export function termsOf(sql: Sql, text: string): postgres.Fragment {
  return sql`n as (select ${catalogueSize(sql)} as docs),
    words as (
      select d.lexemes[1] as term, lower(d.token) as word, d.i
      from ts_debug('oi_search'::regconfig, ${text}) with ordinality
        as d(alias, description, token, dictionaries, dictionary, lexemes, i)
      where cardinality(d.lexemes) > 0
    ),
    terms as (
      select term, min(i) as i, (array_agg(word order by i))[1] as word
      from words where ${significant(sql, sql`term`)} group by term
    )`;
}

/** The significant words of an idea's text, in the order they first appear. */
export async function textTerms(sql: Sql, text: string): Promise<Term[]> {
  return await sql<Term[]>`
    with ${termsOf(sql, text)}
    select t.term, t.word, coalesce(st.docs, 0)::int as df,
      ${weightOf(sql, sql`coalesce(st.docs, 0)`, sql`n.docs`)}::float8 as weight
    from terms t cross join n left join search_terms st on st.term = t.term
    order by t.i`;
}

/** The significant words of opportunity `id`'s title and description (none when absent). */
export async function opportunityTerms(sql: Sql, id: number): Promise<Term[]> {
  return await sql<Term[]>`
    with n as (select ${catalogueSize(sql)} as docs)
    select e.lexeme as term, e.lexeme as word, coalesce(st.docs, 0)::int as df,
      ${weightOf(sql, sql`coalesce(st.docs, 0)`, sql`n.docs`)}::float8 as weight
    from opportunity_search s cross join n cross join unnest(s.search) e
      left join search_terms st on st.term = e.lexeme
    where s.id = ${id} and ${significant(sql, sql`e.lexeme`)}
    order by e.lexeme`;
}

/**
 * The candidates for `terms` (`exclude`, the source opportunity, left out): the rows holding all
 * of the SELECTING rarest held words, then all but the lightest, ... down to two, until
 * CANDIDATES are found; when they are not (a small catalogue, or words seldom found together),
 * a share of the rows of each of those words alone, so that one rare but incidental word cannot
 * narrow them all. The best-scored rows when the words' rows are few enough to sort (ORDERED_MAX),
 * else the first found: sorting the 8,481 rows of a word scattered over 6,557 pages took 210 ms
 * (at 1,000,000 rows, cached), taking the first 200 reads at most 200 pages.
 */
export async function candidateIds(sql: Sql, terms: Term[], exclude = 0): Promise<number[]> {
  const [{ docs }] = await sql<{ docs: number }[]>`select ${catalogueSize(sql)} as docs`;
  // A word only the source holds selects nothing but the source.
  const held = terms.filter((t) => t.df > (exclude ? 1 : 0))
    .sort((a, b) => a.df - b.df || (a.term < b.term ? -1 : 1));
  const rare = held.filter((t) => t.df <= COMMON_SHARE * docs);
  const selecting = (rare.length > 0 ? rare : held).slice(0, SELECTING);
  const found = new Set<number>();
  // Only the search index may find them: a few rows of a word wanted without an order were
  // planned as a table scan expecting to meet them early, as if spread evenly, and when they sat
  // together at the table's end the scan read every row's search vector (2 s at a million rows,
  // a 503 under load; 0.5 ms through the index).
  await sql.begin(async (tx) => {
    await tx`set local enable_seqscan = off`;
    const take = async (words: Term[], limit: number) => {
      const query = words.map((t) => quoteLexeme(t.term)).join(" & ");
      // One statement per conjunction: joined in one, their estimated cost passes the planner's
      // JIT threshold, and compiling took half a second.
      const rows = await tx<{ id: number }[]>`
        select id from opportunity_search
        where search @@ ${query}::tsquery and id <> ${exclude}
        ${words[0].df <= ORDERED_MAX ? tx`order by score desc, id desc` : tx``}
        limit ${limit}`;
      for (const row of rows) if (found.size < CANDIDATES) found.add(row.id);
    };
    for (let k = selecting.length; k > 1 && found.size < CANDIDATES; k--) {
      await take(selecting.slice(0, k), CANDIDATES);
    }
    const each = Math.ceil((CANDIDATES - found.size) / selecting.length);
    for (const term of found.size < CANDIDATES ? selecting : []) await take([term], each);
  });
  return [...found];
}

/** A lexeme as a tsquery operand: quoted, its quotes and backslashes escaped. */
export function quoteLexeme(term: string): string {
  return `'${term.replaceAll("\\", "\\\\").replaceAll("'", "''")}'`;
}

/** A candidate's place on the scale. */
export interface Nearness {
  id: number;
  similarity: number;
}

/**
 * The similarity of each of the rows `ids` to the text of `terms`, nearest first (ties: score,
 * then id), the `limit` nearest with a similarity above 0.
 */
export async function scoreCandidates(
  sql: Sql,
  terms: Term[],
  ids: number[],
  limit: number,
): Promise<Nearness[]> {
  if (ids.length === 0 || terms.length === 0) return [];
  const weights = JSON.stringify(terms.map((t) => [t.term, t.weight, quoteLexeme(t.term)]));
  return await sql<Nearness[]>`
    with n as (select ${catalogueSize(sql)} as docs),
    t as (
      select x->>0 as term, (x->>2)::tsquery as q, (x->>1)::float8 as w
      from jsonb_array_elements(${weights}::text::jsonb) as x
    ),
    total as (select sum(w) as w from t),
    c as materialized (
      select s.id, s.score, s.search from opportunity_search s
      where s.id in (select jsonb_array_elements_text(${JSON.stringify(ids)}::text::jsonb)::int)
    ),
    -- The text's words each candidate holds (a lookup in its sorted vector), and the words of
    -- its title alone (ts_filter keeps the weight A lexemes), each weighed once.
    covers as (
      select c.id, sum(t.w) as held from c join t on c.search @@ t.q group by c.id
    ),
    title_words as (
      select c.id, e.lexeme, exists(select 1 from t where t.term = e.lexeme) as held
      from c cross join unnest(tsvector_to_array(ts_filter(c.search, '{a}'))) as e(lexeme)
      where ${significant(sql, sql`e.lexeme`)}
    ),
    title_weights as (
      select l.lexeme, ${weightOf(sql, sql`coalesce(st.docs, 0)`, sql`n.docs`)} as w
      from (select distinct lexeme from title_words) l cross join n
      left join search_terms st on st.term = l.lexeme
    ),
    title_share as (
      select y.id, coalesce(sum(tw.w) filter (where y.held), 0) / nullif(sum(tw.w), 0) as title
      from title_words y join title_weights tw on tw.lexeme = y.lexeme group by y.id
    ),
    parts as (
      select c.id, c.score, coalesce(v.held, 0) / total.w as cover, ts.title
      from c cross join total left join covers v on v.id = c.id
      left join title_share ts on ts.id = c.id
    ),
    scored as (
      select id, score,
        round((power(cover, 0.75) * sqrt((1 + coalesce(title, 1)) / 2))::numeric, 3)::float8
          as similarity
      from parts where cover > 0
    )
    select id, similarity from scored
    order by similarity desc, score desc, id desc
    limit ${limit}`;
}
