/**
 * `/themes/{slug}`: a theme's public page. Its name, summary, category, lifecycle status, its
 * last 26 weeks of mentions as a chart, its growth over 7, 30 and 90 days (which follow from those
 * weeks) and its best opportunities, as decided public (docs/DECISIONS.md); the 1-year window,
 * full history and lists by status are the Pro plan's, named with the API call and tool that give
 * them.
 */
import type { PublicTheme } from "../../catalog/public/public_catalog.ts";
import { lineChart } from "../chart.ts";
import { html, page } from "../html.ts";
import { cataloguePath } from "./catalogue_page.ts";
import { keyNotice, opportunityList, publicHead, statusPhrase } from "./parts.ts";

const PATH = /^\/themes\/([a-z0-9]+(?:-[a-z0-9]+)*)\/?$/;

/** The slug of a theme page's path, or undefined. */
export function themeSlugOf(path: string): string | undefined {
  return PATH.exec(path)?.[1];
}

/** The canonical path of a theme's page. */
export function themePath(slug: string): string {
  return `/themes/${slug}`;
}

/** A growth in percent as the page says it: "+12.5%", or "not enough history yet". */
function percent(value: number | null): string {
  if (value === null) return "not enough history yet";
  return `${value > 0 ? "+" : ""}${value}%`;
}

/** A theme's page. */
export function renderTheme(base: string, t: PublicTheme): string {
  const description = `${t.summary || t.name}. ${t.opportunity_count} opportunities` +
    (t.trend_status ? `, lifecycle status ${t.trend_status}` : "") + ".";
  const all = cataloguePath({ theme: t.slug });
  const body = html`
    <nav aria-label="Breadcrumb" class="meta"><a href="/">Home</a> ›
    <a href="/categories/${t.category.slug}">${t.category.name}</a> › ${t.name}</nav>
    <h1>${t.name}</h1>
    ${t.summary ? html`<p class="lead">${t.summary}</p>` : ""}
    <dl class="facts">
      <dt>Category</dt>
      <dd><a href="/categories/${t.category.slug}">${t.category.name}</a></dd>
      <dt>Status</dt>
      <dd>${statusPhrase(t.trend_status)}</dd>
      <dt>Growth of mentions</dt>
      <dd>7 days ${percent(t.growth["7d"])} · 30 days ${percent(
        t.growth["30d"],
      )} · 90 days ${percent(t.growth["90d"])}</dd>
      <dt>Opportunities</dt>
      <dd>${t.opportunity_count} (<a href="${all}">browse them all</a>)</dd>
    </dl>
    <section aria-labelledby="trend-title">
      <h2 id="trend-title">Mentions, last 26 weeks</h2>
      <p>How often people bring up this pain point, week by week
    (<a href="/docs/trends">how we read them</a>).</p>
      ${lineChart({
        id: "theme-chart",
        title: `Weekly mentions of ${t.name}, last 26 weeks`,
        points: t.weekly,
      })}
    </section>
    <section aria-labelledby="best-title">
      <h2 id="best-title">Its best opportunities</h2>
      ${opportunityList(t.top)}
      ${t.opportunity_count > t.top.length
        ? html`<p><a href="${all}">All ${t.opportunity_count} opportunities of this theme</a></p>`
        : ""}
    </section>
    ${keyNotice({
      id: "key-title",
      what: "its growth over 1 year, its whole history by week or month, " +
        "and the lists of themes by growth or status",
      plan: "Pro",
      rest: `GET /api/v1/themes/${t.id}`,
      mcp: "get_theme",
    })}
  `;
  return page({
    title: `${t.name} · Opportunity Intelligence`,
    description,
    head: publicHead(base, { path: themePath(t.slug), title: t.name, description }),
    body,
  });
}
