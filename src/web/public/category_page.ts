/**
 * `/categories/{slug}`: a category's public page. Its description, its themes (each with its
 * lifecycle status and opportunity count, linking to the theme's page) and its best
 * opportunities; the full records and lists through the API are the Pro plan's.
 */
import type { PublicCategory } from "../../catalog/public/public_catalog.ts";
import type { OpportunityListItem } from "../../catalog/schemas.ts";
import { html, page } from "../html.ts";
import { cataloguePath } from "./catalogue_page.ts";
import { keyNotice, opportunityList, publicHead, statusPhrase } from "./parts.ts";
import { themePath } from "./theme_page.ts";

const PATH = /^\/categories\/([a-z0-9]+(?:-[a-z0-9]+)*)\/?$/;

/** The slug of a category page's path, or undefined. */
export function categorySlugOf(path: string): string | undefined {
  return PATH.exec(path)?.[1];
}

/** The canonical path of a category's page. */
export function categoryPath(slug: string): string {
  return `/categories/${slug}`;
}

/** A category's page with its `best` opportunities. */
export function renderCategory(
  base: string,
  c: PublicCategory,
  best: OpportunityListItem[],
): string {
  const description = `${c.description || c.name}. ${c.themes.length} themes, ` +
    `${c.opportunity_count} opportunities.`;
  const all = cataloguePath({ category: c.slug });
  const themes = c.themes.map((t) =>
    html`
      <li>
        <h3><a href="${themePath(t.slug)}">${t.name}</a></h3>
        ${t.summary ? html`<p>${t.summary}</p>` : ""}
        <p class="muted">Status ${statusPhrase(t.trend_status)} · ${t.opportunity_count} ${t
            .opportunity_count === 1
          ? "opportunity"
          : "opportunities"}</p>
      </li>
    `
  );
  const body = html`
    <nav aria-label="Breadcrumb" class="meta"><a href="/">Home</a> ›
    <a href="/opportunities">Opportunities</a> › ${c.name}</nav>
    <h1>${c.name}</h1>
    ${c.description ? html`<p class="lead">${c.description}</p>` : ""}
    <p>${c.themes.length} ${c.themes.length === 1 ? "theme" : "themes"}, ${c
      .opportunity_count} ${c.opportunity_count === 1 ? "opportunity" : "opportunities"}
    (<a href="${all}">browse them all</a>).</p>
    <section aria-labelledby="best-title">
      <h2 id="best-title">Its best opportunities</h2>
      ${opportunityList(best)}
    </section>
    <section aria-labelledby="themes-title">
      <h2 id="themes-title">Its themes</h2>
      ${c.themes.length === 0
        ? html`<p class="muted">No theme yet.</p>`
        : html`<ul class="opps">${themes}</ul>`}
    </section>
    ${keyNotice({
      id: "key-title",
      what: "this category's list with every page (the full record of one opportunity is on " +
        "every plan, Free included)",
      plan: "Pro",
      rest: `GET /api/v1/opportunities?category=${c.slug}`,
      mcp: "query_opportunities",
    })}
  `;
  return page({
    title: `${c.name} · Opportunity Intelligence`,
    description,
    head: publicHead(base, { path: categoryPath(c.slug), title: c.name, description }),
    body,
  });
}
