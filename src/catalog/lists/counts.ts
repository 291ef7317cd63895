/**
 * The exact total of a list without `q`, summed from the summary tables of
 * sql/*_list_counts.sql (kept in step with every write by triggers), never by a scan of
 * opportunities: the narrowest table that still has every given filter column is read.
 */
import type postgres from "postgres";
import type { Sql } from "../../db/open.ts";
import type { OpportunityQuery } from "../schemas.ts";
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
