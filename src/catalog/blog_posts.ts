import type postgres from "postgres";
import type { Sql } from "../db/open.ts";
import { NotFoundError } from "../platform/errors.ts";
import type { BlogList, BlogListItem, BlogPost, BlogQuery } from "./schemas.ts";
import { matchesKeywords, type QueryContext, searchText } from "./common.ts";
import { iso } from "../db/rows.ts";
import { searchUnits } from "./questions/search_units.ts";
import { checkKeys, cursorScope, encodeCursor, MAX_PAGE_DEPTH, readCursor } from "./cursor.ts";

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

/** The list a blog cursor belongs to: its keywords (not page or page_size). */
function blogScope(query: BlogQuery): string {
  return cursorScope("blog", { q: searchText(query.q) });
}

/**
 * Where `query.cursor` goes on (undefined without one): after an article's sort keys (published
 * at, slug), or at a position of a best match; throws InvalidCursorError.
 */
function blogPosition(query: BlogQuery): { keys: [string, string] } | { at: number } | undefined {
  if (query.cursor === undefined) return undefined;
  const keys = readCursor(query.cursor, blogScope(query));
  if (keys.length === 1) return { at: checkKeys(keys, ["at"])[0] as number };
  return { keys: checkKeys(keys, ["us", "slug"]) as [string, string] };
}

/** The sort keys `query.cursor` names (undefined without one); throws InvalidCursorError. */
export function blogCursorKeys(query: BlogQuery): [string, string] | undefined {
  const position = blogPosition(query);
  return position && "keys" in position ? position.keys : undefined;
}

/** `and` the rows after the cursor's (published_at descending, then slug ascending). */
function afterCursor(sql: Sql, query: BlogQuery): postgres.Fragment {
  const keys = blogCursorKeys(query);
  if (!keys) return sql``;
  const [us, slug] = keys;
  const at = sql`(timestamptz 'epoch' + ${us}::bigint * interval '1 microsecond')`;
  return sql`and (b.published_at < ${at} or (b.published_at = ${at} and b.slug > ${slug}))`;
}

/** One page of published articles, newest first, then by slug. */
export async function listBlogPosts(
  sql: Sql,
  query: BlogQuery,
  ctx: QueryContext,
): Promise<BlogList> {
  const position = blogPosition(query);
  if (position && "at" in position) return await bestMatch(sql, query, ctx, position.at);
  const where = sql`where ${published(sql)}
    ${matchesKeywords(sql, sql`b.search`, query.q)}`;
  const [rows, [{ total }]] = await Promise.all([
    sql<(ListRow & { k_us: string })[]>`
      select ${listColumns(sql)},
        (extract(epoch from b.published_at) * 1000000)::bigint::text as k_us
      from blog_posts b ${where} ${afterCursor(sql, query)}
      order by b.published_at desc, b.slug
      limit ${query.page_size + 1}
      offset ${query.cursor === undefined ? (query.page - 1) * query.page_size : 0}`,
    sql<{ total: number }[]>`select count(*)::int as total from blog_posts b ${where}`,
  ]);
  const items = rows.slice(0, query.page_size);
  const last = items.at(-1);
  if (total > 0 || !query.q?.trim()) {
    return {
      items: items.map((r) => toListItem(r, ctx)),
      total,
      page: query.cursor === undefined ? query.page : null,
      page_size: query.page_size,
      match: "all",
      next_cursor: rows.length > query.page_size && last
        ? encodeCursor(blogScope(query), [last.k_us, last.slug])
        : null,
    };
  }
  return await bestMatch(sql, query, ctx, query.cursor === undefined ? undefined : 0);
}

/**
 * Best match (src/catalog/questions/search.ts) of a blog `q` that no article matches as a whole:
 * the articles matching any unit and no exclusion, the most units first, then newest. Its cursor is
 * a position in that order (a blog has hundreds of articles, not millions).
 */
async function bestMatch(
  sql: Sql,
  query: BlogQuery,
  ctx: QueryContext,
  at?: number,
): Promise<BlogList> {
  const { units, exclusions } = searchUnits(query.q);
  const excluded = exclusions.join(" ");
  const start = at ?? (query.page - 1) * query.page_size;
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
    order by b.hits desc, b.published_at desc, b.slug
    limit ${query.page_size} offset ${start}`;
  // A page past the end has no row to carry the total: count again.
  const total = rows[0]?.total ?? (start > 0 ? await countAny() : 0);
  const items = rows;
  return {
    items: items.map((r) => toListItem(r, ctx)),
    total,
    page: at === undefined ? query.page : null,
    page_size: query.page_size,
    match: total > 0 ? "any" : "all",
    // A position goes as deep as page numbers do (cursor.ts refuses deeper ones): a best match
    // of the blog ends at item 10,000, far beyond its few hundred articles.
    next_cursor: total > 0 && start + query.page_size < total &&
        start + query.page_size <= MAX_PAGE_DEPTH
      ? encodeCursor(blogScope(query), [start + query.page_size])
      : null,
  };

  async function countAny(): Promise<number> {
    const { total } = await bestMatch(sql, { ...query, page: 1, cursor: undefined }, ctx);
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
