/**
 * What the public catalogue pages share: their head (canonical URL, Open Graph), a list of
 * opportunities as rows linking to their public pages, and the note on what needs a key (which
 * plan, the API call and tool that give it, the way to sign up). Links stay on HTML pages: a
 * visitor's browser is never sent into the JSON API, whose calls are named as code, not linked.
 */
import type { OpportunityListItem } from "../../catalog/schemas.ts";
import { html, type SafeHtml } from "../html.ts";

/** `<head>` additions of a public page whose canonical path is `path` (with its query). */
export function publicHead(
  base: string,
  options: { path: string; title: string; description: string; noindex?: boolean },
): SafeHtml {
  const url = base + options.path;
  return html`<link rel="canonical" href="${url}">
${options.noindex ? html`<meta name="robots" content="noindex, follow">` : ""}
<meta property="og:type" content="website">
<meta property="og:site_name" content="Opportunity Intelligence">
<meta property="og:title" content="${options.title}">
<meta property="og:description" content="${options.description}">
<meta property="og:url" content="${url}">
<meta name="twitter:card" content="summary">`;
}

/** The public page of an opportunity, as a path (links work on any host the site is served at). */
export function opportunityPath(item: { id: number; slug: string }): string {
  return `/opportunities/${item.id}/${item.slug}`;
}

/** One opportunity as a row: title (its page), verdict, score, audience and source. */
function opportunityRow(item: OpportunityListItem, level: "h2" | "h3"): SafeHtml {
  const title = html`<a href="${opportunityPath(item)}">${item.title}</a>`;
  return html`
    <li>
      ${level === "h2" ? html`<h2 class="opp-title">${title}</h2>` : html`<h3>${title}</h3>`}
      <p>Verdict <strong>${item.recommendation}</strong> · score <strong>${item
        .score}</strong>/100 · for ${item.target_audience || "a broad audience"}</p>
      <p class="muted">From ${item.platform}${item.channel_name
        ? ` (${item.channel_name})`
        : ""} · ${item.evidence_count} community ${item.evidence_count === 1 ? "post" : "posts"}</p>
    </li>
  `;
}

/** A list of opportunity rows; `level` is the heading level of each title. */
export function opportunityList(
  items: OpportunityListItem[],
  level: "h2" | "h3" = "h3",
): SafeHtml {
  if (items.length === 0) return html`<p class="muted">No opportunity here yet.</p>`;
  return html`<ul class="opps">${items.map((item) => opportunityRow(item, level))}</ul>`;
}

/** What a lifecycle status means, in a few words (docs/trends.md has the rule). */
export const STATUS_WORDS: Record<string, string> = {
  emerging: "from almost nothing to a real volume",
  rising: "mentions growing",
  steady: "mentions holding level",
  peaked: "rose and is falling back",
  declining: "mentions falling",
};

/** A theme's status as a phrase: "rising (mentions growing)", or "no history yet". */
export function statusPhrase(status: string | null): SafeHtml {
  if (!status) return html`<span class="muted">no mention history yet</span>`;
  return html`<strong>${status}</strong> <span class="muted">(${
    STATUS_WORDS[status] ??
      ""
  })</span>`;
}

/**
 * The note on what a key adds: `what` needs `plan`, answered by the REST call `rest` and the MCP
 * tool `mcp`; it links to sign-up and the plans, never to the API itself.
 */
export function keyNotice(options: {
  id: string;
  what: string;
  plan: "Pro" | "Business";
  rest: string;
  mcp: string;
}): SafeHtml {
  return html`
    <aside class="card notice" aria-labelledby="${options.id}">
      <h2 id="${options.id}">With an API key</h2>
      <p>On the ${options.plan} plan${options.plan === "Pro" ? " (or Business)" : ""}: ${options
        .what}. Your code calls the REST API, your AI assistant the MCP endpoint:</p>
      <ul>
        <li>REST: <code>${options.rest}</code></li>
        <li>MCP: the tool <code>${options.mcp}</code></li>
      </ul>
      <p><a href="/account">Create a free account</a> to get a key, then upgrade ·
    <a href="/#plans-title">Plans and prices</a> · <a href="/docs">Documentation</a></p>
    </aside>
  `;
}
