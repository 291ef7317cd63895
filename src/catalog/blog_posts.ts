import type postgres from "postgres";
import type { Sql } from "../db/open.ts";
import { NotFoundError } from "../platform/errors.ts";
import type { BlogList, BlogListItem, BlogPost, BlogQuery } from "./schemas.ts";
import { matchesKeywords, pageWindow, type QueryContext } from "./common.ts";
import { iso } from "../db/rows.ts";

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
  return {
    items: rows.map((r) => toListItem(r, ctx)),
    total,
    page: query.page,
    page_size: query.page_size,
  };
}

/** One published article with its Markdown body; drafts and scheduled ones are not found. */
export async function getBlogPost(sql: Sql, slug: string, ctx: QueryContext): Promise<BlogPost> {
  const [row]: [(ListRow & { body_md: string; updated_at: Date | null })?] = await sql`
    select ${listColumns(sql)}, b.body_md, b.updated_at
    from blog_posts b where b.slug = ${slug} and ${published(sql)}`;
  if (!row) throw new NotFoundError(`Cannot find blog post "${slug}"`);
  return { ...toListItem(row, ctx), body_md: row.body_md, updated_at: iso(row.updated_at) };
}
