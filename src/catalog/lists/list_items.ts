/**
 * The list item of an opportunity: its columns, its row before shaping and the shaping itself
 * (every answer that lists opportunities shows them so).
 */
import type postgres from "postgres";
import type { Sql } from "../../db/open.ts";
import { iso } from "../../db/rows.ts";
import type { OpportunityListItem } from "../schemas.ts";

/** A row of listColumns, before shaping. */
export type ListRow = Omit<OpportunityListItem, "created_at" | "url"> & {
  created_at: Date | string;
  /** Sort keys of a page's rows, for its next_cursor: created_at in microseconds, the rank. */
  k_us?: string;
  k_rank?: number;
};

/** The list-item columns of `opportunities o`, in the order of the specification. */
export function listColumns(sql: Sql): postgres.Fragment {
  return sql`
    o.id, o.platform, o.channel_name, o.title, o.slug, o.recommendation, o.score,
    o.pain_point_intensity, o.willingness_to_pay_score, o.tech_difficulty,
    o.sustainability_score, o.target_audience, o.monetization_model, o.evidence_count,
    o.merged_from_count, o.is_online_deliverable, o.created_at`;
}

/** The list sort: score, then newest, then id, so that paging is stable. */
export function listOrder(sql: Sql): postgres.Fragment {
  return sql`order by o.score desc, o.created_at desc, o.id desc`;
}

/**
 * The canonical public page of an opportunity (src/web/public/opportunity_page.ts serves it): the id
 * finds it, the slug only makes the address readable, so a renamed opportunity keeps its links.
 */
export function opportunityUrl(base: string, id: number, slug: string): string {
  return `${base}/opportunities/${id}/${slug}`;
}

/** The public page of a theme (src/web/public/theme_page.ts serves it). */
export function themeUrl(base: string, slug: string): string {
  return `${base}/themes/${slug}`;
}

/** The public page of a category (src/web/public/category_page.ts serves it). */
export function categoryUrl(base: string, slug: string): string {
  return `${base}/categories/${slug}`;
}

/** The scores of an opportunity, named and in the order of every answer that carries them. */
export function scoresOf(row: Scores): Scores {
  return {
    recommendation: row.recommendation,
    score: row.score,
    pain_point_intensity: row.pain_point_intensity,
    willingness_to_pay_score: row.willingness_to_pay_score,
    tech_difficulty: row.tech_difficulty,
    sustainability_score: row.sustainability_score,
  };
}

type Scores = Pick<
  OpportunityListItem,
  | "recommendation"
  | "score"
  | "pain_point_intensity"
  | "willingness_to_pay_score"
  | "tech_difficulty"
  | "sustainability_score"
>;

/** Shapes a row of listColumns into a list item; `base` is the public base URL. */
export function toListItem(row: ListRow, base: string): OpportunityListItem {
  return {
    id: row.id,
    platform: row.platform,
    channel_name: row.channel_name,
    title: row.title,
    slug: row.slug,
    ...scoresOf(row),
    target_audience: row.target_audience,
    monetization_model: row.monetization_model,
    evidence_count: row.evidence_count,
    merged_from_count: row.merged_from_count,
    is_online_deliverable: row.is_online_deliverable,
    created_at: iso(row.created_at),
    url: opportunityUrl(base, row.id, row.slug),
  };
}
