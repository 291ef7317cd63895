/**
 * The exact total of a list without `q`, summed from the summary tables of
 * sql/*_list_counts.sql (kept in step with every write by triggers), never by a scan of
 * opportunities: the narrowest table that still has every given filter column is read.
 */
import type postgres from "postgres";
import type { Sql } from "../db/open.ts";
import type { OpportunityQuery } from "./schemas.ts";
import type { ScoreCounts } from "./score_band.ts";
import { hasSubScoreFilter, type SubScoreFilter, subScoreFilter } from "./sub_scores.ts";

/** The filters a summary can count: every list filter but `q`. */
export type CountFilter =
  & Pick<
    OpportunityQuery,
    "platform" | "channel" | "min_score" | "recommendation" | "category" | "online_only"
  >
  & SubScoreFilter
  & { theme?: string };

/**
 * Which summary table counts `filter`: the smallest one keyed by every filter given. The
 * sub-scores are kept only with the platform, verdict and score (sql/0020_sub_scores.sql): a
 * sub-score filter with a channel, category or theme is counted in opportunities itself, whose
 * rows those filters narrow.
 */
function summaryOf(sql: Sql, filter: CountFilter): postgres.Fragment {
  if (hasSubScoreFilter(filter)) {
    return filter.channel || filter.category || filter.theme
      ? sql`opportunities`
      : sql`opportunity_counts_by_scores`;
  }
  if (filter.channel) return sql`opportunity_counts`;
  if (filter.category || filter.theme) return sql`opportunity_counts_by_theme`;
  return sql`opportunity_counts_by_platform`;
}

/** How many opportunities match `filter`, from the summary tables (no `q`). */
export async function countFromSummary(sql: Sql, filter: CountFilter): Promise<number> {
  return (await scoreCountsFromSummary(sql, filter)).total;
}

/**
 * How many opportunities match `filter` at each score, highest first (only scores that have
 * some), from the summary tables: the total, and the score band of any page (score_band.ts).
 */
export async function scoreCountsFromSummary(
  sql: Sql,
  filter: CountFilter,
): Promise<ScoreCounts> {
  const summary = summaryOf(sql, filter);
  const n = hasSubScoreFilter(filter) && (filter.channel || filter.category || filter.theme)
    ? sql`count(*)`
    : sql`sum(c.n)`;
  const rows = await sql<{ score: number; n: number }[]>`
    select c.score::int as score, ${n}::float8 as n from ${summary} c
    where true
    ${filter.online_only ? sql`and c.is_online_deliverable` : sql``}
    ${filter.platform ? sql`and lower(c.platform) = lower(${filter.platform})` : sql``}
    ${
    filter.channel
      ? sql`and md5(c.channel_name) = md5(${filter.channel}) and c.channel_name = ${filter.channel}`
      : sql``
  }
    ${filter.min_score > 0 ? sql`and c.score >= ${filter.min_score}` : sql``}
    ${filter.recommendation ? sql`and c.recommendation = ${filter.recommendation}` : sql``}
    ${subScoreFilter(sql, filter, "c")}
    ${
    filter.category
      ? sql`and c.theme_id in (
          select t.id from themes t join categories g on g.id = t.category_id
          where g.slug = ${filter.category})`
      : sql``
  }
    ${
    filter.theme
      ? sql`and c.theme_id = (select t.id from themes t where t.slug = ${filter.theme})`
      : sql``
  }
    group by c.score having ${n} > 0 order by c.score desc`;
  return {
    total: rows.reduce((sum, r) => sum + r.n, 0),
    scores: rows.map((r) => r.score),
    counts: rows.map((r) => r.n),
  };
}

/** How many opportunities within some sub-score bounds have a score, a verdict and a platform. */
export interface BoundsRow {
  score: number;
  recommendation: string;
  /** Lowercased by PostgreSQL, as the platform filter compares it. */
  platform: string;
  n: number;
}

/**
 * Whether the count of `filter` can come from the breakdown of its bounds (boundsBreakdown): it
 * has sub-score bounds, no channel, category or theme, and a platform of printable ASCII, which
 * JavaScript lowercases as PostgreSQL does. Lists that differ only in platform, verdict or
 * minimum score then share one summary read (a cold list with bounds is otherwise a sum over up
 * to 200,000 summary rows at a million opportunities).
 */
export function countsByBounds(filter: CountFilter): boolean {
  return hasSubScoreFilter(filter) && !filter.channel && !filter.category && !filter.theme &&
    (filter.platform === undefined || /^[\x20-\x7e]*$/.test(filter.platform));
}

/** What the breakdown of `filter` depends on: online_only and the four bounds. */
export function boundsKey(filter: CountFilter): Record<string, unknown> {
  return {
    online_only: filter.online_only,
    min_pain_point_intensity: filter.min_pain_point_intensity,
    min_willingness_to_pay: filter.min_willingness_to_pay,
    max_tech_difficulty: filter.max_tech_difficulty,
    min_sustainability: filter.min_sustainability,
  };
}

/** The opportunities within `filter`'s bounds (and online_only) by score, verdict and platform. */
export async function boundsBreakdown(sql: Sql, filter: CountFilter): Promise<BoundsRow[]> {
  return await sql<BoundsRow[]>`
    select c.score::int as score, c.recommendation, lower(c.platform) as platform,
      sum(c.n)::float8 as n
    from opportunity_counts_by_scores c
    where true ${filter.online_only ? sql`and c.is_online_deliverable` : sql``}
    ${subScoreFilter(sql, filter, "c")}
    group by 1, 2, 3 having sum(c.n) > 0`;
}

/** `filter`'s counts per score from the breakdown of its bounds (as scoreCountsFromSummary). */
export function scoreCountsOfBounds(rows: BoundsRow[], filter: CountFilter): ScoreCounts {
  const platform = filter.platform?.toLowerCase();
  const byScore = new Map<number, number>();
  for (const r of rows) {
    if (platform !== undefined && r.platform !== platform) continue;
    if (filter.recommendation && r.recommendation !== filter.recommendation) continue;
    if (r.score < filter.min_score) continue;
    byScore.set(r.score, (byScore.get(r.score) ?? 0) + r.n);
  }
  const scores = [...byScore.keys()].sort((a, b) => b - a);
  const counts = scores.map((s) => byScore.get(s)!);
  return { total: counts.reduce((sum, n) => sum + n, 0), scores, counts };
}
