/**
 * The documentation of docs/*.md, served for people and for agents: `/docs` (the index),
 * `/docs/{page}` (HTML, with heading anchors and a contents list where the page has one),
 * `/docs/{page}.md` (the Markdown file itself, byte for byte), `/llms.txt` (the llmstxt.org index
 * of the pages) and `/llms-full.txt` (every page in one file). The files are imported as text, so
 * they are part of the module graph: the server reads nothing from disk, and a deployment serves
 * the documentation of its own commit. The interactive API reference is `/docs/api` (docs.ts).
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

/** A page of the documentation. */
export interface DocPage {
  /** Its name in URLs and in docs/: `/docs/{slug}`, docs/{slug}.md. */
  slug: string;
  /** The first heading of the file. */
  title: string;
  /** One line for the index and llms.txt. */
  summary: string;
  markdown: string;
}

function docPage(slug: string, summary: string, markdown: string): DocPage {
  const title = /^# (.+)$/m.exec(markdown)?.[1] ?? slug;
  return { slug, title, summary, markdown };
}

/** Every page, in reading order. */
export const DOC_PAGES: readonly DocPage[] = [
  docPage(
    "getting-started",
    "running the tests, how the docs are tested, every setting",
    GETTING_STARTED,
  ),
  docPage("rest", "every endpoint, the conventions, errors and keyword search", REST),
  docPage("usage", "the quota, and who spent it: per key, per day, per surface", USAGE),
  docPage(
    "mcp",
    "one-line installs, ChatGPT's search and fetch, the server card, every client and tool",
    MCP,
  ),
  docPage("oauth", "signing in from an AI client: consent, scopes and the protocol", OAUTH),
  docPage("watches", "saved searches that deliver new matches by webhook, e-mail or feed", WATCHES),
  docPage("billing", "self-serve plans with Stripe: checkout, portal, webhooks, set-up", BILLING),
  docPage("trends", "a theme's history, lifecycle status, growth windows and charts", TRENDS),
  docPage("import", "the import format, and how community text is scrubbed", IMPORT),
  docPage("web", "the home page, opportunity pages, articles, sitemap and account area", WEB),
  docPage("deploying", "Deno Deploy, connection poolers, failure behaviour and limits", DEPLOYING),
  docPage("operations", "the operator CLI, telemetry, the scale-out test and drills", OPERATIONS),
  docPage(
    "architecture",
    "the folders of the code and the rules that keep them apart",
    ARCHITECTURE,
  ),
];

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
const TEST_MARKER = /^[ \t]*<!-- readme-test: .* -->[ \t]*\n/gm;

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
  const markdown = doc.markdown.replace(TEST_MARKER, "");
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

/** `/docs`: every page with its summary. */
export function renderDocsIndex(base: string): string {
  return page({
    title: "Documentation · Opportunity Intelligence",
    description: "How to use and run Opportunity Intelligence: REST, MCP, OAuth, watches",
    head: html`<link rel="canonical" href="${base}/docs">`,
    body: html`<h1>Documentation</h1>
<p>Every page is also served as Markdown (add <code>.md</code> to its address);
<a href="/llms.txt">/llms.txt</a> lists them for agents and
<a href="/llms-full.txt">/llms-full.txt</a> holds them all in one file.</p>
<ul class="links">
${DOC_PAGES.map((p) => html`<li><a href="/docs/${p.slug}">${p.title}</a>: ${p.summary}</li>`)}
<li><a href="/docs/api">API reference</a>: every REST endpoint, interactive (Swagger UI)</li>
</ul>`,
  });
}

/** `/llms.txt` (llmstxt.org): the name, a summary, and links to the Markdown of every page. */
export function llmsTxt(base: string): string {
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
    ...DOC_PAGES.map((p) => `- [${p.title}](${base}/docs/${p.slug}.md): ${p.summary}`),
    "",
    "## API",
    "",
    `- [OpenAPI document](${base}/api/v1/openapi.json): the REST API, OpenAPI 3.1`,
    `- [MCP server card](${base}/.well-known/mcp/server-card.json): the MCP endpoint`,
    "",
    "## Optional",
    "",
    `- [Every page in one file](${base}/llms-full.txt)`,
    "",
  ].join("\n");
}

/** `/llms-full.txt`: every page's Markdown, in reading order, each after its address. */
export function llmsFullTxt(base: string): string {
  return DOC_PAGES.map((p) => `<!-- ${base}/docs/${p.slug}.md -->\n\n${p.markdown}`).join("\n");
}
