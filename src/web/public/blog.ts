/**
 * The public article pages: `/blog` (the list), `/blog/{slug}` (the canonical URL of each
 * article, the `url` the API returns) and `/blog/feed.xml` (Atom). No key is needed. Rendered
 * pages are cached per article and kept while `data_version` stays the same, which every
 * change of content bumps; lists also expire after a minute, so that a scheduled article
 * appears soon after its publication time.
 */
import type { Sql } from "../../db/open.ts";
import { NotFoundError } from "../../platform/errors.ts";
import { getBlogPost, listBlogPosts } from "../../catalog/blog_posts.ts";
import { type QueryContext, readDataVersion } from "../../catalog/common.ts";
import { getOpportunity } from "../../catalog/lists/opportunities.ts";
import type { VersionedCache } from "../../catalog/cache.ts";
import {
  type BlogListItem,
  type BlogPost,
  type OpportunityDetail,
  SLUG_PATTERN,
} from "../../catalog/schemas.ts";
import { escapeHtml, formatDate, html, page, SafeHtml } from "../html.ts";
import { renderMarkdown } from "../docs/markdown.ts";
import { cachedPage, type Rendered, rendered } from "../page_cache.ts";

const PAGE_SIZE = 20;

function isHttpUrl(url: string | null): url is string {
  return url !== null && /^https?:\/\/[^\s"'<>]+$/i.test(url);
}

function tagList(tags: string[]): SafeHtml {
  if (tags.length === 0) return html``;
  return html`<ul class="tags" aria-label="Tags">${tags.map((t) => html`<li>${t}</li>`)}</ul>`;
}

function dateLine(post: { published_at: string | null; updated_at?: string | null }): SafeHtml {
  const published = post.published_at;
  if (!published) return html``;
  const updated = post.updated_at && post.updated_at > published
    ? html`
      · updated <time datetime="${post.updated_at}">${formatDate(post.updated_at)}</time>
    `
    : "";
  return html`<p class="meta">Published <time datetime="${published}">${
    formatDate(published)
  }</time>${updated}</p>`;
}

function relatedOpportunity(opportunity: OpportunityDetail | undefined): SafeHtml {
  if (!opportunity) return html``;
  return html`
    <aside class="card" id="related-opportunity" aria-labelledby="related-title">
      <h2 id="related-title">The opportunity behind this article</h2>
      <p><strong><a href="${opportunity.url}">${opportunity.title}</a></strong></p>
      <p class="meta">Score ${opportunity.score}/100 · verdict: ${opportunity.recommendation} ·
    for ${opportunity.target_audience || "a broad audience"}</p>
      <p class="muted">Its full record (scores, features, competitors, risks) is
    <code>GET /api/v1/opportunities/${opportunity
      .id}</code>, open to every plan (one call of the monthly quota):
    <a href="/account">get a key</a>.</p>
    </aside>
  `;
}

/** The article page of `post`. */
function renderArticle(post: BlogPost, opportunity?: OpportunityDetail): string {
  const image = isHttpUrl(post.cover_image_url) ? post.cover_image_url : undefined;
  const head = html`<link rel="canonical" href="${post.url}">
<meta property="og:type" content="article">
<meta property="og:site_name" content="Opportunity Intelligence">
<meta property="og:title" content="${post.title}">
<meta property="og:description" content="${post.excerpt}">
<meta property="og:url" content="${post.url}">
${image ? html`<meta property="og:image" content="${image}">` : ""}
${
    post.published_at
      ? html`<meta property="article:published_time" content="${post.published_at}">`
      : ""
  }
${post.tags.map((t) => html`<meta property="article:tag" content="${t}">`)}`;
  const body = html`<article>
<h1>${post.title}</h1>
${dateLine(post)}
${tagList(post.tags)}
${image ? html`<img class="cover" src="${image}" alt="">` : ""}
<div class="article-body">
${new SafeHtml(renderMarkdown(post.body_md, { title: post.title }))}
</div>
${relatedOpportunity(opportunity)}
</article>
<p><a href="/blog">All articles</a></p>`;
  return page({
    title: `${post.title} · Opportunity Intelligence`,
    description: post.excerpt,
    head,
    body,
  });
}

function listItem(item: BlogListItem): SafeHtml {
  return html`<li>
<h2><a href="/blog/${item.slug}">${item.title}</a></h2>
${dateLine(item)}
<p>${item.excerpt}</p>
${tagList(item.tags)}
</li>`;
}

/** The list page `pageNumber` of published articles. */
async function renderList(sql: Sql, context: QueryContext, pageNumber: number) {
  const list = await listBlogPosts(sql, { page: pageNumber, page_size: PAGE_SIZE }, context);
  if (list.items.length === 0 && pageNumber > 1) return undefined;
  const last = Math.max(1, Math.ceil(list.total / PAGE_SIZE));
  const pager = html`<nav aria-label="Pages" class="meta">
${
    pageNumber > 1
      ? html`
        <a href="/blog?page=${pageNumber - 1}" rel="prev">Newer articles</a>
      `
      : ""
  }
${
    pageNumber < last
      ? html`<a href="/blog?page=${pageNumber + 1}" rel="next">Older articles</a>`
      : ""
  }
</nav>`;
  const body = html`
    <h1>Articles</h1>
    <p
      class="muted">Weekly analyses of validated opportunities. <a href="/blog/feed.xml">Atom feed</a>.</p>
    ${list.items.length === 0
      ? html`<p>No articles are published yet.</p>`
      : html`<ul class="posts">${list.items.map(listItem)}</ul>`}
    ${last > 1 ? pager : ""}
  `;
  const canonical = `${context.publicBaseUrl}/blog${pageNumber > 1 ? `?page=${pageNumber}` : ""}`;
  return page({
    title: "Articles · Opportunity Intelligence",
    description: "Weekly analyses of validated business opportunities",
    head: html`<link rel="canonical" href="${canonical}">`,
    body,
  });
}

function xml(text: string): string {
  return escapeHtml(text);
}

/** The Atom feed of the newest published articles. */
async function renderFeed(sql: Sql, context: QueryContext): Promise<string> {
  const list = await listBlogPosts(sql, { page: 1, page_size: PAGE_SIZE }, context);
  const base = context.publicBaseUrl;
  const updated = list.items[0]?.published_at ?? new Date(0).toISOString();
  const entries = list.items.map((item) =>
    `<entry>
<title>${xml(item.title)}</title>
<id>${xml(item.url)}</id>
<link rel="alternate" type="text/html" href="${xml(item.url)}"/>
<published>${item.published_at}</published>
<updated>${item.published_at}</updated>
<summary>${xml(item.excerpt)}</summary>
${item.tags.map((t) => `<category term="${xml(t)}"/>`).join("")}
</entry>`
  );
  return `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
<title>Opportunity Intelligence articles</title>
<id>${xml(`${base}/blog`)}</id>
<link rel="self" type="application/atom+xml" href="${xml(`${base}/blog/feed.xml`)}"/>
<link rel="alternate" type="text/html" href="${xml(`${base}/blog`)}"/>
<updated>${updated}</updated>
<author><name>Opportunity Intelligence</name></author>
${entries.join("\n")}
</feed>
`;
}

/**
 * The page of a blog path, from the cache when the content has not changed since it was
 * rendered; undefined for a path that names no page (the caller answers 404).
 */
export async function blogPage(
  deps: { sql: Sql; context: QueryContext; cache: VersionedCache },
  path: string,
  search: URLSearchParams,
): Promise<Rendered | undefined> {
  const { sql, context, cache } = deps;
  const version = await readDataVersion(sql);
  if (path === "/blog" || path === "/blog/") {
    const raw = search.get("page") ?? "1";
    if (!/^[1-9]\d{0,5}$/.test(raw)) return undefined;
    return await cachedPage(cache, version, `list:${raw}`, async () => {
      const body = await renderList(sql, context, Number(raw));
      return body === undefined ? undefined : await rendered(body);
    });
  }
  if (path === "/blog/feed.xml") {
    return await cachedPage(
      cache,
      version,
      "feed",
      async () => rendered(await renderFeed(sql, context), "application/atom+xml; charset=utf-8"),
    );
  }
  const match = /^\/blog\/([^/]+)\/?$/.exec(path);
  if (!match || !SLUG_PATTERN.test(match[1])) return undefined;
  const slug = match[1];
  return await cachedPage(cache, version, `post:${slug}`, async () => {
    let post: BlogPost;
    try {
      post = await getBlogPost(sql, slug, context);
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
    let opportunity: OpportunityDetail | undefined;
    if (post.related_opportunity_id !== null) {
      opportunity = await getOpportunity(sql, post.related_opportunity_id, context).catch(
        (error) => {
          if (error instanceof NotFoundError) return undefined;
          throw error;
        },
      );
    }
    return await rendered(renderArticle(post, opportunity));
  });
}
