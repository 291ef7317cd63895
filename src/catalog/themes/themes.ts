/**
 * src/catalog/themes/: categories, themes and what is trending. This file reads the overview,
 * categories, themes and their details; theme_history.ts their weekly mentions, and
 * theme_lookup.ts a theme by id or slug. The trend rule and trend schemas are shared with the
 * watches and ingest, so they stay at the catalogue's top (trend_rule.ts, trend_schemas.ts).
 */
import type postgres from "postgres";
import type { Sql } from "../../db/open.ts";
import type {
  Category,
  Overview,
  Theme,
  ThemeDetail,
  TrendingQuery,
  TrendingThemes,
} from "../schemas.ts";
import type { QueryContext } from "../common.ts";
import { iso, isRowId } from "../../db/rows.ts";
import { listColumns, listOrder, type ListRow, toListItem } from "../lists/opportunities.ts";
import { categoryUrl, themeUrl } from "../lists/list_items.ts";
import { weeklyMentions } from "./theme_history.ts";
import type { ThemeRef } from "../theme_ref.ts";
import { themeNotFound, themeWhere } from "./theme_lookup.ts";

export type ThemeRow = Omit<Theme, "updated_at" | "growth" | "url"> & {
  updated_at: Date;
  growth_7d: number | null;
  growth_90d: number | null;
  growth_1y: number | null;
};

/** Theme records with their category slug and opportunity statistics, from `themes t`. */
export function themeSelect(sql: Sql): postgres.Fragment {
  return sql`
    select t.id, t.slug, t.name, c.slug as category, t.summary, t.trend_direction,
      t.trend_change, t.mentions_30d, t.mentions_prev_30d, t.trend_status, t.growth_7d,
      t.growth_90d, t.growth_1y, s.opportunity_count, s.avg_score, t.updated_at
    from themes t
    join categories c on c.id = t.category_id
    cross join lateral (
      select count(*)::int as opportunity_count, round(avg(o.score), 1)::float8 as avg_score
      from opportunities o where o.theme_id = t.id
    ) s`;
}

/** Shapes a row of themeSelect into a theme; `base` is the public base URL. */
export function toTheme(row: ThemeRow, base: string): Theme {
  const { growth_7d, growth_90d, growth_1y, updated_at, ...theme } = row;
  return {
    ...theme,
    growth: { "7d": growth_7d, "30d": row.trend_change, "90d": growth_90d, "1y": growth_1y },
    updated_at: iso(updated_at),
    url: themeUrl(base, row.slug),
  };
}

/** The column of each growth window (30 days is trend_change). */
function growthColumn(sql: Sql, window: TrendingQuery["window"]): postgres.Fragment {
  switch (window) {
    case "7d":
      return sql`t.growth_7d`;
    case "90d":
      return sql`t.growth_90d`;
    case "1y":
      return sql`t.growth_1y`;
    default:
      return sql`t.trend_change`;
  }
}

/**
 * Themes growing by 10% or more over the window (for 30 days: trend_direction up), by that
 * growth, or with a status the themes of that status by it; optionally of one category. Each
 * filter has its index (sql/0015_theme_trends.sql).
 */
export async function listTrendingThemes(
  sql: Sql,
  query: TrendingQuery,
  ctx: QueryContext,
): Promise<TrendingThemes> {
  const growth = growthColumn(sql, query.window);
  const filter = query.status
    ? sql`t.trend_status = ${query.status}`
    : query.window === "30d"
    ? sql`t.trend_direction = 'up'`
    : sql`${growth} >= 10`;
  // Growth over 7d, 90d and 1y is null for a short history: last in a status list. Each order
  // is the order of its index (sql/0013_theme_trends.sql).
  const nullsLast = query.status && query.window !== "30d";
  const order = sql`order by ${growth} desc ${nullsLast ? sql`nulls last` : sql``}, t.id`;
  // The page's ids first, then their statistics: the opportunity counts of themeSelect are
  // computed for the page only, not for every theme of a status before the sort.
  const rows = await sql<ThemeRow[]>`
    ${themeSelect(sql)}
    where t.id = any(array(
      select t.id from themes t join categories c on c.id = t.category_id
      where ${filter}
      ${query.category ? sql`and c.slug = ${query.category}` : sql``}
      ${order}
      limit ${query.limit}))
    ${order}`;
  return { items: rows.map((row) => toTheme(row, ctx.publicBaseUrl)) };
}

/** One theme, by id or slug, and its ten best opportunities. */
export async function getTheme(sql: Sql, ref: ThemeRef, ctx: QueryContext): Promise<ThemeDetail> {
  // A slug is read as its id first: the three reads below run at once, by id.
  const id = ref.slug === undefined ? ref.id : (await sql<{ id: number }[]>`
    select t.id from themes t where ${themeWhere(sql, ref)}`)[0]?.id;
  if (id === undefined || !isRowId(id)) throw themeNotFound(ref);
  const [[theme], weekly, top] = await Promise.all([
    sql<ThemeRow[]>`${themeSelect(sql)} where t.id = ${id}`,
    weeklyMentions(sql, id),
    sql<ListRow[]>`
      select ${listColumns(sql)}
      from opportunities o where o.theme_id = ${id} ${listOrder(sql)} limit 10`,
  ]);
  if (!theme) throw themeNotFound(ref);
  return {
    theme: toTheme(theme, ctx.publicBaseUrl),
    weekly_mentions: weekly,
    top_opportunities: top.map((row) => toListItem(row, ctx.publicBaseUrl)),
  };
}

/** Every category with its theme and opportunity counts, by name. */
export async function listCategories(
  sql: Sql,
  ctx: QueryContext,
): Promise<{ items: Category[] }> {
  const items = await sql<Omit<Category, "url">[]>`
    select c.id, c.slug, c.name, c.description,
      (select count(*)::int from themes t where t.category_id = c.id) as theme_count,
      (select count(*)::int from opportunities o join themes t on t.id = o.theme_id
        where t.category_id = c.id) as opportunity_count
    from categories c order by c.name, c.id`;
  return { items: items.map((c) => ({ ...c, url: categoryUrl(ctx.publicBaseUrl, c.slug) })) };
}

/**
 * The overview as `plan` may read it: on Free the themes' 1-year window is null (paid, like the
 * full history); the windows up to 90 days follow from the public 26 weeks and stay
 * (docs/DECISIONS.md, the public line).
 */
export function overviewForPlan(overview: Overview, plan: string): Overview {
  if (plan !== "free") return overview;
  return {
    ...overview,
    trending: overview.trending.map((t) => ({ ...t, growth: { ...t.growth, "1y": null } })),
  };
}

/** The landscape: categories with counts, the five fastest-rising themes, and totals. */
export async function getOverview(sql: Sql, ctx: QueryContext): Promise<Overview> {
  const [{ items: categories }, trending, [totals]] = await Promise.all([
    listCategories(sql, ctx),
    sql<ThemeRow[]>`
      ${themeSelect(sql)}
      where t.id = any(array(select id from themes order by trend_change desc, id limit 5))
      order by t.trend_change desc, t.id`,
    sql<{ categories: number; themes: number; opportunities: number }[]>`
      select (select count(*)::int from categories) as categories,
        (select count(*)::int from themes) as themes,
        (select count(*)::int from opportunities) as opportunities`,
  ]);
  return {
    categories,
    trending: trending.map((row) => toTheme(row, ctx.publicBaseUrl)),
    totals: { ...totals },
    generated_at: new Date().toISOString(),
  };
}
