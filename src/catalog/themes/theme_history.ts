/**
 * A theme's mention history (theme_mentions, sql/0015_theme_trends.sql): the weekly points of
 * its detail and the history by week or month of GET /api/v1/themes/{id}/history and the
 * get_theme_history tool. The newest day of any theme's points is "now" of the data: a theme
 * without points in its last weeks counts zeros there.
 */
import type { Sql } from "../../db/open.ts";
import { isRowId } from "../../db/rows.ts";
import type { ThemeHistory, ThemeHistoryQuery } from "../trend_schemas.ts";
import type { QueryContext } from "../common.ts";
import { themeRefOf } from "../theme_ref.ts";
import { themeNotFound, themeWhere } from "./theme_lookup.ts";
import { themeUrl } from "../lists/list_items.ts";

/** The weeks a theme detail shows. */
export const DETAIL_WEEKS = 26;

/** The last `weeks` weeks of a theme up to the newest week of data, from its first week on. */
export async function weeklyMentions(
  sql: Sql,
  id: number,
  weeks = DETAIL_WEEKS,
): Promise<{ start: string; mentions: number }[]> {
  const rows = await sql<{ start: string; mentions: number }[]>`
    with ref as (select date_trunc('week', max(day))::date as week from theme_mentions),
    first as (
      select date_trunc('week', min(day))::date as week from theme_mentions where theme_id = ${id}
    ),
    span as (
      select greatest(ref.week - ${7 * (weeks - 1)}::int, first.week) as lo, ref.week as hi
      from ref, first where first.week is not null
    ),
    sums as (
      select date_trunc('week', m.day)::date as week, sum(m.mentions)::int as n
      from theme_mentions m, span
      where m.theme_id = ${id} and m.day >= span.lo and m.day < span.hi + 7
      group by 1
    )
    select to_char(w.week, 'YYYY-MM-DD') as start, coalesce(s.n, 0) as mentions
    from span, generate_series(span.lo, span.hi, interval '7 days') as w(week)
    left join sums s on s.week = w.week::date
    order by w.week`;
  return [...rows];
}

/** A theme's mentions (by id or slug) per week or month between two days (both optional). */
export async function getThemeHistory(
  sql: Sql,
  query: ThemeHistoryQuery,
  ctx: QueryContext,
): Promise<ThemeHistory> {
  const { interval } = query;
  const ref = themeRefOf(query);
  if (ref.slug === undefined && !isRowId(ref.id)) throw themeNotFound(ref);
  const [theme] = await sql<Omit<ThemeHistory["theme"], "url">[]>`
    select t.id, t.slug, t.name, c.slug as category, t.trend_status
    from themes t join categories c on c.id = t.category_id where ${themeWhere(sql, ref)}`;
  if (!theme) throw themeNotFound(ref);
  const id = theme.id;
  const step = interval === "week" ? "7 days" : "1 month";
  const rows = await sql<{ lo: string; hi: string; start: string; mentions: number }[]>`
    with span as (
      select greatest(min(m.day), ${query.from ?? null}::date) as lo,
        least((select max(day) from theme_mentions), ${query.to ?? null}::date) as hi
      from theme_mentions m where m.theme_id = ${id}
    ),
    sums as (
      select date_trunc(${interval}, m.day)::date as period, sum(m.mentions)::int as n
      from theme_mentions m, span
      where m.theme_id = ${id} and m.day between span.lo and span.hi
      group by 1
    )
    select to_char(span.lo, 'YYYY-MM-DD') as lo, to_char(span.hi, 'YYYY-MM-DD') as hi,
      to_char(p.period, 'YYYY-MM-DD') as start, coalesce(s.n, 0) as mentions
    from span,
      generate_series(date_trunc(${interval}, span.lo), date_trunc(${interval}, span.hi),
        ${step}::interval) as p(period)
    left join sums s on s.period = p.period::date
    where span.lo <= span.hi
    order by p.period`;
  const points = rows.map(({ start, mentions }) => ({ start, mentions }));
  return {
    theme: { ...theme, url: themeUrl(ctx.publicBaseUrl, theme.slug) },
    interval,
    from: rows[0]?.lo ?? null,
    to: rows[0]?.hi ?? null,
    points,
    total_mentions: points.reduce((sum, p) => sum + p.mentions, 0),
  };
}

/** A theme as the Trends page shows it: status, growth and its last weeks. */
export interface ThemeTrend {
  id: number;
  slug: string;
  name: string;
  category: string;
  trend_status: string | null;
  trend_change: number;
  growth_7d: number | null;
  growth_90d: number | null;
  growth_1y: number | null;
  weekly: { start: string; mentions: number }[];
}

/**
 * The themes of one status (every theme with a status when none is given), fastest growing over
 * 30 days first, at most `limit`, each with its last DETAIL_WEEKS weeks.
 */
export async function listThemeTrends(
  sql: Sql,
  options: { status?: string; limit: number },
): Promise<ThemeTrend[]> {
  const rows = await sql<Omit<ThemeTrend, "weekly">[]>`
    select t.id, t.slug, t.name, c.name as category, t.trend_status, t.trend_change,
      t.growth_7d, t.growth_90d, t.growth_1y
    from themes t join categories c on c.id = t.category_id
    where ${
    options.status ? sql`t.trend_status = ${options.status}` : sql`t.trend_status is not null`
  }
    order by t.trend_change desc, t.id
    limit ${options.limit}`;
  return await Promise.all(
    rows.map(async (row) => ({ ...row, weekly: await weeklyMentions(sql, row.id) })),
  );
}
