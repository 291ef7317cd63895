/**
 * src/catalog/public/: what is shown without a key, and answers made to be cited: the public
 * catalogue's themes and categories (this file), an opportunity's public page
 * (public_opportunity.ts), its search (public_search.ts), the sitemap (sitemap.ts), and the
 * ChatGPT connector's `search` and `fetch` shapes (connector.ts).
 *
 * What the public catalogue pages (src/web/public/) show of themes and categories, without a key:
 * a theme's name, summary, lifecycle status, category, opportunity count, its last 26 weeks of
 * mentions, the growth windows up to 90 days (which follow from those weeks) and its best
 * opportunities; a category's name, description, its themes (the same public facts) and counts
 * (docs/DECISIONS.md, the public line). The 1-year window, the full history and lists by status
 * are paid: the shapes below have no field for them, so a page cannot show one by accident. The
 * theme's detail is read by getTheme, the API's own query.
 */
import type { Sql } from "../../db/open.ts";
import type { QueryContext } from "../common.ts";
import type { OpportunityListItem } from "../schemas.ts";
import type { Theme } from "../schemas.ts";
import { getTheme } from "../themes/themes.ts";

/** The public facts of a theme as lists show it. */
export interface PublicThemeItem {
  id: number;
  slug: string;
  name: string;
  summary: string;
  trend_status: Theme["trend_status"];
  opportunity_count: number;
}

/** A theme's public page. */
export interface PublicTheme extends PublicThemeItem {
  category: { slug: string; name: string };
  /** The last 26 weeks of mentions, oldest first. */
  weekly: { start: string; mentions: number }[];
  /** Growth over 7, 30 and 90 days (percent; null for a short history): never the year's. */
  growth: { "7d": number | null; "30d": number; "90d": number | null };
  /** Its ten best opportunities by score. */
  top: OpportunityListItem[];
}

/** A category's public page (its best opportunities come from the list query). */
export interface PublicCategory {
  id: number;
  slug: string;
  name: string;
  description: string;
  opportunity_count: number;
  themes: PublicThemeItem[];
}

/** The public facts of the theme with `slug`, or undefined when there is none. */
export async function getPublicTheme(
  sql: Sql,
  slug: string,
  ctx: QueryContext,
): Promise<PublicTheme | undefined> {
  const [row] = await sql<{ id: number; category_slug: string; category_name: string }[]>`
    select t.id, c.slug as category_slug, c.name as category_name
    from themes t join categories c on c.id = t.category_id where t.slug = ${slug}`;
  if (!row) return undefined;
  const detail = await getTheme(sql, { id: row.id }, ctx);
  const t = detail.theme;
  return {
    id: t.id,
    slug: t.slug,
    name: t.name,
    summary: t.summary,
    trend_status: t.trend_status,
    opportunity_count: t.opportunity_count,
    category: { slug: row.category_slug, name: row.category_name },
    weekly: detail.weekly_mentions,
    growth: { "7d": t.growth["7d"], "30d": t.growth["30d"], "90d": t.growth["90d"] },
    top: detail.top_opportunities,
  };
}

/** The category with `slug` and its themes (most opportunities first), or undefined. */
export async function getPublicCategory(
  sql: Sql,
  slug: string,
): Promise<PublicCategory | undefined> {
  const [category] = await sql<Omit<PublicCategory, "themes" | "opportunity_count">[]>`
    select c.id, c.slug, c.name, c.description from categories c where c.slug = ${slug}`;
  if (!category) return undefined;
  const themes = await sql<PublicThemeItem[]>`
    select t.id, t.slug, t.name, t.summary, t.trend_status,
      (select count(*)::int from opportunities o where o.theme_id = t.id) as opportunity_count
    from themes t where t.category_id = ${category.id}
    order by opportunity_count desc, t.name, t.id`;
  return {
    ...category,
    opportunity_count: themes.reduce((sum, t) => sum + t.opportunity_count, 0),
    themes: [...themes],
  };
}

/** The platforms opportunities come from, lowercased, by name (from the summary counts). */
export async function listPlatforms(sql: Sql): Promise<string[]> {
  const rows = await sql<{ platform: string }[]>`
    select lower(platform) as platform from opportunity_counts_by_platform
    group by 1 having sum(n) > 0 order by 1`;
  return rows.map((r) => r.platform);
}
