/**
 * The public page of an opportunity at its canonical URL, `/opportunities/{id}/{slug}` (the `url`
 * of every opportunity the API and the tools answer): title, verdict, score and its four parts,
 * audience, theme and category, evidence count and the related article, plus the way to the full
 * record. It shows what list items show and nothing of the paid detail (the query does not even
 * read it: src/catalog/public/public_opportunity.ts). The id finds the page; a wrong or missing
 * slug redirects to the canonical address, so links survive a retitled opportunity. Pages are
 * cached like articles (src/web/page_cache.ts).
 */
import type { Sql } from "../../db/open.ts";
import { type QueryContext, readDataVersion } from "../../catalog/common.ts";
import type { VersionedCache } from "../../catalog/cache.ts";
import {
  getPublicOpportunity,
  type PublicOpportunity,
} from "../../catalog/public/public_opportunity.ts";
import { formatDate, html, page } from "../html.ts";
import { lineChart } from "../chart.ts";
import { cachedPage, type Rendered, rendered } from "../page_cache.ts";

const PATH = /^\/opportunities\/([1-9]\d{0,9})(?:\/([^/]*))?\/?$/;

/** True for a path under /opportunities/ (an opportunity page, or a 404). */
export function isOpportunityPath(path: string): boolean {
  return path.startsWith("/opportunities/");
}

const PARTS: [keyof PublicOpportunity, string, string][] = [
  ["pain_point_intensity", "Pain point intensity", "how much the problem hurts"],
  ["willingness_to_pay_score", "Willingness to pay", "how ready people are to pay"],
  ["tech_difficulty", "Technical difficulty", "higher is harder to build"],
  ["sustainability_score", "Sustainability", "how lasting the demand is"],
];

function summaryOf(o: PublicOpportunity): string {
  return `Score ${o.score}/100, verdict ${o.recommendation}` +
    (o.target_audience ? `, for ${o.target_audience}` : "") +
    `. Theme: ${o.theme.name} (${o.category.name}).`;
}

/** The page of `o`. */
function renderOpportunity(o: PublicOpportunity): string {
  const head = html`<link rel="canonical" href="${o.url}">
<meta property="og:type" content="website">
<meta property="og:site_name" content="Opportunity Intelligence">
<meta property="og:title" content="${o.title}">
<meta property="og:description" content="${summaryOf(o)}">
<meta property="og:url" content="${o.url}">
<meta name="twitter:card" content="summary">`;
  const scores = PARTS.map(([key, label, hint]) =>
    html`
      <tr>
        <th scope="row">${label} <span class="muted">(${hint})</span></th>
        <td>${String(o[key])}/10</td>
      </tr>
    `
  );
  const article = o.related_article
    ? html`<p>Read <a href="${o.related_article.url}">${o.related_article.title}</a>, our analysis
    of this opportunity.</p>`
    : html`<p class="muted">No article about this opportunity is published yet.</p>`;
  const body = html`
    <nav aria-label="Breadcrumb" class="meta"><a href="/">Home</a> ›
    <a href="/categories/${o.category.slug}">${o.category.name}</a> ›
    <a href="/themes/${o.theme.slug}">${o.theme.name}</a></nav>
    <article>
      <h1>${o.title}</h1>
      <p class="lead">Verdict <strong>${o.recommendation}</strong> · score <strong>${o
        .score}</strong>/100</p>
      <p class="meta">Added <time datetime="${o.created_at}">${formatDate(o.created_at)}</time></p>
      <section aria-labelledby="score-title">
        <h2 id="score-title">The score and its four parts</h2>
        <p>The composite score (0 to 100) weighs four parts, each scored 0 to 10:</p>
        <table class="scores">
          <tbody>${scores}</tbody>
        </table>
      </section>
      <section aria-labelledby="context-title">
        <h2 id="context-title">Context</h2>
        <dl class="facts">
          <dt>Audience</dt>
          <dd>${o.target_audience || "A broad audience"}</dd>
          <dt>Theme</dt>
          <dd><a href="/themes/${o.theme.slug}">${o.theme.name}</a>
    <span class="muted">(its trend and best opportunities)</span></dd>
          <dt>Category</dt>
          <dd><a href="/categories/${o.category.slug}">${o.category.name}</a>
    <span class="muted">(its themes and opportunities)</span></dd>
          <dt>Evidence</dt>
          <dd>${o.evidence_count} community ${o.evidence_count === 1
            ? "post"
            : "posts"} back this opportunity</dd>
        </dl>
      </section>
      <section aria-labelledby="trend-title">
        <h2 id="trend-title">Mentions of its theme</h2>
        <p>${o.theme.name}${o.theme.trend_status
          ? html`, lifecycle status <strong>${o.theme.trend_status}</strong>`
          : ""}: mentions per week over the last 26 weeks (<a href="/docs/trends">how we read them</a>).</p>
        ${lineChart({
          id: "theme-chart",
          title: `Weekly mentions of ${o.theme.name}, last 26 weeks`,
          points: o.theme_weekly,
        })}
      </section>
      <section aria-labelledby="article-title">
    <h2 id="article-title">Related article</h2>
    ${article}
      </section>
      <aside class="card notice" aria-labelledby="full-title">
        <h2 id="full-title">The full record</h2>
        <p>The description, market size, key features, competitors, differentiation, risks and up to
    five quotes from the people who asked for it are in the full record. Every plan, the free one
    included, reads it with an API key for one call of the monthly quota:</p>
        <ul>
          <li>REST: <code>GET /api/v1/opportunities/${o.id}</code></li>
          <li>MCP: the tool <code>get_opportunity</code> with <code>{"id": ${o.id}}</code>, or
    <code>fetch</code> with <code>opportunity:${o.id}</code></li>
        </ul>
        <p>The quotes' links to their threads (<code>source_url</code>) are for the Pro and Business
    plans.</p>
        <p><a href="/account">Sign in or create a free account</a> · <a href="/#plans-title">Plans</a> ·
    <a href="/opportunities">More opportunities</a> · <a href="/docs">Documentation</a></p>
      </aside>
    </article>
  `;
  return page({
    title: `${o.title} · Opportunity Intelligence`,
    description: summaryOf(o),
    head,
    body,
  });
}

/**
 * The answer of an opportunity path: the page, a 301 to the canonical path when the slug is not
 * the opportunity's, or undefined when no opportunity has that id (the caller answers 404).
 */
export async function opportunityPage(
  deps: { sql: Sql; context: QueryContext; cache: VersionedCache },
  path: string,
): Promise<Rendered | undefined> {
  const match = PATH.exec(path);
  if (!match) return undefined;
  const id = Number(match[1]);
  const version = await readDataVersion(deps.sql);
  const found = await cachedPage(deps.cache, version, `opportunity:${id}`, async () => {
    const o = await getPublicOpportunity(deps.sql, id, deps.context);
    return o && { slug: o.slug, page: await rendered(renderOpportunity(o)) };
  });
  if (!found) return undefined;
  const canonical = `/opportunities/${id}/${found.slug}`;
  if (path === canonical) return found.page;
  return {
    status: 301,
    body: "",
    contentType: "text/plain; charset=utf-8",
    etag: "",
    location: canonical,
  };
}
