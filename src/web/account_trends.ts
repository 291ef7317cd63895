/**
 * The account area's Trends page (/account/trends): the themes of one lifecycle status (or every
 * status), fastest growing over 30 days first, each with its status, growth per window and its
 * last 26 weeks as a server-rendered chart with a table of the same numbers (src/web/chart.ts).
 * For every signed-in account: the page is for looking; the API and the tools are for using.
 */
import type { Sql } from "../db/open.ts";
import { listThemeTrends, type ThemeTrend } from "../catalog/theme_history.ts";
import { TREND_STATUSES } from "../catalog/trend_rule.ts";
import { lineChart } from "./chart.ts";
import { html, page, type SafeHtml } from "./html.ts";

/** Themes shown at most. */
export const TRENDS_PAGE_THEMES = 24;

function percent(value: number | null): string {
  if (value === null) return "n/a";
  return `${value > 0 ? "+" : ""}${value}%`;
}

function themeCard(theme: ThemeTrend): SafeHtml {
  return html`<section class="card" id="theme-${theme.id}" aria-labelledby="theme-${theme.id}-name">
    <h2 id="theme-${theme.id}-name">${theme.name}</h2>
    <p class="meta">${theme.category} · status <strong>${theme.trend_status}</strong></p>
    <dl class="facts">
      <dt>7 days</dt><dd>${percent(theme.growth_7d)}</dd>
      <dt>30 days</dt><dd>${percent(theme.trend_change)}</dd>
      <dt>90 days</dt><dd>${percent(theme.growth_90d)}</dd>
      <dt>1 year</dt><dd>${percent(theme.growth_1y)}</dd>
    </dl>
    ${
    lineChart({
      id: `chart-${theme.id}`,
      title: `Weekly mentions of ${theme.name}, last 26 weeks`,
      points: theme.weekly,
    })
  }
  </section>`;
}

/** The page for `url` (its `status` parameter picks the status; anything else shows all). */
export async function trendsPage(sql: Sql, url: URL): Promise<string> {
  const asked = url.searchParams.get("status") ?? "";
  const status = (TREND_STATUSES as readonly string[]).includes(asked) ? asked : undefined;
  const themes = await listThemeTrends(sql, { status, limit: TRENDS_PAGE_THEMES });
  const links = [undefined, ...TREND_STATUSES].map((s) => {
    const href = s ? `/account/trends?status=${s}` : "/account/trends";
    const label = s ?? "all";
    return s === status
      ? html`<li><a href="${href}" aria-current="page"><strong>${label}</strong></a></li>`
      : html`<li><a href="${href}">${label}</a></li>`;
  });
  const body = html`
    <nav aria-label="Breadcrumb" class="meta"><a href="/account">Your account</a> › Trends</nav>
    <h1>Trends${status ? html`: ${status}` : ""}</h1>
    <p>Each theme's mentions per week over the last 26 weeks, its lifecycle status and its growth
    over four windows, by the rule in <a href="/docs/trends">Trends over time</a>. The same figures
    come from <code>GET /api/v1/themes/{id}/history</code> and the tool
    <code>get_theme_history</code> (Pro plan).</p>
    <nav aria-label="Statuses">
      <ul class="status-links">${links}</ul>
    </nav>
    ${themes.length === 0
      ? html`<p class="muted">No theme has this status yet.</p>`
      : themes.map(themeCard)}
  `;
  return page({ title: "Trends · Opportunity Intelligence", body });
}
