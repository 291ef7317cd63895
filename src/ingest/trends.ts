/**
 * What an import derives from the theme mention points, in its transaction: for every theme
 * with points, the 30-day figures (mentions_30d, mentions_prev_30d), the lifecycle status and
 * the growth over 7 days, 90 days and a year (src/catalog/trend_rule.ts), and a row in
 * theme_status_changes for each status that changed (what the theme watches deliver).
 */
import type { Sql } from "../db/open.ts";
import { growth, GROWTH_WINDOWS, thirtyDays, trendStatus } from "../catalog/trend_rule.ts";
import type { Row } from "./writer_sql.ts";

/** Weeks read per theme: two years, for the growth over a year against the year before. */
export const SERIES_WEEKS = 2 * GROWTH_WINDOWS["1y"];

/**
 * The weekly series of every theme with points, ending at the reference week (the week of the
 * newest point of any theme, so a theme without recent points counts zeros), oldest first,
 * starting at its first week with a point (at most SERIES_WEEKS weeks).
 */
export async function weeklySeries(sql: Sql): Promise<Map<number, number[]>> {
  const rows = await sql<{ theme_id: number; ago: number; n: number }[]>`
    with ref as (select date_trunc('week', max(day))::date as week from theme_mentions)
    select m.theme_id, (ref.week - date_trunc('week', m.day)::date) / 7 as ago,
      sum(m.mentions)::int as n
    from theme_mentions m, ref
    where m.day >= ref.week - ${7 * (SERIES_WEEKS - 1)}::int
    group by m.theme_id, ago`;
  const series = new Map<number, number[]>();
  for (const row of rows) {
    let weeks = series.get(row.theme_id);
    if (!weeks) series.set(row.theme_id, weeks = []);
    weeks[row.ago] = row.n;
  }
  for (const [id, byAgo] of series) {
    const out: number[] = [];
    for (let ago = byAgo.length - 1; ago >= 0; ago--) out.push(byAgo[ago] ?? 0);
    series.set(id, out);
  }
  return series;
}

/** The stored figures of one theme from its weekly series. */
export function trendFigures(id: number, weeks: number[]): Row {
  return {
    id,
    trend_status: trendStatus(weeks),
    growth_7d: growth(weeks, GROWTH_WINDOWS["7d"]),
    growth_90d: growth(weeks, GROWTH_WINDOWS["90d"]),
    growth_1y: growth(weeks, GROWTH_WINDOWS["1y"]),
    mentions_30d: thirtyDays(weeks),
    mentions_prev_30d: thirtyDays(weeks, 4),
  };
}

/**
 * Recomputes the figures of every theme with points and records the status changes; returns
 * the number of themes whose figures changed.
 */
export async function recomputeTrends(sql: Sql): Promise<number> {
  const series = await weeklySeries(sql);
  if (series.size === 0) return 0;
  const rows = [...series].map(([id, weeks]) => trendFigures(id, weeks));
  // Every part of one statement sees the table as it was before it: `before` is the old status.
  const [{ n }] = await sql<{ n: number }[]>`
    with x as (
      select * from jsonb_to_recordset(${JSON.stringify(rows)}::text::jsonb) as x(id integer,
        trend_status text, growth_7d float8, growth_90d float8, growth_1y float8,
        mentions_30d integer, mentions_prev_30d integer)
    ), before as (
      select t.id, t.trend_status from themes t join x on x.id = t.id
    ), changed as (
      update themes t set trend_status = x.trend_status, growth_7d = x.growth_7d,
        growth_90d = x.growth_90d, growth_1y = x.growth_1y, mentions_30d = x.mentions_30d,
        mentions_prev_30d = x.mentions_prev_30d, updated_at = now()
      from x
      where x.id = t.id and (t.trend_status, t.growth_7d, t.growth_90d, t.growth_1y,
          t.mentions_30d, t.mentions_prev_30d)
        is distinct from (x.trend_status, x.growth_7d, x.growth_90d, x.growth_1y,
          x.mentions_30d, x.mentions_prev_30d)
      returning t.id, x.trend_status
    ), recorded as (
      insert into theme_status_changes (theme_id, from_status, to_status)
      select c.id, b.trend_status, c.trend_status
      from changed c join before b on b.id = c.id
      where c.trend_status is not null and c.trend_status is distinct from b.trend_status
      order by c.id
      returning 1
    )
    select (select count(*) from changed)::int + 0 * (select count(*) from recorded)::int as n`;
  return n;
}
