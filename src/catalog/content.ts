/**
 * The answers of every content operation, cached by data version (src/catalog/cache.ts). REST handlers
 * and MCP tools both call these, with the data version the request's key check returned, so the
 * two surfaces share one cache and one set of queries.
 */
import { type CacheStats, keyOf } from "./cache.ts";
import { createHoldings, type HoldingOptions } from "./lists/holdings.ts";
import type { Sql } from "../db/open.ts";
import type { ReadRouter } from "../db/replicas.ts";
import { getBlogPost, listBlogPosts } from "./blog_posts.ts";
import type { QueryContext } from "./common.ts";
import { createGate } from "../platform/gate.ts";
import {
  type DetailRow,
  getOpportunity,
  type ListQuery,
  readOpportunityPage,
  toDetail,
  toListItem,
} from "./lists/opportunities.ts";
import { type Memo, searchOpportunities } from "./questions/search.ts";
import { meaningOf, UNREAD } from "./meaning/reading.ts";
import { meaningAt } from "./meaning/vectors.ts";
import { warmReading } from "./meaning/expansion.ts";
import { findSimilar, matchIdea } from "./similar/similar.ts";
import type { IdeaMatch, IdeaQuery, SimilarList, SimilarQuery } from "./similar/similar_schemas.ts";
import { nextCursor, sortOf } from "./lists/opportunity_cursor.ts";
import { scoreCountsFromSummary } from "./lists/counts.ts";
import { countsOfCubes, pairCountsOfCubes } from "./lists/scores_cube.ts";
import { isSubScoreSort } from "./lists/sub_scores.ts";
import { readDataVersion, searchText } from "./common.ts";
import {
  inIdOrder,
  type ListIndexStats,
  rowsOfIds,
  rowsSelect,
} from "./lists/list_index_holder.ts";
import { type IndexPage, indexPage } from "./lists/list_index_page.ts";
import type postgres from "postgres";
import type { ListRow } from "./lists/list_items.ts";
import { getOverview, getTheme, listCategories, listTrendingThemes } from "./themes/themes.ts";
import { getThemeHistory } from "./themes/theme_history.ts";
import type { ThemeHistory, ThemeHistoryQuery } from "./trend_schemas.ts";
import type { ThemeRef } from "./theme_ref.ts";
import type {
  BlogList,
  BlogPost,
  BlogQuery,
  Category,
  OpportunityDetail,
  OpportunityList,
  Overview,
  ThemeDetail,
  TrendingQuery,
  TrendingThemes,
} from "./schemas.ts";

/** Content operations at a data version. */
export interface Content {
  /** The base of the public URLs in the answers (QueryContext.publicBaseUrl). */
  publicBaseUrl: string;
  /**
   * The list of `query`; `prefetched`, when given, is a plan of planList with the rows its
   * `prefetch` read in the admission statement (used when the plan's version is `version`).
   */
  listOpportunities(
    version: number,
    query: ListQuery,
    prefetched?: { plan: ListPlan; rows: unknown },
  ): Promise<OpportunityList>;
  /**
   * A list's page planned from the list index held, with the statement fragment that reads its
   * rows (for the admission statement: one round trip); undefined when the answer is cached, the
   * index cannot answer, or catalogue reads go to replicas.
   */
  planList(query: ListQuery): ListPlan | undefined;
  /**
   * The pages of the list at `query` for an export (src/rest/export.ts): the list's own answer
   * (the same code, best match and relevance included), read afresh and not cached, page after
   * page by the next_cursor of the previous one (undefined for the first).
   */
  exportPages(
    version: number,
    query: ListQuery,
  ): (cursor: string | undefined) => Promise<OpportunityList>;
  /**
   * The detail of `id`; `fetched`, when given, is its detailJson row as the admission statement
   * read it at `version` (no second query).
   */
  getOpportunity(
    version: number,
    id: number,
    fetched?: DetailRow | null,
  ): Promise<OpportunityDetail>;
  /** True when the detail of `id` is cached at the newest data version seen. */
  hasOpportunity(id: number): boolean;
  listBlogPosts(version: number, query: BlogQuery): Promise<BlogList>;
  getBlogPost(version: number, slug: string): Promise<BlogPost>;
  getOverview(version: number): Promise<Overview>;
  listCategories(version: number): Promise<{ items: Category[] }>;
  listTrendingThemes(version: number, query: TrendingQuery): Promise<TrendingThemes>;
  getTheme(version: number, ref: ThemeRef): Promise<ThemeDetail>;
  /** The opportunities nearest to one (src/catalog/similar/similar.ts). */
  findSimilar(version: number, query: SimilarQuery): Promise<SimilarList>;
  /** The themes and opportunities nearest to an idea. */
  matchIdea(version: number, query: IdeaQuery): Promise<IdeaMatch>;
  getThemeHistory(version: number, query: ThemeHistoryQuery): Promise<ThemeHistory>;
  stats(): CacheStats;
  /** The list index's version and use (list_index.ts); null when lists do not use one. */
  listIndex(): ListIndexStats | null;
  /**
   * Loads what first answers need, in the order requests need it (a server's start, awaited by
   * no request): the list index, the question reading of word vectors, the score cube; then,
   * once the encoder is ready (`meaning`), the catalogue's sentence vectors. Each is held only
   * when the memory budget holds it.
   */
  warm(part: "lists" | "meaning"): Promise<void>;
}

/** A list's page planned from the list index at `version`, and the fragment reading its rows. */
export interface ListPlan {
  version: number;
  page: IndexPage;
  prefetch: postgres.Fragment;
}

/** The answer's quality fields without q: nothing to judge. */
const UNJUDGED = { confidence: null, unmatched_terms: [], suggestions: [], ...UNREAD };

/** Builds the cached content operations; `maxEntries` bounds the cache (0 disables it). */
export function createContent(
  sql: Sql,
  context: QueryContext,
  options: HoldingOptions & {
    /**
     * Keyword searches, idea matches and similar lists computed at once (see Config
     * db.searchConcurrency); 0 or none: no limit.
     */
    searchConcurrency?: number;
    /**
     * Where each read that misses the cache runs (src/db/replicas.ts): a replica that has
     * replayed the version asked, or `sql`. Without it every read runs on `sql`.
     */
    reads?: ReadRouter;
    /**
     * `background` (a server): a question never waits for the reading of word vectors
     * (expansion.ts), which `warm` starts; `wait` (default): the first question waits for it.
     */
    reading?: "background" | "wait";
    /** Told of the sentence vectors' read or write failing (src/catalog/meaning/: answers go
     * on without them). */
    onMeaningError?: (error: unknown) => void;
  } = {},
): Content {
  const onError = options.onMeaningError;
  const primary = sql;
  const on = <T>(version: number, read: (sql: Sql) => Promise<T>): Promise<T> =>
    options.reads ? options.reads.run(version, read) : read(primary);
  const searches = createGate(options.searchConcurrency ?? 0);
  // The answer cache, the count cubes and the list index, within the memory budget.
  const { cache, cubes, lists, listMode, budget } = createHoldings(primary, options);
  // The word vectors' reading of questions: a server's questions never wait for it.
  const reading = { budget, wait: options.reading !== "background" };
  const cached = <T>(
    version: number,
    key: string,
    compute: () => Promise<T>,
    weight = 1,
  ): Promise<T> => cache.maxEntries > 0 ? cache.get(version, key, compute, weight) : compute();
  const searchMemo = (version: number): Memo => (key, compute) =>
    cached(version, `opportunities:search:${key}`, compute);

  /** A list's answer from its rows (a page and the next row) and total. */
  function listOf(query: ListQuery, rows: ListRow[], total: number): OpportunityList {
    return {
      items: rows.slice(0, query.page_size).map((row) => toListItem(row, context.publicBaseUrl)),
      total,
      // A page reached by cursor has no number.
      page: query.cursor === undefined ? query.page : null,
      page_size: query.page_size,
      match: "all",
      next_cursor: nextCursor(query, rows),
      ...UNJUDGED,
    };
  }

  /** The list from the list index at `version`, or undefined when it cannot answer. */
  async function indexedList(
    version: number,
    query: ListQuery,
  ): Promise<OpportunityList | undefined> {
    if (!lists || searchText(query.q)) return undefined;
    const index = await lists.at(version, listMode === "wait");
    const page = index && indexPage(index, query);
    const rows = page && await on(version, (sql) => rowsOfIds(sql, query, page.ids));
    lists.note(rows !== undefined);
    return rows && listOf(query, rows, page!.total);
  }

  /** The list's answer from a plan and the rows it read; undefined when a row is missing. */
  function planned(
    query: ListQuery,
    { plan, rows }: { plan: ListPlan; rows: unknown },
  ): Promise<OpportunityList> | undefined {
    const ordered = Array.isArray(rows) ? inIdOrder(rows, plan.page.ids) : undefined;
    // An incomplete plan is counted by the list's own reading, which follows.
    if (ordered) lists?.note(true, true);
    return ordered && Promise.resolve(listOf(query, ordered, plan.page.total));
  }

  /**
   * The list's answer at `query`. Its page is cached, unless `memo` is given: an export's chunks
   * (exportPages) are read afresh, 1,000 rows each, and keep what they share in `memo`.
   */
  async function listAnswer(
    version: number,
    query: ListQuery,
    memo?: Memo,
  ): Promise<OpportunityList> {
    return await indexedList(version, query) ??
      await on(version, (sql) => listAnswerOn(sql, version, query, memo));
  }

  async function listAnswerOn(
    sql: Sql,
    version: number,
    query: ListQuery,
    memo?: Memo,
  ): Promise<OpportunityList> {
    // The count depends on the filters only: not on the page, its size or the order. It is
    // kept per score: the total, and the band of a page in the score order (score_band.ts).
    const { page: _page, page_size: _size, sort: _sort, cursor: _cursor, ...filter } = query;
    const counts = () =>
      cached(version, keyOf("opportunities:count", filter), async () => {
        return await countsOfCubes(sql, filter, version, cubes) ??
          await scoreCountsFromSummary(sql, filter);
      });
    // A page reached by cursor has no number.
    const number = query.cursor === undefined ? query.page : null;
    if (!query.q?.trim()) {
      // The score order needs the counts before its page; the newest order reads both at once.
      // The page itself is not cached apart: the whole answer is.
      // A sub-score order reads its pair counts (from the cubes) before its page, beside the
      // total's counts.
      const sort = sortOf(query);
      const [scored, rows] = sort === "score"
        ? await counts().then(async (c) =>
          [c, await readOpportunityPage(sql, query, { counts: c })] as const
        )
        : isSubScoreSort(sort)
        ? await Promise.all([
          counts(),
          cached(
            version,
            keyOf(`opportunities:pairs:${sort}`, filter),
            () => pairCountsOfCubes(sql, filter, sort, { version, shelf: cubes }),
          ).then((pairs) => readOpportunityPage(sql, query, { pairs })),
        ])
        : await Promise.all([counts(), readOpportunityPage(sql, query)]);
      return listOf(query, rows, scored.total);
    }
    // One turn of the gate for the count and the page together: a turn each would send every
    // page to the back of the queue behind the counts that arrived after it.
    return await searches.run(async () => {
      const found = await searchOpportunities(sql, query, {
        ...context,
        memo: memo ?? searchMemo(version),
        meaning: (text) => meaningOf(text, { sql, version, primary, onError, budget }),
        reading,
      });
      const { relevance, rows, total, match, next_cursor, ...judged } = found;
      return {
        items: rows.map((row) => {
          const item = toListItem(row, context.publicBaseUrl);
          return relevance ? { ...item, relevance: relevance.get(row.id) ?? 0 } : item;
        }),
        total,
        page: number,
        page_size: query.page_size,
        match,
        next_cursor,
        ...judged,
      };
    });
  }

  return {
    publicBaseUrl: context.publicBaseUrl,
    listOpportunities: (version, query, prefetched) =>
      // The whole answer is cached (one object, serialized once); its total is cached per
      // filter too, so paging through a result counts it once.
      cached(
        version,
        keyOf("opportunities:list", query),
        () =>
          (prefetched?.plan.version === version && planned(query, prefetched)) ||
          listAnswer(version, query),
        Math.ceil(query.page_size / 20),
      ),
    planList: (query) => {
      const index = lists?.held();
      if (!index || options.reads || searchText(query.q)) return undefined;
      if (cache.maxEntries > 0 && cache.has(keyOf("opportunities:list", query))) return undefined;
      const page = indexPage(index, query);
      if (!page) return undefined;
      const sql = primary;
      const prefetch = sql`(select coalesce(json_agg(r), '[]'::json) from (
        ${rowsSelect(sql, query, page.ids)}) r)`;
      return { version: index.version, page, prefetch };
    },
    exportPages: (version, query) => {
      // What the chunks of a question's export share (its count, units and ranked candidates)
      // is kept for the whole export, so that a chunk read after the cache let them go (or at a
      // newer version) continues the same list.
      const kept = new Map<string, Promise<unknown>>();
      const memo: Memo = <T>(key: string, compute: () => Promise<T>) => {
        if (!kept.has(key)) kept.set(key, searchMemo(version)(key, compute));
        return kept.get(key) as Promise<T>;
      };
      return (cursor) => listAnswer(version, { ...query, page: 1, cursor }, memo);
    },
    getOpportunity: (version, id, fetched) =>
      cached(
        version,
        `opportunity:${id}`,
        fetched === undefined
          ? () => on(version, (sql) => getOpportunity(sql, id, context))
          : () => Promise.resolve().then(() => toDetail(fetched, id, context)),
      ),
    hasOpportunity: (id) => cache.maxEntries > 0 && cache.has(`opportunity:${id}`),
    listBlogPosts: (version, query) =>
      cached(
        version,
        keyOf("blog", query),
        () => on(version, (sql) => listBlogPosts(sql, query, context)),
      ),
    getBlogPost: (version, slug) =>
      cached(
        version,
        `blog_post:${slug}`,
        () => on(version, (sql) => getBlogPost(sql, slug, context)),
      ),
    getOverview: (version) =>
      cached(version, "overview", () => on(version, (sql) => getOverview(sql, context))),
    listCategories: (version) =>
      cached(version, "categories", () => on(version, (sql) => listCategories(sql, context))),
    listTrendingThemes: (version, query) =>
      cached(
        version,
        keyOf("trending", query),
        () => on(version, (sql) => listTrendingThemes(sql, query, context)),
      ),
    getTheme: (version, ref) =>
      cached(version, keyOf("theme", ref), () => on(version, (sql) => getTheme(sql, ref, context))),
    findSimilar: (version, query) =>
      cached(
        version,
        keyOf("similar", query),
        () => searches.run(() => on(version, (sql) => findSimilar(sql, query, context))),
      ),
    matchIdea: (version, query) => {
      const meaning = (sql: Sql) =>
        meaningOf(query.text, { sql, version, primary, onError, budget });
      const match = async (sql: Sql) =>
        matchIdea(sql, query, context, { meaning: await meaning(sql) });
      return cached(version, keyOf("idea", query), () => searches.run(() => on(version, match)));
    },
    getThemeHistory: (version, query) =>
      cached(
        version,
        keyOf("theme_history", query),
        () => on(version, (sql) => getThemeHistory(sql, query, context)),
      ),
    stats: () => cache.stats(),
    listIndex: () => lists?.stats() ?? null,
    warm: async (part) => {
      const version = await readDataVersion(primary);
      if (part === "meaning") {
        await meaningAt(primary, version, { primary, onError, budget });
        return;
      }
      await lists?.at(version, true);
      await warmReading(primary, reading);
      if (cache.maxEntries > 0) {
        const all = { min_score: 0, online_only: false };
        await pairCountsOfCubes(primary, all, "pain_point_intensity", { version, shelf: cubes });
      }
    },
  };
}
