/**
 * `/sitemap.xml` (sitemaps.org protocol 0.9) and `/robots.txt`. The sitemap lists the public
 * pages (the home page, the catalogue, the article list, the documentation), every category's and
 * theme's page, every published article and every opportunity's canonical page; nothing that needs a key, and no draft or scheduled article.
 * Past the protocol's 50,000 URLs per file, `/sitemap.xml` becomes a sitemap index of parts:
 * `/sitemaps/pages-{k}.xml` (the public pages, then the articles) and
 * `/sitemaps/opportunities-{k}.xml` (ids (k-1)*50,000+1 to k*50,000). Every document is streamed
 * from batches read by id, so a million opportunities never sit in memory as one string; its
 * ETag is the data version with the count of published articles (a scheduled article changes
 * the second without the first), checked before anything is read.
 */
import type { Sql } from "../../db/open.ts";
import { type QueryContext, readDataVersion } from "../../catalog/common.ts";
import {
  articleEntries,
  catalogueEntries,
  countPublishedArticles,
  opportunityEntries,
  opportunityParts,
  type SitemapEntry,
} from "../../catalog/public/sitemap.ts";
import { escapeHtml } from "../html.ts";

/** URLs per sitemap file at most (the protocol's limit). */
export const SITEMAP_MAX_URLS = 50_000;

/** Opportunities read per statement while a part is streamed. */
const BATCH = 5_000;

const XMLNS = "http://www.sitemaps.org/schemas/sitemap/0.9";

const PART = /^\/sitemaps\/(pages|opportunities)-([1-9]\d{0,6})\.xml$/;

/** What the sitemap needs. */
export interface SitemapDeps {
  sql: Sql;
  context: QueryContext;
  /** The public pages listed first (paths), e.g. "/", "/blog", "/docs". */
  staticPaths: readonly string[];
  /** URLs per file; SITEMAP_MAX_URLS unless a test makes it small. */
  maxUrls?: number;
}

/** True for the paths this module answers. */
export function isSitemapPath(path: string): boolean {
  return path === "/sitemap.xml" || path === "/robots.txt" || PART.test(path);
}

/** `/robots.txt`: everything public may be crawled; the account area and the API not. */
export function robotsTxt(base: string): string {
  return [
    "User-agent: *",
    "Disallow: /account",
    "Disallow: /api/",
    "Disallow: /mcp",
    "Disallow: /feeds/",
    "Disallow: /watches/",
    "",
    `Sitemap: ${base}/sitemap.xml`,
    "",
  ].join("\n");
}

function lastmod(date: Date | null): string {
  return date ? `<lastmod>${date.toISOString().slice(0, 10)}</lastmod>` : "";
}

function urlElement(base: string, entry: SitemapEntry): string {
  return `<url><loc>${escapeHtml(base + entry.path)}</loc>${lastmod(entry.lastmod)}</url>\n`;
}

/** Streams `head`, then every chunk of `body`, then `tail`, UTF-8 encoded. */
function stream(head: string, body: AsyncIterable<string>, tail: string): ReadableStream {
  async function* all() {
    yield head;
    yield* body;
    yield tail;
  }
  return ReadableStream.from(all()).pipeThrough(new TextEncoderStream());
}

/** Creates the sitemap handler: answers a sitemap path, or undefined for an unknown part. */
export function createSitemap(
  deps: SitemapDeps,
): (request: Request, path: string, sql?: Sql) => Promise<Response | undefined> {
  const base = deps.context.publicBaseUrl;
  const max = deps.maxUrls ?? SITEMAP_MAX_URLS;
  const staticPaths = deps.staticPaths;
  // The parts of the last data version seen: counting a million ids is worth doing once.
  let known: { version: number; parts: Promise<{ part: number; count: number }[]> } | undefined;
  // The category and theme pages of the last data version seen, listed after the static paths.
  let catalogue: { version: number; entries: Promise<SitemapEntry[]> } | undefined;
  const fixedAt = async (sql: Sql, version: number): Promise<SitemapEntry[]> => {
    if (catalogue?.version !== version) {
      const entries = catalogueEntries(sql).catch((error) => {
        if (catalogue?.entries === entries) catalogue = undefined;
        throw error;
      });
      catalogue = { version, entries };
    }
    return [...staticPaths.map((path) => ({ path, lastmod: null })), ...await catalogue.entries];
  };
  const partsAt = (sql: Sql, version: number) => {
    if (known?.version !== version) {
      // A failed count is not kept: the next request counts again.
      const parts = opportunityParts(sql, max).catch((error) => {
        if (known?.parts === parts) known = undefined;
        throw error;
      });
      known = { version, parts };
    }
    return known.parts;
  };

  async function* opportunities(sql: Sql, after: number, upTo: number): AsyncIterable<string> {
    for (;;) {
      const rows = await opportunityEntries(sql, { after, upTo }, BATCH);
      if (rows.length > 0) yield rows.map((row) => urlElement(base, row)).join("");
      if (rows.length < BATCH) return;
      after = rows[rows.length - 1].id;
    }
  }

  /** The fixed pages then the articles, from position `start` (0-based) to before `end`. */
  async function* pages(
    sql: Sql,
    fixedPages: SitemapEntry[],
    start: number,
    end: number,
  ): AsyncIterable<string> {
    const fixed = fixedPages.slice(start, end);
    if (fixed.length > 0) yield fixed.map((entry) => urlElement(base, entry)).join("");
    const from = Math.max(start, fixedPages.length);
    if (end <= from) return;
    const articles = await articleEntries(sql, from - fixedPages.length, end - from);
    if (articles.length > 0) yield articles.map((entry) => urlElement(base, entry)).join("");
  }

  async function* everything(
    sql: Sql,
    fixed: SitemapEntry[],
    pageCount: number,
  ): AsyncIterable<string> {
    yield* pages(sql, fixed, 0, pageCount);
    yield* opportunities(sql, 0, Infinity);
  }

  const urlset = (body: AsyncIterable<string>) =>
    stream(
      `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="${XMLNS}">\n`,
      body,
      "</urlset>\n",
    );

  // The third argument: where this request's reads run (a replica, src/db/replicas.ts).
  return async function sitemap(request: Request, path: string, sql = deps.sql) {
    if (path === "/robots.txt") {
      return new Response(robotsTxt(base), {
        headers: {
          "Content-Type": "text/plain; charset=utf-8",
          "Cache-Control": "public, max-age=3600",
          "X-Content-Type-Options": "nosniff",
        },
      });
    }
    const part = PART.exec(path);
    const [version, articles] = await Promise.all([
      readDataVersion(sql),
      countPublishedArticles(sql),
    ]);
    const fixed = await fixedAt(sql, version);
    const etag = `W/"${version}-${articles}-${fixed.length}"`;
    const headers = {
      "Content-Type": "application/xml; charset=utf-8",
      "Cache-Control": "public, max-age=300",
      ETag: etag,
      "X-Content-Type-Options": "nosniff",
    };
    const parts = await partsAt(sql, version);
    const pageCount = fixed.length + articles;
    const total = pageCount + parts.reduce((sum, p) => sum + p.count, 0);
    const pageParts = Math.ceil(pageCount / max);
    // A part exists only in an index; the single document has none.
    if (part) {
      const k = Number(part[2]);
      const exists = total > max &&
        (part[1] === "pages" ? k <= pageParts : parts.some((p) => p.part === k));
      if (!exists) return undefined;
    }
    if (request.headers.get("if-none-match") === etag) {
      return new Response(null, { status: 304, headers });
    }
    if (!part && total <= max) {
      return new Response(urlset(everything(sql, fixed, pageCount)), { headers });
    }
    if (!part) {
      const locs = [
        ...Array.from({ length: pageParts }, (_, i) => `/sitemaps/pages-${i + 1}.xml`),
        ...parts.map((p) => `/sitemaps/opportunities-${p.part}.xml`),
      ];
      const body = `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="${XMLNS}">\n${
        locs.map((loc) => `<sitemap><loc>${escapeHtml(base + loc)}</loc></sitemap>\n`).join("")
      }</sitemapindex>\n`;
      return new Response(body, { headers });
    }
    const k = Number(part[2]);
    return new Response(
      urlset(
        part[1] === "pages"
          ? pages(sql, fixed, (k - 1) * max, k * max)
          : opportunities(sql, (k - 1) * max, k * max),
      ),
      { headers },
    );
  };
}
