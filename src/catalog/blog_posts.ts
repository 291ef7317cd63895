import type postgres from "postgres";
import type { Sql } from "../db/open.ts";
import { NotFoundError } from "../platform/errors.ts";
import type { BlogList, BlogListItem, BlogPost, BlogQuery } from "./schemas.ts";
import { matchesKeywords, pageWindow, type QueryContext } from "./common.ts";
import { iso } from "../db/rows.ts";
import { searchUnits } from "./search.ts";

type ListRow = Omit<BlogListItem, "url" | "published_at"> & { published_at: Date };

function listColumns(sql: Sql): postgres.Fragment {
  return sql`
    b.slug, b.title, b.excerpt, b.cover_image_url, b.tags, b.related_opportunity_id,
    b.published_at`;
}

/** Only published articles: a publication date that has come. */
function published(sql: Sql): postgres.Fragment {
  return sql`b.published_at is not null and b.published_at <= now()`;
}

function toListItem(row: ListRow, ctx: QueryContext): BlogListItem {
  return {
    slug: row.slug,
    title: row.title,
    excerpt: row.excerpt,
    cover_image_url: row.cover_image_url,
    tags: row.tags,
    url: `${ctx.publicBaseUrl}/blog/${row.slug}`,
    related_opportunity_id: row.related_opportunity_id,
    published_at: iso(row.published_at),
  };
}

/** One page of published articles, newest first, then by slug. */
export async function listBlogPosts(
  sql: Sql,
  query: BlogQuery,
  ctx: QueryContext,
): Promise<BlogList> {
  const where = sql`where ${published(sql)}
    ${matchesKeywords(sql, sql`b.search`, query.q)}`;
  const [rows, [{ total }]] = await Promise.all([
    sql<ListRow[]>`
      select ${listColumns(sql)} from blog_posts b ${where}
      order by b.published_at desc, b.slug ${pageWindow(sql, query.page, query.page_size)}`,
    sql<{ total: number }[]>`select count(*)::int as total from blog_posts b ${where}`,
  ]);
  if (total > 0 || !query.q?.trim()) {
    return {
      items: rows.map((r) => toListItem(r, ctx)),
      total,
      page: query.page,
      page_size: query.page_size,
      match: "all",
    };
  }
  return await bestMatch(sql, query, ctx);
}

/**
 * Best match (src/catalog/search.ts) of a blog `q` that no article matches as a whole: the
 * articles matching any unit and no exclusion, the most units first, then newest.
 */
async function bestMatch(sql: Sql, query: BlogQuery, ctx: QueryContext): Promise<BlogList> {
  const { units, exclusions } = searchUnits(query.q);
  const excluded = exclusions.join(" ");
  const rows = await sql<(ListRow & { total: number })[]>`
    with u as materialized (
      select q from (
        select oi_search_terms(t) as q
        from jsonb_array_elements_text(${JSON.stringify(units)}::text::jsonb) as x(t)
      ) x
      where numnode(q) > 0
    ),
    hit as (
      select b.*, (select count(*) from u where b.search @@ u.q) as hits
      from blog_posts b
      where ${published(sql)} and (select count(*) from u) > 1
        and exists (select 1 from u where b.search @@ u.q)
        ${excluded ? sql`and b.search @@ oi_search_query(${excluded})` : sql``}
    )
    select ${listColumns(sql)}, count(*) over ()::int as total from hit b
    order by b.hits desc, b.published_at desc, b.slug ${
    pageWindow(sql, query.page, query.page_size)
  }`;
  // A page past the end has no row to carry the total: count again.
  const total = rows[0]?.total ?? (query.page > 1 ? await countAny() : 0);
  return {
    items: rows.map((r) => toListItem(r, ctx)),
    total,
    page: query.page,
    page_size: query.page_size,
    match: total > 0 ? "any" : "all",
  };

  async function countAny(): Promise<number> {
    const { total } = await bestMatch(sql, { ...query, page: 1 }, ctx);
    return total;
  }
}

/** One published article with its Markdown body; drafts and scheduled ones are not found. */
export async function getBlogPost(sql: Sql, slug: string, ctx: QueryContext): Promise<BlogPost> {
  const [row]: [(ListRow & { body_md: string; updated_at: Date | null })?] = await sql`
    select ${listColumns(sql)}, b.body_md, b.updated_at
    from blog_posts b where b.slug = ${slug} and ${published(sql)}`;
  if (!row) throw new NotFoundError(`Cannot find blog post "${slug}"`);
  return { ...toListItem(row, ctx), body_md: row.body_md, updated_at: iso(row.updated_at) };
}
