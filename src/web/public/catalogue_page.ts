/**
 * `/opportunities`: the public catalogue, browsable without a key. The public filters (category,
 * theme, platform, verdict, minimum score) and a question box `q` in one GET form, pages of 20,
 * each row linking to its opportunity's public page. It shows list fields only, read by the
 * API's own list query (Content.listOpportunities, the same cache), or with `q` by the public
 * search (public_search.ts: titles only, never a paid field); page numbers stop at
 * MAX_PUBLIC_PAGE (deeper reading is the API's, with a cursor). Bad parameters answer a 400 page
 * that says which, never JSON.
 */
import { z } from "zod";
import type { Content } from "../../catalog/content.ts";
import type { Sql } from "../../db/open.ts";
import { type PublicList, searchPublicCatalogue } from "../../catalog/public/public_search.ts";
import type { ListQuery } from "../../catalog/lists/opportunities.ts";
import { parseQuery } from "../../catalog/params.ts";
import { OpportunityQuerySchema, RECOMMENDATIONS } from "../../catalog/schemas.ts";
import type { Category } from "../../catalog/schemas.ts";
import { InvalidParameterError } from "../../platform/errors.ts";
import { html, page, type SafeHtml } from "../html.ts";
import { keyNotice, opportunityList, publicHead } from "./parts.ts";

/** Items per page of the catalogue. */
export const PUBLIC_PAGE_SIZE = 20;
/** The deepest page number: 1,000 items, enough to browse; the API goes further. */
export const MAX_PUBLIC_PAGE = 50;

const fields = OpportunityQuerySchema.shape;

/** The catalogue's parameters: the public filters, the question and the page. */
export const CatalogueQuerySchema = z.object({
  q: fields.q,
  category: fields.category,
  theme: fields.theme,
  platform: fields.platform,
  recommendation: fields.recommendation,
  min_score: fields.min_score,
  page: z.number().int("must be an integer").min(1, "must be at least 1")
    .max(MAX_PUBLIC_PAGE, `must be at most ${MAX_PUBLIC_PAGE}: the API reaches every page`)
    .default(1),
});
export type CatalogueQuery = z.infer<typeof CatalogueQuerySchema>;

/** The catalogue's query, or the problems of its parameters. */
export function readCatalogueQuery(
  url: URL,
): { query: CatalogueQuery } | { problems: { param: string; message: string }[] } {
  try {
    return { query: parseQuery(CatalogueQuerySchema, url) };
  } catch (error) {
    if (error instanceof InvalidParameterError) {
      return { problems: (error.body.details as { param: string; message: string }[]) ?? [] };
    }
    throw error;
  }
}

/** The list query of a catalogue query: every deliverable, the API's order. */
export function listQueryOf(query: CatalogueQuery): ListQuery {
  return { ...query, online_only: false, page_size: PUBLIC_PAGE_SIZE };
}

/** The catalogue's path for `query` (empty filters left out, page 1 without its number). */
export function cataloguePath(query: Partial<CatalogueQuery>): string {
  const params = new URLSearchParams();
  for (const key of ["q", "category", "theme", "platform", "recommendation"] as const) {
    const value = query[key];
    if (value) params.set(key, value);
  }
  if (query.min_score) params.set("min_score", String(query.min_score));
  if (query.page && query.page > 1) params.set("page", String(query.page));
  const search = params.toString();
  return search ? `/opportunities?${search}` : "/opportunities";
}

function options(values: { value: string; label: string }[], selected: string | undefined) {
  return values.map((o) =>
    o.value === (selected ?? "")
      ? html`<option value="${o.value}" selected>${o.label}</option>`
      : html`<option value="${o.value}">${o.label}</option>`
  );
}

/** The filter form: GET, so every result has its own address. */
function filterForm(
  query: CatalogueQuery,
  lists: { categories: Category[]; platforms: string[] },
): SafeHtml {
  const categories = [
    { value: "", label: "Any category" },
    ...lists.categories.map((c) => ({ value: c.slug, label: c.name })),
  ];
  const platforms = [
    { value: "", label: "Any platform" },
    ...lists.platforms.map((p) => ({ value: p, label: p })),
  ];
  const verdicts = [
    { value: "", label: "Any verdict" },
    ...RECOMMENDATIONS.map((r) => ({ value: r, label: r })),
  ];
  return html`
    <form method="get" action="/opportunities" class="card" role="search" aria-label="Opportunities">
      <div class="filters">
        <div class="wide">
          <label for="f-q">Your question or keywords</label>
          <input type="search" id="f-q" name="q" maxlength="100" value="${query.q ?? ""}"
            placeholder="e.g. chasing late invoices for freelancers">
        </div>
        <div>
          <label for="f-category">Category</label>
          <select id="f-category" name="category">${options(categories, query.category)}</select>
        </div>
        <div>
          <label for="f-platform">Platform</label>
          <select id="f-platform" name="platform">${options(platforms, query.platform)}</select>
        </div>
        <div>
          <label for="f-verdict">Verdict</label>
          <select id="f-verdict" name="recommendation">${options(
            verdicts,
            query.recommendation,
          )}</select>
        </div>
        <div>
          <label for="f-score">Minimum score</label>
          <input type="number" id="f-score" name="min_score" min="0" max="100" step="1"
            value="${query.min_score ? String(query.min_score) : ""}">
        </div>
      </div>
      ${query.theme
        ? html`
          <input type="hidden" name="theme" value="${query.theme}">
          <p>Theme: <strong>${query.theme}</strong> · <a href="${cataloguePath({
            ...query,
            theme: undefined,
            page: 1,
          })}">every theme</a></p>
        `
        : ""}
      <button type="submit">Show opportunities</button>
    </form>
  `;
}

function pager(query: CatalogueQuery, list: PublicList): SafeHtml {
  const pages = Math.min(MAX_PUBLIC_PAGE, Math.max(1, Math.ceil(list.total / PUBLIC_PAGE_SIZE)));
  const previous = query.page > 1
    ? html`<a href="${
      cataloguePath({ ...query, page: query.page - 1 })
    }" rel="prev">Previous page</a>`
    : "";
  const next = query.page < pages && list.next_cursor !== null
    ? html`<a href="${cataloguePath({ ...query, page: query.page + 1 })}" rel="next">Next page</a>`
    : "";
  const deeper = list.total > MAX_PUBLIC_PAGE * PUBLIC_PAGE_SIZE && query.page === pages
    ? html`<span class="muted">Pages stop here; the API's list reaches every one (Pro).</span>`
    : "";
  return html`
    <nav class="pager"
      aria-label="Pages">${previous}<span>Page ${query
        .page} of ${pages}</span>${next}${deeper}</nav>
  `;
}

/** What the list shows, in words: "412 opportunities match" and the best-match note. */
function summaryOf(query: CatalogueQuery, list: PublicList): string {
  const n = list.total.toLocaleString("en-US");
  const what = list.total === 1 ? "opportunity" : "opportunities";
  if (!query.q) return `${n} ${what}, best score first`;
  if (list.match === "any") {
    return `No opportunity holds every word of "${query.q}": ${n} hold some of them, ` +
      "the best matches first";
  }
  return `${n} ${what} match "${query.q}", the best match first`;
}

/** The catalogue page of `query` with its `list`. */
export function renderCatalogue(
  base: string,
  query: CatalogueQuery,
  list: PublicList,
  lists: { categories: Category[]; platforms: string[] },
): string {
  const path = cataloguePath(query);
  // The API pages by cursor; it keeps only deliverables by default.
  const api = new URL(cataloguePath({ ...query, page: 1 }), base).searchParams;
  api.set("online_only", "false");
  const filtered = path !== "/opportunities";
  const summary = summaryOf(query, list);
  const body = html`
    <h1>Opportunities</h1>
    <p class="lead">Business ideas found in what people ask for in open communities, each scored
    and given a verdict. Filter them, or ask a question.</p>
    ${filterForm(query, lists)}
    <section aria-labelledby="results-title">
      <h2 id="results-title">${summary}</h2>
      ${opportunityList(list.items)}
      ${list.total > 0 ? pager(query, list) : ""}
    </section>
    ${keyNotice({
      id: "key-title",
      what: "these lists with every page, sorted by newest or by a sub-score (the full record of " +
        "one opportunity is on every plan, Free included)",
      plan: "Pro",
      rest: `GET /api/v1/opportunities?${api}`,
      mcp: "query_opportunities",
    })}
  `;
  return page({
    title: `${filtered ? "Opportunities: " + (query.q ?? "filtered") : "Opportunities"}` +
      `${query.page > 1 ? `, page ${query.page}` : ""} · Opportunity Intelligence`,
    description: `${summary}. Scored business opportunities from online communities.`,
    head: publicHead(base, {
      path,
      title: "Opportunities · Opportunity Intelligence",
      description: summary,
      // Searches and deep pages are not pages of their own for search engines; the catalogue is.
      noindex: Boolean(query.q) || query.page > 1,
    }),
    body,
  });
}

/** The 400 page of bad catalogue parameters. */
export function renderBadCatalogue(problems: { param: string; message: string }[]): string {
  return page({
    title: "Check the filters · Opportunity Intelligence",
    body: html`
      <h1>Check the filters</h1>
      <ul>${problems.map((p) => html`<li><code>${p.param}</code> ${p.message}</li>`)}</ul>
      <p><a href="/opportunities">Every opportunity</a></p>
    `,
  });
}

/**
 * The list of `query`: without `q` Content's cached list query; with `q` the public search, which
 * reads titles only (the API's search reads the paid description too).
 */
export function catalogueList(
  deps: { content: Content; sql: Sql; base: string },
  version: number,
  query: CatalogueQuery,
): Promise<PublicList> {
  if (query.q) return searchPublicCatalogue(deps.sql, listQueryOf(query), deps.base);
  return deps.content.listOpportunities(version, listQueryOf(query));
}
