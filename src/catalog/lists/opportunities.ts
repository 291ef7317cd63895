/**
 * src/catalog/lists/: a list of opportunities without a question, answered exactly at a million
 * rows. This file reads lists and details in PostgreSQL (filters, orders, pages, counts); the
 * list index (list_index*.ts), the score and channel cubes (scores_cube.ts, counts.ts) and the
 * score and sub-score bands (score_band.ts, sub_band.ts) answer the same lists from memory, what
 * is held under the memory budget being chosen in holdings.ts; cursors: opportunity_cursor.ts.
 */
import type postgres from "postgres";
import type { Sql } from "../../db/open.ts";
import { NotFoundError } from "../../platform/errors.ts";
import type { OpportunityDetail, OpportunityQuery } from "../schemas.ts";
import { scrubText } from "../scrub.ts";
import { threadUrl } from "./evidence_url.ts";
import { matchesKeywords, type QueryContext, searchText } from "../common.ts";
import { iso, isRowId } from "../../db/rows.ts";
import { countFromSummary } from "./counts.ts";
import { afterCursor, keyColumns, rank, sortOf } from "./opportunity_cursor.ts";
import { bandedPage, type ScoreBand, type ScoreCounts } from "./score_band.ts";
import {
  bandQuery,
  bandWhere,
  type PairBand,
  pairBandedPage,
  type PairCounts,
} from "./sub_band.ts";
import { listColumns, listOrder, type ListRow, toListItem } from "./list_items.ts";
import { hasSubScoreFilter, isSubScoreSort, subScoreFilter, subScoreKey } from "./sub_scores.ts";

export {
  listColumns,
  listOrder,
  type ListRow,
  opportunityUrl,
  scoresOf,
  toListItem,
} from "./list_items.ts";

/** A list query, as the API and the catalogue's own pages (src/web/public/) ask it. */
export type ListQuery = OpportunityQuery;

/**
 * The order of a list query: by score (the list sort), newest first, or by relevance to `q`
 * (cover density of the matches, ties in the list sort). Every order ends in the id, so paging
 * is stable.
 */
function queryOrder(sql: Sql, query: OpportunityQuery): postgres.Fragment {
  if (isSubScoreSort(query.sort)) {
    return sql`order by ${subScoreKey(sql, query.sort)} desc, o.score desc, o.created_at desc,
      o.id desc`;
  }
  switch (query.sort) {
    case "newest":
      return sql`order by o.created_at desc, o.id desc`;
    case "relevance":
      return sql`order by ${rank(sql, query)} desc, o.score desc, o.created_at desc, o.id desc`;
    default:
      return listOrder(sql);
  }
}

/**
 * The `where` clause of a list query; every filter is a parameter, never a joined string. `match`
 * replaces the keyword match of `q` (best match passes its own, src/catalog/questions/search.ts).
 */
export function listFilter(
  sql: Sql,
  query: ListQuery,
  match?: postgres.Fragment,
): postgres.Fragment {
  return sql`
    where true
    ${query.online_only ? sql`and o.is_online_deliverable` : sql``}
    ${query.platform ? sql`and lower(o.platform) = lower(${query.platform})` : sql``}
    ${query.channel ? sql`and o.channel_name = ${query.channel}` : sql``}
    ${query.min_score > 0 ? sql`and o.score >= ${query.min_score}` : sql``}
    ${query.recommendation ? sql`and o.recommendation = ${query.recommendation}` : sql``}
    ${subScoreFilter(sql, query, "o")}
    ${
    query.category
      ? sql`and o.theme_id in (
          select t.id from themes t join categories c on c.id = t.category_id
          where c.slug = ${query.category})`
      : sql``
  }
    ${
    query.theme
      ? sql`and o.theme_id = (select t.id from themes t where t.slug = ${query.theme})`
      : sql``
  }
    ${match ?? matchesKeywords(sql, sql`o.search`, query.q)}
    ${afterCursor(sql, query)}`;
}

/**
 * `limit/offset` of a page and one row more: that row tells whether a next page exists. In a
 * band (of scores, or of a sub-score order's pairs) only the band's first bucket is skipped into.
 */
function windowOf(sql: Sql, query: OpportunityQuery, band?: { skip: number }): postgres.Fragment {
  const skip = band ? band.skip : (query.page - 1) * query.page_size;
  return sql`limit ${query.page_size + 1} offset ${skip}`;
}

/** How a page is read: the exact total of a keyword search, its plans, a list's score counts. */
export interface PageOptions {
  /** With q: the exact number of matches, which chooses the plan (see PagePlan). */
  total?: number;
  forcePlans?: boolean;
  /** Without q: the filter's count of each score, which bounds a page of the score order. */
  counts?: ScoreCounts;
  /** Without q, in a sub-score order: the filter's count of each pair (sub_band.ts). */
  pairs?: PairCounts;
}

/**
 * How a page of a keyword search (`q`) is found, once its total is known:
 * - `walk`: the sort index is read in order and each row is checked until the page is full. Cheap
 *   when matches are common (a page of 20 among 800,000 matches reads about 25 rows), ruinous when
 *   they are rare (`a -the` matches nothing and would read every row).
 * - `bitmap`: every match is found through the GIN index of `opportunity_search` and sorted.
 *   Its cost grows with the number of matches, whatever their order.
 * - `planner`: PostgreSQL chooses (relevance needs every match ranked anyway).
 * A walk is chosen when it is expected to read fewer rows than WALK_RATIO times the page end, and
 * never for fewer than WALK_MIN_MATCHES matches; the count is exact, so the choice is informed.
 */
export type PagePlan = "walk" | "bitmap" | "planner";

const WALK_MIN_MATCHES = 20_000;
const WALK_RATIO = 50;

/** The plan of a page with q, given the exact number of matches. */
export function pagePlan(query: OpportunityQuery, total: number): PagePlan {
  if (query.sort === "relevance") return "planner";
  const end = query.page * query.page_size;
  return total >= WALK_MIN_MATCHES && total >= WALK_RATIO * end ? "walk" : "bitmap";
}

/**
 * Runs `work` in a transaction whose planner settings force a plan: `bitmap` (only the GIN index
 * of opportunity_search) or `walk` (only plain index scans, in the sort order). A count of a
 * word found in most rows is otherwise planned as a sequential scan, which reads every vector.
 */
async function withPlan<T>(
  sql: Sql,
  plan: "walk" | "bitmap",
  force: boolean,
  work: (tx: Sql) => Promise<T>,
): Promise<T> {
  if (!force) return await work(sql);
  return await sql.begin(async (tx) => {
    // Parallel workers off too: they only help on an idle server, and take the cores that the
    // other searches of a busy one are waiting for.
    const off = plan === "bitmap" ? "enable_indexscan" : "enable_bitmapscan";
    await tx`select set_config('enable_seqscan', 'off', true), set_config(${off}, 'off', true),
      set_config('max_parallel_workers_per_gather', '0', true)`;
    return await work(tx as unknown as Sql);
  }) as T;
}

/**
 * One page of opportunities matching the filters, in the list order, as rows of listColumns
 * (toListItem shapes them with the public base URL). With `q`, `total` (the exact count of the
 * same filters, from countOpportunities) chooses the plan (see PagePlan).
 */
export async function listOpportunityPage(
  sql: Sql,
  query: OpportunityQuery,
  options: PageOptions = {},
): Promise<ListRow[]> {
  return (await readOpportunityPage(sql, query, options)).slice(0, query.page_size);
}

/**
 * The rows of listOpportunityPage and the first row of the next page when there is one
 * (nextCursor reads it).
 */
export async function readOpportunityPage(
  sql: Sql,
  query: OpportunityQuery,
  options: PageOptions = {},
): Promise<ListRow[]> {
  if (!query.q?.trim()) return await listPage(sql, query, options);
  const { total } = options;
  if (total === undefined) return await pageOf(sql, query);
  if ((query.page - 1) * query.page_size >= total) return [];
  // Unforced (the embedded database), PostgreSQL plans the page on opportunities, as it counts.
  if (!options.forcePlans) return await pageOf(sql, query);
  return await findPage(sql, query, pagePlan(query, total), true);
}

/**
 * A page without q: in the score order with the filter's score counts, only its score band; in a
 * sub-score order with its pair counts, only its pair band.
 */
async function listPage(
  sql: Sql,
  query: OpportunityQuery,
  { counts, pairs }: PageOptions,
): Promise<ListRow[]> {
  const sort = sortOf(query);
  if (pairs && isSubScoreSort(sort)) {
    return await pairBandedPage({ ...query, sort }, pairs, (band) => pageOf(sql, query, { band }));
  }
  if (!counts || sort !== "score") return await pageOf(sql, query);
  return await bandedPage(query, counts, (band) => pageOf(sql, query, { band }));
}

/** A page of a keyword search found by the given plan; every plan finds the same page. */
export async function findPage(
  sql: Sql,
  query: OpportunityQuery,
  plan: PagePlan,
  force: boolean,
  match?: (sql: Sql) => postgres.Fragment,
): Promise<ListRow[]> {
  if (plan === "planner") return await pageOf(sql, query, { match });
  if (plan === "walk") {
    return await withPlan(sql, "walk", force, (tx) => pageOf(tx, query, { match }));
  }
  // Unforced (tests on the embedded database), the same statements with PostgreSQL's own plans.
  return await withPlan(sql, "bitmap", force, async (tx) => {
    return await tx<ListRow[]>`
      select ${listColumns(tx)} ${keyColumns(tx, query)}
      from (
        select o.id from ${searchTable(tx, query)} o ${listFilter(tx, query, match?.(tx))}
        ${queryOrder(tx, query)} ${windowOf(tx, query)}
      ) as hit
      join opportunities o on o.id = hit.id
      ${queryOrder(tx, query)}`;
  });
}

/**
 * A page of the list query on `opportunities`, planned by PostgreSQL. Without q the ids are
 * found first and the rows read after: an offset then skips index entries (an index-only scan
 * where an index covers the filters) instead of reading every skipped row from the table, which
 * at 1,000,000 rows made page 50 cost 45 ms of table reads instead of 3 ms. With q every
 * candidate row is read for its vector anyway, and the plans of PagePlan stay as measured.
 */
async function pageOf(
  sql: Sql,
  query: OpportunityQuery,
  options: { match?: (sql: Sql) => postgres.Fragment; band?: ScoreBand | PairBand } = {},
): Promise<ListRow[]> {
  const { match, band } = options;
  if (searchText(query.q) || match) {
    return await sql<ListRow[]>`
      select ${listColumns(sql)} ${keyColumns(sql, query)}
      from opportunities o ${listFilter(sql, query, match?.(sql))}
      ${queryOrder(sql, query)} ${windowOf(sql, query)}`;
  }
  return await sql<ListRow[]>`
    select ${listColumns(sql)} ${keyColumns(sql, query)}
    from (
      select o.id from opportunities o ${listFilter(sql, bandQuery(query, band))}
      ${band ? bandWhere(sql, query, band) : sql``}
      ${queryOrder(sql, query)} ${windowOf(sql, query, band)}
    ) as hit
    join opportunities o on o.id = hit.id
    ${queryOrder(sql, query)}`;
}

/**
 * How many opportunities match the filters (page and page_size are ignored). With `q` and forced
 * plans, counted in the narrow opportunity_search (sql/0006_search_table.sql) by its GIN index
 * alone.
 */
export async function countOpportunities(
  sql: Sql,
  query: OpportunityQuery,
  options: { forcePlans?: boolean; match?: (sql: Sql) => postgres.Fragment } = {},
): Promise<number> {
  const { match } = options;
  // The total of a list is the same on every page: the cursor is not a filter.
  query = { ...query, cursor: undefined };
  // Without q, the summary tables have the total (src/catalog/lists/counts.ts).
  if (!searchText(query.q) && !match) return await countFromSummary(sql, query);
  // Without forced plans PostgreSQL could count opportunity_search by a sequential scan, which
  // reads every vector from the TOAST table: the wide table is the better choice then.
  if (!options.forcePlans) return await countByScan(sql, query, match);
  return await withPlan(sql, "bitmap", true, async (tx) => {
    const [{ total }] = await tx<{ total: number }[]>`
      select count(*)::int as total from ${searchTable(tx, query)} o
      ${listFilter(tx, query, match?.(tx))}`;
    return total;
  });
}

/**
 * The table a forced plan searches: the narrow opportunity_search, which holds the filter columns
 * but not the sub-scores; with a sub-score filter, opportunities (its own GIN index of search).
 */
function searchTable(sql: Sql, query: OpportunityQuery): postgres.Fragment {
  return hasSubScoreFilter(query) ? sql`opportunities` : sql`opportunity_search`;
}

/** How many opportunities match, counted in `opportunities` itself (the summaries' reference). */
export async function countByScan(
  sql: Sql,
  query: OpportunityQuery,
  match?: (sql: Sql) => postgres.Fragment,
): Promise<number> {
  query = { ...query, cursor: undefined };
  const [{ total }] = await sql<{ total: number }[]>`
    select count(*)::int as total from opportunities o ${listFilter(sql, query, match?.(sql))}`;
  return total;
}

/** A detail row as `detailJson` reads it: JSON, so its timestamps are strings. */
export type DetailRow = Omit<ListRow, "created_at"> & {
  created_at: string;
  description: string;
  market_size_estimate: string;
  key_features: string[];
  competitors: string[];
  differentiation: string;
  risks: string[];
  related_slug: string | null;
  evidence: {
    quote: string;
    platform: string;
    channel_name: string;
    posted_at: string;
    source_url: string | null;
  }[];
};

/**
 * The detail of one opportunity as one JSON value (null when there is none): its columns, the
 * newest evidence and the related article's slug. A scalar expression, so that the admission
 * statement can read it in the same round trip as the charge (src/metering/admission.ts);
 * getOpportunity reads it alone.
 */
export function detailJson(sql: Sql, id: number): postgres.Fragment {
  if (!isRowId(id)) return sql`null::json`;
  return sql`(
    select row_to_json(d) from (
      select ${listColumns(sql)}, o.description, o.market_size_estimate, o.key_features,
        o.competitors, o.differentiation, o.risks,
        (select b.slug from blog_posts b
          where b.related_opportunity_id = o.id and b.published_at <= now()
          order by b.published_at desc, b.slug limit 1) as related_slug,
        coalesce((
          select json_agg(e order by e.posted_at desc, e.id desc) from (
            select q.id, q.quote, q.platform, q.channel_name, q.posted_at, q.source_url
            from evidence_quotes q
            where q.opportunity_id = o.id order by q.posted_at desc, q.id desc limit 5) e
        ), '[]') as evidence
      from opportunities o where o.id = ${id}) d)`;
}

/** One opportunity with its detail fields, newest evidence and related article. */
export async function getOpportunity(
  sql: Sql,
  id: number,
  ctx: QueryContext,
): Promise<OpportunityDetail> {
  if (!isRowId(id)) throw new NotFoundError(`Cannot find opportunity ${id}`);
  const [{ detail }]: [{ detail: DetailRow | null }] = await sql`
    select ${detailJson(sql, id)} as detail`;
  return toDetail(detail, id, ctx);
}

/**
 * The detail as a plan reads it: evidence links (source_url) are for Pro and Business, so a Free
 * caller's evidence has none (docs/rest.md). The cached detail is shared by every plan.
 */
export function detailForPlan(detail: OpportunityDetail, plan: string): OpportunityDetail {
  if (plan !== "free") return detail;
  return { ...detail, evidence: detail.evidence.map(({ source_url: _, ...e }) => e) };
}

/** Shapes a row of detailJson into the detail answer; 404 when there is none. */
export function toDetail(
  row: DetailRow | null,
  id: number,
  ctx: QueryContext,
): OpportunityDetail {
  if (!row) throw new NotFoundError(`Cannot find opportunity ${id}`);
  return {
    ...toListItem(row, ctx.publicBaseUrl),
    description: row.description,
    market_size_estimate: row.market_size_estimate,
    key_features: row.key_features,
    competitors: row.competitors,
    differentiation: row.differentiation,
    risks: row.risks,
    related_article_url: row.related_slug === null
      ? null
      : `${ctx.publicBaseUrl}/blog/${row.related_slug}`,
    // Quotes were scrubbed when written; scrubbing again on read catches anything written
    // before a scrubbing rule existed.
    evidence: row.evidence.map((e) => ({
      quote: scrubText(e.quote),
      platform: e.platform,
      channel_name: e.channel_name,
      posted_at: iso(e.posted_at),
      source_url: threadUrl(e.source_url),
    })),
  };
}
