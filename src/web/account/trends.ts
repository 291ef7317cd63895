/**
 * The account area's Trends page (/account/trends): the themes of one lifecycle status (or every
 * status), fastest growing over 30 days first, each with its status, growth per window and its
 * last 26 weeks as a server-rendered chart with a table of the same numbers (src/web/chart.ts).
 * For signed-in Pro and Business accounts: what is public about a theme is its name, summary,
 * lifecycle status and 26 weeks of mentions, one theme at a time (its public pages); a list of
 * themes by status or growth and the growth windows are what the Pro plan sells, through this page,
 * the API and the tools alike. A Free account gets the page's explanation and the way to upgrade.
 */
import type { Sql } from "../../db/open.ts";
import { type Plan, PLAN_NAMES, PLAN_RANK } from "../../platform/plans.ts";
import { listThemeTrends, type ThemeTrend } from "../../catalog/themes/theme_history.ts";
import { TREND_STATUSES } from "../../catalog/trend_rule.ts";
import { lineChart } from "../chart.ts";
import { html, page, type SafeHtml } from "../html.ts";

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

/** The page a Free account sees: what the Pro plan adds, and where to get it. */
function upgradePage(plan: Plan): string {
  const body = html`
    <nav aria-label="Breadcrumb" class="meta"><a href="/account">Your account</a> › Trends</nav>
    <h1>Trends</h1>
    <p class="card" id="trends-plan" role="status">Lists of themes by lifecycle status and growth
    over 7 days, 30 days, 90 days and a year need the Pro plan; you are on ${PLAN_NAMES[plan]}.
    <a href="/account#usage-title">Upgrade on your account page</a>.</p>
    <p>Free to everyone: each theme's name, summary, lifecycle status and its weekly mentions over
    the last 26 weeks, on the public page of each of its opportunities. How the status is read:
    <a href="/docs/trends">Trends over time</a>.</p>
  `;
  return page({ title: "Trends · Opportunity Intelligence", body });
}

/**
 * The page for `url` (its `status` parameter picks the status; anything else shows all), for an
 * account on `plan` (below Pro: the upgrade page, with no theme's growth or list).
 */
export async function trendsPage(sql: Sql, url: URL, plan: Plan): Promise<string> {
  if (PLAN_RANK[plan] < PLAN_RANK.pro) return upgradePage(plan);
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
