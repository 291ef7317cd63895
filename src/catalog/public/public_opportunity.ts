/**
 * What anyone may see of an opportunity, without a key: the public page at its canonical `url`
 * (src/web/public/opportunity_page.ts). The statement reads only these columns, so the paid fields
 * (description, market size, features, competitors, differentiation, risks, evidence quotes)
 * cannot reach the page by accident: they are never selected.
 */
import type { Sql } from "../../db/open.ts";
import type { QueryContext } from "../common.ts";
import { iso, isRowId } from "../../db/rows.ts";
import { opportunityUrl, scoresOf } from "../lists/opportunities.ts";
import { weeklyMentions } from "../themes/theme_history.ts";

/** The public facts of one opportunity. */
export interface PublicOpportunity {
  id: number;
  slug: string;
  title: string;
  recommendation: "Build" | "Validate" | "Skip";
  score: number;
  pain_point_intensity: number;
  willingness_to_pay_score: number;
  tech_difficulty: number;
  sustainability_score: number;
  target_audience: string;
  evidence_count: number;
  created_at: string;
  updated_at: string;
  theme: { id: number; slug: string; name: string; trend_status: string | null };
  /** The theme's last 26 weeks of mentions (docs/trends.md), oldest first. */
  theme_weekly: { start: string; mentions: number }[];
  category: { slug: string; name: string };
  /** The newest published article about it, as related_article_url finds it. */
  related_article: { title: string; url: string } | null;
  /** The canonical page. */
  url: string;
}

type Row =
  & Omit<
    PublicOpportunity,
    "theme" | "theme_weekly" | "category" | "related_article" | "url"
  >
  & {
    created_at: Date;
    updated_at: Date;
    theme_id: number;
    theme_slug: string;
    theme_name: string;
    trend_status: string | null;
    category_slug: string;
    category_name: string;
    article_slug: string | null;
    article_title: string | null;
  };

/** The public facts of opportunity `id`, or undefined when there is none. */
export async function getPublicOpportunity(
  sql: Sql,
  id: number,
  ctx: QueryContext,
): Promise<PublicOpportunity | undefined> {
  if (!isRowId(id)) return undefined;
  const [row]: [Row?] = await sql`
    select o.id, o.slug, o.title, o.recommendation, o.score, o.pain_point_intensity,
      o.willingness_to_pay_score, o.tech_difficulty, o.sustainability_score, o.target_audience,
      o.evidence_count, o.created_at, o.updated_at,
      t.id as theme_id, t.slug as theme_slug, t.name as theme_name,
      t.trend_status, c.slug as category_slug, c.name as category_name,
      b.slug as article_slug, b.title as article_title
    from opportunities o
    join themes t on t.id = o.theme_id
    join categories c on c.id = t.category_id
    left join lateral (
      select b.slug, b.title from blog_posts b
      where b.related_opportunity_id = o.id and b.published_at <= now()
      order by b.published_at desc, b.slug limit 1
    ) b on true
    where o.id = ${id}`;
  if (!row) return undefined;
  const base = ctx.publicBaseUrl;
  return {
    id: row.id,
    slug: row.slug,
    title: row.title,
    ...scoresOf(row),
    target_audience: row.target_audience,
    evidence_count: row.evidence_count,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    theme: {
      id: row.theme_id,
      slug: row.theme_slug,
      name: row.theme_name,
      trend_status: row.trend_status,
    },
    theme_weekly: await weeklyMentions(sql, row.theme_id),
    category: { slug: row.category_slug, name: row.category_name },
    related_article: row.article_slug === null ? null : {
      title: row.article_title!,
      url: `${base}/blog/${row.article_slug}`,
    },
    url: opportunityUrl(base, row.id, row.slug),
  };
}
