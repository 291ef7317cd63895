/**
 * What the sitemap lists (src/web/public/sitemap.ts): every opportunity, paged by id so that a million
 * of them are read in batches and never held at once, and every published article. Opportunities
 * are split into parts by id range (ids (k-1)*size+1 to k*size make part k), so a part never
 * holds more than `size` entries and finding one costs an index range scan, not an offset.
 */
import { MAX_INTEGER, type Sql } from "../../db/open.ts";

/** A page to list: its path and when it last changed. */
export interface SitemapEntry {
  path: string;
  lastmod: Date | null;
}

/** The non-empty parts of `size` ids, with how many opportunities each holds, in order. */
export async function opportunityParts(
  sql: Sql,
  size: number,
): Promise<{ part: number; count: number }[]> {
  // Reads the primary key index only (an index-only scan once the table is vacuumed).
  return await sql<{ part: number; count: number }[]>`
    select ((id - 1) / ${size}::int)::int + 1 as part, count(*)::int as count
    from opportunities group by 1 order by 1`;
}

/** Opportunities with an id in (after, upTo], by id, at most `limit` (upTo may be Infinity). */
export async function opportunityEntries(
  sql: Sql,
  range: { after: number; upTo: number },
  limit: number,
): Promise<(SitemapEntry & { id: number })[]> {
  return await sql<(SitemapEntry & { id: number })[]>`
    select id, '/opportunities/' || id || '/' || slug as path, updated_at as lastmod
    from opportunities where id > ${range.after} and id <= ${Math.min(range.upTo, MAX_INTEGER)}
    order by id limit ${limit}`;
}

/** How many articles are published now. */
export async function countPublishedArticles(sql: Sql): Promise<number> {
  const [{ count }] = await sql<{ count: number }[]>`
    select count(*)::int as count from blog_posts b
    where b.published_at is not null and b.published_at <= now()`;
  return count;
}

/** Published articles by slug, `limit` from `offset`; lastmod is the update or publication. */
export async function articleEntries(
  sql: Sql,
  offset: number,
  limit: number,
): Promise<SitemapEntry[]> {
  return await sql<SitemapEntry[]>`
    select '/blog/' || b.slug as path, greatest(b.published_at, b.updated_at) as lastmod
    from blog_posts b
    where b.published_at is not null and b.published_at <= now()
    order by b.slug limit ${limit} offset ${offset}`;
}

/** The public pages of every category and theme (src/web/public/), by kind and slug. */
export async function catalogueEntries(sql: Sql): Promise<SitemapEntry[]> {
  return [
    ...await sql<SitemapEntry[]>`
      select '/categories/' || slug as path, updated_at as lastmod from categories order by slug`,
    ...await sql<SitemapEntry[]>`
      select '/themes/' || slug as path, updated_at as lastmod from themes order by slug`,
  ];
}
