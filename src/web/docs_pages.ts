/**
 * The documentation of docs/*.md, served for people and for agents: `/docs` (the index),
 * `/docs/{page}` (HTML, with heading anchors and a contents list where the page has one),
 * `/docs/{page}.md` (the Markdown file), `/llms.txt` (the llmstxt.org index of the pages) and
 * `/llms-full.txt` (in one file, what an agent needs to use the API and the tools: the pages for
 * those who use the service, without the sections marked for those who run it). The files are
 * imported as text, so they are part of the module graph: the server reads nothing from disk, and
 * a deployment serves the documentation of its own commit. The interactive API reference is
 * `/docs/api` (docs.ts).
 *
 * The files name the hosted address (`https://oppintel.example.com`) and the local one
 * (`http://localhost:8000`), which tests/readme_test.ts points at a running service; every
 * instance serves them with its own PUBLIC_BASE_URL in their place, so that what an agent reads
 * there is true there.
 */
import GETTING_STARTED from "../../docs/getting-started.md" with { type: "text" };
import REST from "../../docs/rest.md" with { type: "text" };
import USAGE from "../../docs/usage.md" with { type: "text" };
import MCP from "../../docs/mcp.md" with { type: "text" };
import OAUTH from "../../docs/oauth.md" with { type: "text" };
import WATCHES from "../../docs/watches.md" with { type: "text" };
import BILLING from "../../docs/billing.md" with { type: "text" };
import IMPORT from "../../docs/import.md" with { type: "text" };
import TRENDS from "../../docs/trends.md" with { type: "text" };
import WEB from "../../docs/web.md" with { type: "text" };
import DEPLOYING from "../../docs/deploying.md" with { type: "text" };
import OPERATIONS from "../../docs/operations.md" with { type: "text" };
import ARCHITECTURE from "../../docs/architecture.md" with { type: "text" };
import { html, page, SafeHtml } from "./html.ts";
import { renderMarkdown } from "./markdown.ts";
import { installLines } from "./install_lines.ts";

/** A page of the documentation. */
export interface DocPage {
  /** Its name in URLs and in docs/: `/docs/{slug}`, docs/{slug}.md. */
  slug: string;
  /** The first heading of the file. */
  title: string;
  /** One line for the index and llms.txt. */
  summary: string;
  markdown: string;
  /** For those who use the API and the tools (in /llms-full.txt), or for those who run it. */
  audience: "use" | "run";
}

function docPage(
  slug: string,
  summary: string,
  markdown: string,
  audience: "use" | "run",
): DocPage {
  const title = /^# (.+)$/m.exec(markdown)?.[1] ?? slug;
  return { slug, title, summary, markdown, audience };
}

/** The addresses the files name, replaced by the instance's own. */
export const HOSTED_BASE = "https://oppintel.example.com";
export const LOCAL_BASE = "http://localhost:8000";

/** `markdown` as served by the instance at `base`: its addresses and install links in place. */
export function forInstance(markdown: string, base: string): string {
  const hosted = installLines(HOSTED_BASE);
  const here = installLines(base);
  // The links carry the address encoded (base64, percent-encoding): replaced whole, first.
  return markdown.replaceAll(hosted.cursorLink, here.cursorLink)
    .replaceAll(hosted.vscodeLink, here.vscodeLink)
    .replaceAll(HOSTED_BASE, base).replaceAll(LOCAL_BASE, base);
}

// A section under this marker (to the next heading of its level or above) is for those who run
// the service: left out of /llms-full.txt.
const RUN_MARKER = "<!-- llms-full: skip -->";

/** `markdown` without its sections marked for those who run the service. */
export function withoutRunSections(markdown: string): string {
  const out: string[] = [];
  // The level of the heading of the section being left out (0: none), and where it starts.
  let skipping = 0;
  let start = -1;
  let fenced = false; // a `# comment` in a shell block is no heading
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (/^\s*```/.test(lines[i])) fenced = !fenced;
    const heading = fenced ? null : /^(#{1,6}) /.exec(lines[i]);
    if (skipping && heading && i > start && heading[1].length <= skipping) skipping = 0;
    if (lines[i].trim() === RUN_MARKER) {
      start = lines.findIndex((l, n) => n > i && l.trim() !== "");
      skipping = /^(#{1,6}) /.exec(lines[start] ?? "")?.[1].length ?? 0;
      continue;
    }
    if (!skipping) out.push(lines[i]);
  }
  return out.join("\n");
}

/** Every page, in reading order. */
export const DOC_PAGES: readonly DocPage[] = [
  docPage(
    "getting-started",
    "running the service and the tests, how the docs are tested, every setting",
    GETTING_STARTED,
    "run",
  ),
  docPage("rest", "every endpoint, the conventions, errors and keyword search", REST, "use"),
  docPage("usage", "who spent the month's calls: per key, per day, per surface", USAGE, "use"),
  docPage(
    "mcp",
    "one-line installs, ChatGPT's search and fetch, the server card, every client and tool",
    MCP,
    "use",
  ),
  docPage("oauth", "what the consent allows, scopes, disconnecting, the protocol", OAUTH, "use"),
  docPage(
    "watches",
    "saved searches that deliver new matches by webhook, e-mail or feed",
    WATCHES,
    "use",
  ),
  docPage(
    "billing",
    "checkout, the customer portal, webhooks, and setting Stripe up",
    BILLING,
    "run",
  ),
  docPage(
    "trends",
    "a theme's history, lifecycle status, growth windows and charts",
    TRENDS,
    "use",
  ),
  docPage(
    "import",
    "loading content as JSON Lines, and how community text is scrubbed",
    IMPORT,
    "run",
  ),
  docPage(
    "web",
    "the home page, opportunity pages, articles, sitemap and account area",
    WEB,
    "run",
  ),
  docPage(
    "deploying",
    "Deno Deploy, connection poolers, failure behaviour and limits",
    DEPLOYING,
    "run",
  ),
  docPage(
    "operations",
    "the operator CLI, telemetry, the scale-out test and drills",
    OPERATIONS,
    "run",
  ),
  docPage(
    "architecture",
    "the folders of the code and the rules that keep them apart",
    ARCHITECTURE,
    "run",
  ),
];

/** The pages of /llms-full.txt: what an agent needs to use the API and the tools. */
export const AGENT_PAGES: readonly DocPage[] = DOC_PAGES.filter((p) => p.audience === "use");

const BY_SLUG = new Map(DOC_PAGES.map((p) => [p.slug, p]));

/** The page of a path under /docs/: `{slug}` as HTML, `{slug}.md` as Markdown. */
export function docOf(path: string): { page: DocPage; markdown: boolean } | undefined {
  const match = /^\/docs\/([a-z-]+)(\.md)?$/.exec(path);
  const found = match && BY_SLUG.get(match[1]);
  return found ? { page: found, markdown: match[2] !== undefined } : undefined;
}

// A link between pages (`rest.md#conventions`) goes to the HTML page; `../README.md` (the
// repository's front page) to the site's.
function mapHref(href: string): string {
  if (href === "../README.md") return "/";
  const match = /^([a-z-]+)\.md(#.*)?$/.exec(href);
  return match && BY_SLUG.has(match[1]) ? `/docs/${match[1]}${match[2] ?? ""}` : href;
}

// The markers tests/readme_test.ts reads are for the Markdown reader, not the page.
const TEST_MARKER = /^[ \t]*<!-- (readme-test: .*|llms-full: skip) -->[ \t]*\n/gm;

function docsNav(current?: string): SafeHtml {
  return html`
    <nav class="docs-nav" aria-label="Documentation">
      <ul>
    ${DOC_PAGES.map((p) =>
      p.slug === current
        ? html`<li><a href="/docs/${p.slug}" aria-current="page">${p.title}</a></li>`
        : html`<li><a href="/docs/${p.slug}">${p.title}</a></li>`
    )}
    <li><a href="/docs/api">API reference</a></li>
      </ul>
    </nav>
  `;
}

/** The HTML page of `doc`, for a service at `base`. */
export function renderDocPage(doc: DocPage, base: string): string {
  const markdown = forInstance(doc.markdown, base).replace(TEST_MARKER, "");
  const body = renderMarkdown(markdown, { title: doc.title, anchors: true, href: mapHref });
  return page({
    title: `${doc.title} · Opportunity Intelligence docs`,
    description: `Opportunity Intelligence documentation: ${doc.summary}`,
    head: html`<link rel="canonical" href="${base}/docs/${doc.slug}">
<link rel="alternate" type="text/markdown" href="/docs/${doc.slug}.md">`,
    body: html`
      <article>
        <h1>${doc.title}</h1>
        <p class="meta">Also as <a href="/docs/${doc
          .slug}.md">Markdown</a>, for agents and editors.</p>
        <div class="article-body docs-body">
      ${new SafeHtml(body)}
        </div>
      </article>
      ${docsNav(doc.slug)}
    `,
  });
}

function indexList(audience: "use" | "run"): SafeHtml {
  return html`<ul class="links">
${
    DOC_PAGES.filter((p) => p.audience === audience).map((p) =>
      html`<li><a href="/docs/${p.slug}">${p.title}</a>: ${p.summary}</li>`
    )
  }
${
    audience === "use"
      ? html`<li><a href="/docs/api">API reference</a>: every REST endpoint, interactive</li>`
      : ""
  }
</ul>`;
}

/** `/docs`: every page with its summary, those for using the service first. */
export function renderDocsIndex(base: string): string {
  return page({
    title: "Documentation · Opportunity Intelligence",
    description: "How to use and run Opportunity Intelligence: REST, MCP, OAuth, watches",
    head: html`<link rel="canonical" href="${base}/docs">`,
    body: html`<h1>Documentation</h1>
<p>Every page is also served as Markdown (add <code>.md</code> to its address).
<a href="/llms.txt">/llms.txt</a> lists them for agents, and
<a href="/llms-full.txt">/llms-full.txt</a> holds in one file what an agent needs to use the API
and the tools.</p>
<h2 id="use">Using the API and the tools</h2>
${indexList("use")}
<h2 id="run">Running the service</h2>
${indexList("run")}`,
  });
}

/** `/llms.txt` (llmstxt.org): the name, a summary, and links to the Markdown of every page. */
export function llmsTxt(base: string): string {
  const link = (p: DocPage) => `- [${p.title}](${base}/docs/${p.slug}.md): ${p.summary}`;
  return [
    "# Opportunity Intelligence",
    "",
    "> Read-only access to AI-scored business opportunities mined from online communities, " +
    "grouped into categories and themes, plus research articles: a REST API under /api/v1 and " +
    "an MCP endpoint at /mcp/ sharing one API key and one monthly quota.",
    "",
    `Every opportunity has a public page at its url (${base}/opportunities/{id}/{slug}); the MCP ` +
    "tools search and fetch serve ChatGPT connectors and deep research.",
    "",
    "## Docs",
    "",
    ...AGENT_PAGES.map(link),
    `- [Using the API and the tools, in one file](${base}/llms-full.txt)`,
    "",
    "## API",
    "",
    `- [OpenAPI document](${base}/api/v1/openapi.json): the REST API, OpenAPI 3.1`,
    `- [MCP server card](${base}/.well-known/mcp/server-card.json): the MCP endpoint`,
    "",
    "## Optional",
    "",
    ...DOC_PAGES.filter((p) => p.audience === "run").map(link),
    "",
  ].join("\n");
}

/**
 * `/llms-full.txt`: the pages for using the service, in reading order, each after its address,
 * as the instance at `base` serves them, without the sections for running it and the markers.
 */
export function llmsFullTxt(base: string): string {
  return AGENT_PAGES.map((p) =>
    `<!-- ${base}/docs/${p.slug}.md -->\n\n` +
    withoutRunSections(forInstance(p.markdown, base)).replace(TEST_MARKER, "")
  ).join("\n");
}
