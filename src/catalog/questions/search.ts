/**
 * src/catalog/questions/: a list with `q`, read as a question. This file answers it, with best
 * match and relevance on top of the keyword match of lists/opportunities.ts (stems, stop words,
 * prefixes: sql/0013_search_english.sql); framing.ts and subject.ts read `q` (its filters, and the
 * category or theme it names), judge.ts with confidence.ts and suggestions.ts say how well the
 * answer addresses it, question_pages.ts pages it. What it means is read in ../meaning/.
 * - Units: `q` split as an agent writes it: each plain word, "quoted phrase" or `a OR b` group is
 *   one unit; `-word` and `-"phrase"` are exclusions. A unit of stop words only counts for
 *   nothing.
 * - Best match: the rows matching the whole `q` (match `all`); when there are none, the rows
 *   matching any unit and no exclusion (match `any`), those matching the most units first.
 * - Relevance: the sum over the units a row matches of the unit's rarity (a BM25 idf, from the
 *   document frequencies of search_terms) times its cover density in the row (ts_rank_cd, the
 *   title weighing 1 and the description 0.4).
 * - Scale: relevance ranks candidates, never every match: the first CANDIDATES matches in score
 *   order (per unit, rarest first, in best match). Past them, the list continues in score
 *   order. Below CANDIDATES matches (the demo data) the whole answer is in relevance order.
 */
import type postgres from "postgres";
import type { Sql } from "../../db/open.ts";
import { type QueryContext, searchText } from "../common.ts";
import { countOpportunities, findPage, type ListRow, pagePlan } from "../lists/opportunities.ts";
import type { MatchKind, OpportunityQuery, ReadAs } from "../schemas.ts";
import { nextCursor, sortOf } from "../lists/opportunity_cursor.ts";
import { compareRows, pageRows, rowsAt, withRest } from "./question_pages.ts";
import { type Named, readSubject } from "./subject.ts";
import { judgeAnswer, type Judged } from "./judge.ts";
import {
  liftedRows,
  meantRows,
  type ReadingOptions,
  themeBoosts,
  type ThemeLift,
  themeLift,
} from "../meaning/expansion.ts";
import { type RankedUnit, rankUnits, searchUnits } from "./search_units.ts";
import { type Framing, readFraming } from "./framing.ts";
import { type Meaning, MEANING_SHARE, meaningLift } from "../meaning/reading.ts";

/**
 * The share of a question's words' weight (title words in full, description words at 0.4) that
 * its best row must hold for its answer to be left to its words alone (the meant rows of
 * src/catalog/meaning/ join it otherwise).
 */
const WORDS_ANSWER = 0.8;

/** How many matches are ranked by relevance, at most (per unit in best match). */
export const CANDIDATES = 1000;

/**
 * A word found in more than this share of the opportunities ("tool", "help", "app" in a
 * question) is common: it ranks, but an `all` answer need not hold it when the question has rarer
 * words. Only from COMMON_MIN_DOCS opportunities: in a handful every word is "common".
 */
export const COMMON_SHARE = 0.2;
const COMMON_MIN_DOCS = 1000;

function isCommon(unit: RankedUnit): boolean {
  return unit.docs >= COMMON_MIN_DOCS && unit.df > COMMON_SHARE * unit.docs;
}

/**
 * How well the rows `ids` answer the units: `hits`, the units matched; `rel`, the coverage of
 * the question (the sum of the rarity of each unit matched, in full when in the title, 0.4 of it
 * when in the description only) plus, to order rows that cover it alike, a tenth of the cover
 * density (ts_rank_cd) weighted by rarity.
 */
async function scoreRows(
  sql: Sql,
  ids: number[],
  units: RankedUnit[],
): Promise<Map<number, { hits: number; rel: number }>> {
  if (ids.length === 0 || units.length === 0) return new Map();
  const rows = await sql<{ id: number; hits: number; rel: number }[]>`
    with u as (
      select (x->>'q')::tsquery as q, (x->>'title')::tsquery as title, (x->>'idf')::float8 as idf
      from jsonb_array_elements(${JSON.stringify(units)}::text::jsonb) as x
    )
    select o.id,
      (select count(*) from u where o.search @@ u.q)::int as hits,
      coalesce((
        select sum(u.idf * (case when o.search @@ u.title then 1 when o.search @@ u.q then 0.4
          else 0 end + 0.1 * ts_rank_cd('{0.1, 0.2, 0.4, 1.0}'::float4[], o.search, u.q)))
        from u), 0)::float8 as rel
    from opportunities o where o.id in (select jsonb_array_elements_text(${
    JSON.stringify(ids)
  }::text::jsonb)::int)`;
  return new Map(rows.map((r) => [r.id, { hits: r.hits, rel: r.rel }]));
}

/** Caches a value under a key (the content cache at the request's data version). */
export type Memo = <T>(key: string, compute: () => Promise<T>) => Promise<T>;

/** One page of a list with `q`, its exact total, which match it answers and how well. */
export interface SearchPage extends Judged {
  rows: ListRow[];
  /** What the question became (docs/rest.md, "Reading a question"). */
  read_as: ReadAs;
  total: number;
  match: MatchKind;
  /** The cursor of the next page; null on the last. */
  next_cursor: string | null;
}

/** How a question is answered: plans and URLs, the shared memo, and its reading by meaning. */
export interface SearchOptions extends Pick<QueryContext, "forcePlans" | "publicBaseUrl"> {
  memo: Memo;
  candidates?: number;
  /**
   * What a subject means (src/catalog/meaning/): undefined when the encoder is not ready, and
   * then the question is read by its words and their word vectors (expansion.ts).
   */
  meaning?: (text: string) => Promise<Meaning | undefined>;
  /** The word vectors' reading's budget, and whether a question waits for it (expansion.ts). */
  reading?: ReadingOptions;
}

/**
 * A page of the opportunity list with `q`: best match and relevance (the module comment), on
 * the question's subject (subject.ts): within the category or theme it names when that finds
 * rows, else in the whole catalogue, with the filters its framing words ask for (framing.ts)
 * and the rows of the themes it means (src/catalog/meaning/); with how well it answers
 * (judge.ts). `memo` keeps what every page of the same question shares (count, units, ranked
 * candidates, confidence).
 */
export async function searchOpportunities(
  sql: Sql,
  asked: OpportunityQuery,
  options: SearchOptions,
): Promise<SearchPage> {
  const framing = readFraming(searchText(asked.q) ?? "");
  // A filter the caller set wins over the same one read from words.
  const query = { ...asked };
  for (const [key, value] of Object.entries(framing.filters)) {
    const name = key as keyof Framing["filters"];
    if (query[name] === undefined) query[name] = value;
  }
  const subject = await readSubject(sql, query.q, options.memo);
  if (subject?.named) {
    const within = await answerSubject(sql, query, subject.text, subject.named, framing, options);
    if (within.total > 0) return within;
  }
  return await answerSubject(sql, query, subject?.unnamed ?? "", undefined, framing, options);
}

/** The answer to `query` read as `text` (q syntax), within `named` when given. */
async function answerSubject(
  sql: Sql,
  query: OpportunityQuery,
  text: string,
  named: Named | undefined,
  framing: Framing,
  options: SearchOptions,
): Promise<SearchPage> {
  const candidates = options.candidates ?? CANDIDATES;
  const force = options.forcePlans ?? false;
  const sort = sortOf(query);
  const { page: _page, page_size: _size, sort: _sort, cursor: _cursor, ...filter } = query;
  // Keys of what pages share: the filters (q as asked) and the reading of q.
  const filterKey = `${named?.slug ?? ""}|${text}|${JSON.stringify(Object.entries(filter).sort())}`;
  const { memo } = options;
  const { units: texts, exclusions } = searchUnits(text);
  const units = await memo(`units:${JSON.stringify(texts)}`, () => rankUnits(sql, texts));
  // What the subject means (the named phrase kept: "invoices in fintech" means invoices); its
  // themes lift their rows, below the question's own words; without the encoder, the themes of
  // its word vectors (expansion.ts).
  // A subject of stop words alone ("with") means nothing to read.
  const meaning = units.length > 0 || named
    ? await memo(`meaning:${text}`, async () => await options.meaning?.(text) ?? null)
    : null;
  const lift: ThemeLift = meaning
    ? meaningLift(meaning)
    : await memo(`lift:${text}`, () => themeLift(sql, text, options.reading));
  const meant = meaning?.meant ?? [];
  // A row is as relevant as its best evidence, its words or its theme's meaning (the other
  // orders ties): a row holding every word of the question stays above the rows of a theme it
  // means, one holding a few of them goes below. Word vectors' lift only adds (expansion.ts).
  const fuse = meaning
    ? (words: number, theme: number) => Math.max(words, theme) + 0.1 * Math.min(words, theme)
    : (words: number, theme: number) => words + theme;
  const lifted = (ids: number[]) =>
    themeBoosts(sql, ids, lift, units.reduce((sum, u) => sum + u.idf, 0), {
      share: meaning ? MEANING_SHARE : undefined,
    });
  const excluded = exclusions.length > 0 ? exclusions.join(" ") : undefined;
  const excludes = (tx: Sql) => excluded ? tx`and o.search @@ oi_search_query(${excluded})` : tx``;
  // Within the named category or theme; a question of framing words only: every row.
  // A theme by equality, so that its sort index (theme_id, score) serves the page. "Growing":
  // only themes whose mentions go up.
  const growing = (tx: Sql) =>
    framing.growing
      ? tx`and o.theme_id in (select t.id from themes t where t.trend_direction = 'up')`
      : tx``;
  const within = (tx: Sql) =>
    !named
      ? growing(tx)
      : named.themeIds.length === 1
      ? tx`and o.theme_id = ${named.themeIds[0]} ${growing(tx)}`
      : tx`and o.theme_id in (select jsonb_array_elements_text(${
        JSON.stringify(named.themeIds)
      }::text::jsonb)::int) ${growing(tx)}`;
  const plain = named !== undefined || text !== searchText(query.q);
  // Framing words and stop words only ("low effort ideas with high willingness to pay"): no
  // subject, so every row of the filters, in score order (a q of stop words alone still
  // matches its words).
  const framed = plain && !named && units.length === 0 && exclusions.length === 0;
  const byName = named && units.length === 0 && exclusions.length === 0 && !framing.growing &&
    (!query.category || query.category === named.slug && named.kind === "category") &&
    (!query.theme || query.theme === named.slug && named.kind === "theme");
  const scoreOrder = {
    ...query,
    sort: "score" as const,
    page: 1,
    page_size: candidates,
    cursor: undefined,
  };
  // The words every row of an `all` answer holds: the significant ones, less the common ones
  // when some are rare (see COMMON_SHARE); then the whole subject in web-search syntax.
  const required = units.filter((u) => !isCommon(u));
  const allWords = required.length > 0 && required.length < units.length
    ? (tx: Sql) => tx`o.search @@ ${required.map((u) => `(${u.q})`).join(" & ")}::tsquery`
    : (tx: Sql) => text ? tx`o.search @@ oi_search_query(${text})` : tx`true`;
  const allMatch = required.length > 0 && required.length < units.length
    ? (tx: Sql) => tx`and ${allWords(tx)} ${excludes(tx)} ${within(tx)}`
    : framed
    ? (tx: Sql) => within(tx)
    : plain || framing.growing
    ? (tx: Sql) => tx`${text ? tx`and ${allWords(tx)}` : tx``} ${excludes(tx)} ${within(tx)}`
    : undefined;
  // The best rows of each theme the subject means that do not hold its words (those do
  // already) join the answer in relevance order (meaning/reading.ts).
  const meantOf = (kind: string, words: (tx: Sql) => postgres.Fragment): Promise<ListRow[]> =>
    meant.length === 0
      ? Promise.resolve([])
      : memo(`meant:${kind}:${filterKey}`, () =>
        meantRows(sql, meant, {
          query: scoreOrder,
          force,
          match: (tx: Sql) => tx`and not (${words(tx)}) ${excludes(tx)} ${within(tx)}`,
        }));
  const all = await memo(
    `count:${filterKey}`,
    // Framing words only, or a category or theme named alone: from the summary counts.
    () =>
      framed && !framing.growing
        ? countOpportunities(sql, { ...query, q: undefined })
        : framed
        ? countOpportunities(sql, { ...query, q: undefined }, { match: allMatch })
        : byName
        ? countOpportunities(sql, { ...query, q: undefined, [named!.kind]: named!.slug })
        : countOpportunities(sql, query, { forcePlans: force, match: allMatch }),
  );
  const judging = {
    sql,
    memo,
    key: filterKey,
    words: texts.join(" "),
    framed,
    named,
    meaning: meaning ?? undefined,
    ignored: framing.ignored,
    subject: text,
    base: options.publicBaseUrl,
  };
  const read_as: ReadAs = {
    subject: text || null,
    filters: {
      ...framing.filters,
      ...(named ? { [named.kind]: named.slug } : {}),
      ...(framing.growing ? { trend: "up" as const } : {}),
    },
    meant_themes: meaning?.meantSlugs ?? [],
    by_meaning: meaning !== null,
  };
  if (all > 0) {
    // Questions in the data's words stay exact: the meant rows join only when no row holds
    // the question well (its best candidate covers less than WORDS_ANSWER of its words' weight).
    const allRanked = () =>
      memo(`ranked:${filterKey}`, async () => {
        // Without words to look up in the search index, PostgreSQL's own plan (a sort index).
        const plan = framed || byName ? "planner" : pagePlan(scoreOrder, all);
        const words = (await findPage(sql, scoreOrder, plan, force, allMatch)).slice(0, candidates);
        const weight = units.reduce((sum, u) => sum + u.idf, 0);
        let scores = await scoreRows(sql, words.map((r) => r.id), units);
        const best = Math.max(0, ...[...scores.values()].map((s) => s.rel / (weight || 1)));
        const injected = best < WORDS_ANSWER ? await meantOf("all", allWords) : [];
        if (injected.length > 0) {
          scores = await scoreRows(sql, [
            ...scores.keys(),
            ...injected.map((r) => r.id),
          ], units);
        }
        const rows = [...words, ...injected];
        const boosts = await lifted(rows.map((r) => r.id));
        const rel = (row: ListRow) => fuse(scores.get(row.id)?.rel ?? 0, boosts.get(row.id) ?? 0);
        return {
          rows: rows.sort((a, b) => rel(b) - rel(a) || compareRows("score", a, b)),
          injected: injected.length,
        };
      });
    const ranked = async () => (await allRanked()).rows;
    if (sort !== "relevance") {
      const rows = await pageRows(sql, query, all, force && !framed && !byName, allMatch);
      const page = rows.slice(0, query.page_size);
      return {
        rows: page,
        total: all,
        match: "all",
        read_as,
        next_cursor: nextCursor(query, rows),
        ...await judgeAnswer(judging, page, ranked),
      };
    }
    // In relevance order the meant rows join: the rest after the candidates is the words' rows.
    const { rows, injected } = await allRanked();
    const found = await withRest(
      query,
      rows,
      all + injected,
      (offset, limit, after) => rowsAt(sql, query, allMatch, offset + candidates, limit, after),
    );
    return {
      ...found,
      total: all + injected,
      match: "all",
      read_as,
      ...await judgeAnswer(judging, found.rows, ranked),
    };
  }
  const nothing = { rows: [], total: 0, match: "all" as const, next_cursor: null };
  if (units.length < 2 && meant.length === 0) {
    return {
      ...nothing,
      read_as,
      ...await judgeAnswer(judging, [], () => Promise.resolve([])),
    };
  }
  // Best match: any unit, no exclusion. The rows are chosen by the rare units when there are two
  // or more of them (common words only rank, as in an `all` answer: an OR of common words would
  // count most of the catalogue), else by every unit.
  const selecting = required.length >= 2 ? required : units;
  const anyQuery = selecting.map((u) => `(${u.q})`).join(" | ");
  const lexical = (tx: Sql) => anyQuery ? tx`o.search @@ ${anyQuery}::tsquery` : tx`false`;
  const match = (tx: Sql) => tx`and ${lexical(tx)} ${excludes(tx)} ${within(tx)}`;
  const injected = await meantOf("any", lexical);
  const total = injected.length + await memo(
    `any:${filterKey}`,
    () => countOpportunities(sql, query, { forcePlans: force, match }),
  );
  const anyRanked = (order: string) =>
    memo(`anyranked:${filterKey}:${order}`, async () => {
      // Candidates: the best-scored rows of each unit, rarest first, until CANDIDATES are found.
      const found = new Map<number, ListRow>();
      for (const unit of selecting) {
        if (found.size >= candidates) break;
        const one = (tx: Sql) =>
          tx`and o.search @@ ${unit.q}::tsquery
            ${excluded ? tx`and o.search @@ oi_search_query(${excluded})` : tx``} ${within(tx)}`;
        const rows = await findPage(sql, scoreOrder, pagePlan(scoreOrder, unit.df), force, one);
        for (const row of rows.slice(0, candidates)) found.set(row.id, row);
      }
      const near = await liftedRows(sql, lift, { query: scoreOrder, force, match });
      for (const row of [...near, ...injected]) found.set(row.id, row);
      const scores = await scoreRows(sql, [...found.keys()], units);
      const boosts = await lifted([...found.keys()]);
      const of = (row: ListRow) => {
        const s = scores.get(row.id) ?? { hits: 0, rel: 0 };
        return { hits: s.hits, rel: fuse(s.rel, boosts.get(row.id) ?? 0) };
      };
      // Relevance: the rows covering the most of the question (its rare words weigh more, title
      // words more than description words); another sort: the most words first, then that sort.
      return [...found.values()].sort((a, b) =>
        (order === "relevance" ? of(b).rel - of(a).rel : of(b).hits - of(a).hits) ||
        compareRows(order, a, b)
      );
    });
  const ranked = await anyRanked(sort);
  const rankedIds = ranked.map((r) => r.id);
  const found = await withRest(query, ranked, total, (offset, limit, after) =>
    rowsAt(
      sql,
      query,
      (tx) =>
        tx`${match(tx)} and o.id <> all(array(select jsonb_array_elements_text(${
          JSON.stringify(rankedIds)
        }::text::jsonb)::int))`,
      offset,
      limit,
      after,
    ));
  return {
    ...found,
    total,
    // Nothing matches any word either: the answer is the (empty) set of rows matching all.
    match: total > 0 ? "any" : "all",
    read_as,
    ...await judgeAnswer(judging, found.rows, () => anyRanked("relevance")),
  };
}
