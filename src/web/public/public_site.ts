/**
 * The public catalogue's pages, without a key: `/opportunities` (the catalogue), `/themes/{slug}`
 * and `/categories/{slug}`, each rendered from the catalogue's own queries and kept in the page
 * cache (src/web/page_cache.ts) for the data version, like articles and opportunity pages.
 */
import type { Sql } from "../../db/open.ts";
import { type QueryContext, readDataVersion } from "../../catalog/common.ts";
import type { VersionedCache } from "../../catalog/cache.ts";
import type { Content } from "../../catalog/content.ts";
import {
  getPublicCategory,
  getPublicTheme,
  listPlatforms,
} from "../../catalog/public/public_catalog.ts";
import { cachedPage, type Rendered, rendered } from "../page_cache.ts";
import {
  catalogueList,
  cataloguePath,
  listQueryOf,
  readCatalogueQuery,
  renderBadCatalogue,
  renderCatalogue,
} from "./catalogue_page.ts";
import { categorySlugOf, renderCategory } from "./category_page.ts";
import { renderTheme, themeSlugOf } from "./theme_page.ts";

/** What the pages read. */
export interface PublicSiteDeps {
  sql: Sql;
  context: QueryContext;
  cache: VersionedCache;
  content: Content;
}

/** Best opportunities shown on a category's page. */
const CATEGORY_BEST = 10;

/** True for the paths of the public catalogue (an unknown slug is a 404 page there). */
export function isPublicSitePath(path: string): boolean {
  return path === "/opportunities" || path === "/opportunities/" || path.startsWith("/themes/") ||
    path.startsWith("/categories/");
}

/** The page of `url`, or undefined when its path names nothing (the caller answers 404). */
export async function publicSitePage(
  deps: PublicSiteDeps,
  url: URL,
): Promise<Rendered | undefined> {
  const path = url.pathname;
  const base = deps.context.publicBaseUrl;
  if (path === "/opportunities/") {
    const location = `/opportunities${url.search}`;
    return { status: 301, body: "", contentType: "text/plain; charset=utf-8", etag: "", location };
  }
  if (path === "/opportunities") {
    const read = readCatalogueQuery(url);
    if ("problems" in read) {
      return { ...await rendered(renderBadCatalogue(read.problems)), status: 400 };
    }
    const { query } = read;
    const version = await readDataVersion(deps.sql);
    return await cachedPage(deps.cache, version, `catalogue:${cataloguePath(query)}`, async () => {
      const [list, { items: categories }, platforms] = await Promise.all([
        catalogueList({ content: deps.content, sql: deps.sql, base }, version, query),
        deps.content.listCategories(version),
        cachedPage(deps.cache, version, "platforms", () => listPlatforms(deps.sql)),
      ]);
      return await rendered(
        renderCatalogue(base, query, list, { categories, platforms: platforms ?? [] }),
      );
    });
  }
  const themeSlug = themeSlugOf(path);
  if (themeSlug) {
    const version = await readDataVersion(deps.sql);
    return await cachedPage(deps.cache, version, `theme-page:${themeSlug}`, async () => {
      const theme = await getPublicTheme(deps.sql, themeSlug, deps.context);
      return theme && await rendered(renderTheme(base, theme));
    });
  }
  const categorySlug = categorySlugOf(path);
  if (categorySlug) {
    const version = await readDataVersion(deps.sql);
    return await cachedPage(deps.cache, version, `category-page:${categorySlug}`, async () => {
      const category = await getPublicCategory(deps.sql, categorySlug);
      if (!category) return undefined;
      const best = await deps.content.listOpportunities(version, {
        ...listQueryOf({ category: categorySlug, min_score: 0, page: 1 }),
        page_size: CATEGORY_BEST,
      });
      return await rendered(renderCategory(base, category, best.items));
    });
  }
  return undefined;
}
