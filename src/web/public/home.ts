/**
 * The home page at `/`: what the service is, the plans (calls a month and which endpoints and
 * tools each has), how to connect (REST, the hosted MCP endpoint, the stdio package) and where
 * to go next. The plans come from the price list (platform/plans.ts) and the tier table of the
 * operations (OPERATIONS in metering/admission.ts); which REST endpoint and which MCP tool
 * answer each operation is handed in by the composition root, which reads the OpenAPI document
 * and the tool list (the web does not import the other edges).
 */
import { OPERATIONS } from "../../metering/admission.ts";
import type { OperationName } from "../../metering/operations.ts";
import {
  type Plan,
  PLAN_LIMITS,
  PLAN_NAMES,
  PLAN_RANK,
  PLANS,
  WATCH_LIMITS,
} from "../../platform/plans.ts";
import { formatPrice, LIST_PRICES, type PriceList } from "../../billing/prices.ts";
import { escapeHtml, html, page, SafeHtml } from "../html.ts";
import { installLines } from "../install_lines.ts";

/** The name of the stdio package on npm (a test checks it against npm-stdio/package.json). */
export const STDIO_PACKAGE = "oppintel-mcp";
/** The oldest Node.js it runs on (its `engines.node`, checked by the same test). */
export const STDIO_NODE = 20;

/**
 * What an endpoint or tool runs: an operation of OPERATIONS (tier and cost there), or "watch"
 * for the watch endpoints and tools (every plan, never charged, WATCH_LIMITS by plan).
 */
export type Offering = OperationName | "watch";

/** A REST endpoint and what it runs. */
export interface RestEndpoint {
  method: string;
  path: string;
  operation: Offering;
  summary: string;
}

/** An MCP tool and what it runs. */
export interface McpToolEntry {
  name: string;
  operation: Offering;
}

/** What the two surfaces offer, operation by operation. */
export interface Surfaces {
  rest: RestEndpoint[];
  mcp: McpToolEntry[];
}

function calls(n: number): string {
  return n.toLocaleString("en-US");
}

function planHeader(plan: Plan, prices: PriceList): SafeHtml {
  return html`
    <th
      scope="col">${PLAN_NAMES[plan]}<span class="plan-calls">${calls(
        PLAN_LIMITS[plan],
      )} calls a month</span><span class="plan-calls plan-price">${formatPrice(
        prices.prices[plan],
      )}</span></th>
  `;
}

/** Text that may wrap after a slash or an underscore, so that paths fit a narrow screen. */
function breakable(text: string): SafeHtml {
  return new SafeHtml(escapeHtml(text).replace(/([/_])/g, "$1<wbr>"));
}

function costOf(name: Offering): string {
  if (name === "watch") return "free of charge";
  const operation: { cost: 0 | 1; mayNotExist?: boolean } = OPERATIONS[name];
  if (operation.cost === 0) return "free of charge";
  if (name === "exportOpportunities") return "1 call per started 1,000 rows";
  return operation.mayNotExist ? "1 call (0 when not found)" : "1 call";
}

const INCLUDED =
  html`<span aria-hidden="true">✓</span><span class="visually-hidden">Included</span>`;

function cell(included: boolean, note?: string): SafeHtml {
  if (!included) {
    return html`
      <td
        class="no"><span aria-hidden="true">–</span><span class="visually-hidden">Not included</span></td>
    `;
  }
  return html`<td class="yes">${INCLUDED}${
    note
      ? html`
        <span class="cell-note">${note}</span>
      `
      : ""
  }</td>`;
}

/** The watches a plan keeps (webhook delivery needs a paid plan: src/watches/watches.ts). */
function watchNote(plan: Plan): string {
  const n = WATCH_LIMITS[plan];
  return `${n} watch${n === 1 ? "" : "es"}${plan === "free" ? ", e-mail and feed" : ""}`;
}

/** The endpoints of a row, one line per path with its methods. */
function restLines(rest: RestEndpoint[]): SafeHtml[] {
  const methods = new Map<string, string[]>();
  for (const e of rest) methods.set(e.path, [...methods.get(e.path) ?? [], e.method]);
  return [...methods].map(([path, m]) =>
    html`<code class="op">${m.join(", ")} ${breakable(path)}</code>`
  );
}

function offeringRow(name: Offering, surfaces: Surfaces): SafeHtml | undefined {
  const rest = surfaces.rest.filter((e) => e.operation === name);
  const tools = surfaces.mcp.filter((t) => t.operation === name);
  if (rest.length === 0 && tools.length === 0) return undefined;
  const title = name === "watch"
    ? "Watches: saved searches that deliver new matches (webhook, e-mail digest, Atom feed)"
    : rest[0]?.summary ?? tools[0].name;
  const cells = name === "watch"
    ? PLANS.map((plan) => cell(true, watchNote(plan)))
    : PLANS.map((plan) => cell(PLAN_RANK[plan] >= PLAN_RANK[OPERATIONS[name].plan]));
  return html`<tr>
<th scope="row"><span class="op-title">${title}</span>
${restLines(rest)}
${tools.map((t) => html`<code class="op">MCP ${breakable(t.name)}</code>`)}
<span class="op-cost">${costOf(name)}</span></th>
${cells}
</tr>`;
}

function plansTable(surfaces: Surfaces, prices: PriceList): SafeHtml {
  const names: Offering[] = [...Object.keys(OPERATIONS) as OperationName[], "watch"];
  const rows = names.map((name) => offeringRow(name, surfaces)).filter((r) => r !== undefined);
  return html`
    <section class="table-scroll" aria-label="Plan comparison" tabindex="0">
      <table class="plans">
        <caption>What each plan includes: REST endpoints and MCP tools, and what a call costs</caption>
        <thead>
          <tr><th scope="col">Endpoint or tool</th>${PLANS.map((p) => planHeader(p, prices))}</tr>
        </thead>
        <tbody>
    ${rows}
        </tbody>
      </table>
    </section>
  `;
}

function codeBlock(id: string, text: string): SafeHtml {
  return html`
    <div class="code">
      <pre id="${id}"><code>${text}</code></pre>
      <button type="button" class="secondary copy" data-copy-target="${id}" hidden>Copy</button>
    </div>
  `;
}

function remoteConfig(base: string): string {
  return JSON.stringify(
    {
      mcpServers: {
        oppintel: { url: `${base}/mcp/`, headers: { "X-API-Key": "oi_live_your_key_here" } },
      },
    },
    null,
    2,
  );
}

/**
 * The home page, for a service whose public address is `base` (no trailing slash). `prices` are
 * the plans' monthly prices (Stripe's when billing is on); `selfServe` says whether customers
 * change plans themselves (Stripe Billing) or ask us.
 */
export function renderHome(
  base: string,
  surfaces: Surfaces,
  options: {
    prices?: PriceList;
    selfServe?: boolean;
    // ---- The live catalogue (src/web/public/home_live.ts) ----
    /** The catalogue's counts and example questions, shown after the introduction. */
    live?: SafeHtml;
    // ---- end of the live catalogue ----
  } = {},
): string {
  const prices = options.prices ?? LIST_PRICES;
  const change = options.selfServe
    ? html`
      Upgrade, change your card or cancel yourself from your
          <a
        href="/account">account</a> (payment by card through Stripe); an upgrade takes effect at once.
    `
    : html`Plans are changed by us: ask from your <a href="/account">account</a>.`;
  const free = PLAN_LIMITS.free;
  const curl = `curl -H "X-API-Key: $OPPINTEL_API_KEY" \\\n  "${base}/api/v1/overview"`;
  const install = installLines(base);
  const body = html`
    <section class="hero">
      <h1 id="home-title">Opportunity Intelligence</h1>
      <p class="lead">Business opportunities mined from online communities (Reddit, Hacker News,
    Product Hunt, Stack Exchange and more), scored and explained, for your code and your AI
    assistant.</p>
      <p>Each <strong>category</strong> holds <strong>themes</strong>: a pain point many people
    talk about, with its trend over the last 30 days. Each theme holds
    <strong>opportunities</strong>: a concrete product idea with scores, a verdict, features,
    competitors, risks and quotes from the people who asked for it. Long-form
    <a href="/blog">articles</a> analyse the best of them.</p>
      <p>One API key and one monthly quota serve two surfaces: a REST API and a Model Context
    Protocol (MCP) endpoint that AI clients call as tools. Start free with ${calls(free)} calls a
    month: <a href="/account">create an account</a>.</p>
    </section>
    ${options.live}

    <section>
      <h2 id="plans-title">Plans</h2>
      <p>The quota counts calls of both surfaces together and resets at 00:00 UTC on the 1st of
    each month. Only successful calls count; errors never do. The same call twice is charged once:
    asked again by the same account within 24 hours, on the same data, through REST or MCP, it is
    free (an export is always charged). ${change}</p>
      ${plansTable(surfaces, prices)}
    </section>

    <section>
      <h2 id="connect-title">Connect</h2>
      <p>Every call needs your key, sent in the <code>X-API-Key</code> header. Get one in your
    <a href="/account">account</a>; it is shown once.</p>
      <h3>REST</h3>
      <p>JSON over HTTPS: every read is a <code>GET</code>; watches are also written with
    <code>POST</code>, <code>PATCH</code> and <code>DELETE</code>. The
    <a href="/docs/api">API reference</a> describes each parameter and answer and lets you try
    them with your key.</p>
      ${codeBlock("curl-example", curl)}
      <h3>MCP, hosted</h3>
      <p>Clients that connect to remote MCP servers (Streamable HTTP) use this address, with the
    same header:</p>
      ${codeBlock("mcp-url", `${base}/mcp/`)}
      <p>For example in Cursor's <code>mcp.json</code>:</p>
      ${codeBlock("mcp-remote-config", remoteConfig(base))}
      <h3 id="install-title">Install in one line</h3>
      <p>Claude Code, with your key:</p>
      ${codeBlock("install-claude-code", install.claudeCode)}
      <p>Cursor and VS Code get the address alone and sign you in through OAuth on first use (no
    key to paste): <a href="${install.cursorLink}">Add to Cursor</a> ·
    <a href="${install.vscodeLink}">Add to VS Code</a>, or from a terminal:</p>
      ${codeBlock("install-vscode", install.vscodeCommand)}
      <p>ChatGPT: add the address as a connector with OAuth; deep research uses its
    <code>search</code> and <code>fetch</code> tools, and cites each result's public page.
    <a href="/docs/mcp">Every client</a>.</p>
      <h3>MCP, local stdio package</h3>
      <p>Desktop clients that start servers as processes can run the
    <code>${STDIO_PACKAGE}</code> package (Node.js ${STDIO_NODE} or later), which this service
    serves itself: <code>npx -y ${install.stdioTarball}</code>. It offers
    <code>query_opportunities</code> and <code>get_opportunity</code> and calls the REST API
    with your key. In Claude Desktop's or Cursor's configuration:</p>
      ${codeBlock("mcp-stdio-config", JSON.stringify(install.stdioConfig, null, 2))}
      <p>Once the package is published on npm, <code>npx -y ${STDIO_PACKAGE}</code> works
    too.</p>
    </section>

    <section>
      <h2 id="more-title">More</h2>
      <ul class="links">
        <li><a href="/docs">Documentation</a>: getting started, REST, MCP and clients, OAuth,
    watches, deploying (each page also as Markdown; <a href="/llms.txt">llms.txt</a> lists them)</li>
        <li><a href="/docs/api">API reference</a>: every endpoint, interactive</li>
        <li><a href="/api/v1/openapi.json">OpenAPI document</a> (OpenAPI 3.1, JSON)</li>
        <li><a href="/blog">Articles</a>: weekly analyses of validated opportunities</li>
        <li><a href="/account">Account</a>: sign up or sign in, keys and usage</li>
      </ul>
    </section>
  `;
  return page({
    title: "Opportunity Intelligence: business opportunities for code and AI",
    description: "Business opportunities mined from online communities, scored, over a REST " +
      "API and an MCP endpoint",
    head: html`<link rel="canonical" href="${base}/">
<script src="/assets/copy.js" defer></script>`,
    body,
  });
}
