/**
 * The home page's live part, for a visitor's first look: how much the catalogue holds (its
 * opportunities, themes and categories, counted now) and a few example questions with their real
 * answers, each leading into the catalogue (`/opportunities?q=...`) and read as the catalogue
 * reads them (public fields only), so that the count shown is the count found there. Rendered for
 * each data version (the rest of the home page changes only with a deployment).
 */
import type { Content } from "../../catalog/content.ts";
import type { Sql } from "../../db/open.ts";
import type { OpportunityListItem } from "../../catalog/schemas.ts";
import { html, type SafeHtml } from "../html.ts";
import { catalogueList, cataloguePath } from "./catalogue_page.ts";
import { opportunityPath } from "./parts.ts";

/**
 * Questions a visitor might ask, tried in this order; those the catalogue answers with a match of
 * every word are shown, at most EXAMPLES of them. Generic on purpose: the catalogue's content
 * changes, the kind of question does not.
 */
export const EXAMPLE_QUESTIONS = [
  "chasing late invoices",
  "flaky tests in CI",
  "appointment reminders for clinics",
  "inventory for small shops",
  "onboarding new employees",
  "scheduling for tutors",
  "customer support for small teams",
  "meal planning for families",
];
const EXAMPLES = 3;

/** What the live part shows. */
export interface HomeLive {
  totals: { opportunities: number; themes: number; categories: number };
  examples: { q: string; total: number; best: OpportunityListItem[] }[];
}

/** Reads the live part at `version` (cached with the content). */
export async function readHomeLive(
  deps: { content: Content; sql: Sql; base: string },
  version: number,
): Promise<HomeLive> {
  const overview = await deps.content.getOverview(version);
  const examples: HomeLive["examples"] = [];
  for (const q of EXAMPLE_QUESTIONS) {
    if (examples.length >= EXAMPLES) break;
    const list = await catalogueList(deps, version, { q, min_score: 0, page: 1 });
    if (list.match === "all" && list.total > 0) {
      examples.push({ q, total: list.total, best: list.items.slice(0, 2) });
    }
  }
  return { totals: overview.totals, examples };
}

function count(n: number, one: string, many: string): SafeHtml {
  return html`<li><strong>${n.toLocaleString("en-US")}</strong> ${n === 1 ? one : many}</li>`;
}

/** The live section of the home page. */
export function renderHomeLive(live: HomeLive): SafeHtml {
  const { totals } = live;
  const examples = live.examples.map((e) =>
    html`
      <li>
        <h3><a href="${cataloguePath({ q: e.q })}">“${e.q}”</a></h3>
        <p>${e.total.toLocaleString("en-US")} ${e.total === 1
          ? "opportunity answers"
          : "opportunities answer"}; the best:</p>
        <ul>${e.best.map((o) =>
          html`<li><a href="${
            opportunityPath(o)
          }">${o.title}</a> <span class="muted">(${o.recommendation}, ${o.score}/100)</span></li>`
        )}</ul>
      </li>
    `
  );
  return html`
    <section aria-labelledby="catalogue-title">
      <h2 id="catalogue-title">Browse the catalogue</h2>
      <ul class="counts">
        ${count(totals.opportunities, "opportunity", "opportunities")}
        ${count(totals.themes, "theme", "themes")}
        ${count(totals.categories, "category", "categories")}
      </ul>
      <p>Every opportunity, theme and category has a public page, free to read:
    <a href="/opportunities">browse or ask the catalogue</a>.</p>
      ${examples.length > 0
        ? html`
          <p>Questions people ask, with the catalogue's answers now:</p>
          <ul class="opps">${examples}</ul>
        `
        : ""}
    </section>
  `;
}
