/**
 * The public web of the service: the home page (/), the documentation (/docs, each page also as
 * Markdown, /llms.txt), the API reference (/docs/api), article pages (/blog), opportunity pages
 * (/opportunities), the sitemap, the MCP server card, the account area (/account), OAuth and the
 * watches' pages, and their static files (/assets, /docs/assets). `createWebHandler` answers
 * those paths and returns undefined for every other one; the app tries it last, after /healthz,
 * /mcp and /api/v1, and answers 404 JSON then.
 */
import { redactKeys } from "../platform/request_log.ts";
import { MethodNotAllowedError, NotFoundError } from "../platform/errors.ts";
import { errorResponse } from "../platform/responses.ts";
import type { Sql } from "../db/open.ts";
import type { ReadRouter } from "../db/replicas.ts";
import { type AccountSettings, createAccountArea, DEFAULT_SETTINGS } from "./account/account.ts";
import { COPY_JS, WEB_CSS } from "./assets.ts";
import { blogPage } from "./public/blog.ts";
import { cachedPage, createPageCache, staticPage } from "./page_cache.ts";
import type { MemoryBudget } from "../platform/memory.ts";
import { DOCS_ASSETS } from "./docs/api_reference.ts";
import { DOC_PAGES } from "./docs/pages.ts";
import { createDocsSite } from "./docs/site.ts";
import { SERVER_CARD_PATHS, serveServerCard } from "./server_card.ts";
import { isDownloadPath, serveDownload } from "./downloads.ts";
import { renderHome, type Surfaces } from "./public/home.ts";
import { html, page } from "./html.ts";
import { isOpportunityPath, opportunityPage } from "./public/opportunity_page.ts";
import { createSitemap, isSitemapPath } from "./public/sitemap.ts";
import { createMailer, type Mailer } from "../platform/mailer.ts";
import { securityHeaders } from "./security.ts";
import { isWatchPagePath, serveWatchPage } from "./account/watch_pages.ts";
import { createWatchService, type WatchService } from "../watches/service.ts";
import type { DocumentPolicy } from "../oauth/documents.ts";
import { createOAuthEndpoints, isOAuthPath } from "./oauth.ts";
import type { BillingSetup } from "../billing/setup.ts";
import { LIST_PRICES, type PriceList } from "../billing/prices.ts";
import { signatureCanBeValid } from "../billing/webhook.ts";
import { json } from "../platform/responses.ts";
import { type Content, createContent } from "../catalog/content.ts";
import { isPublicSitePath, publicSitePage } from "./public/public_site.ts";
import { isCatalogueSearch, limitSearch } from "./public/search_limit.ts";
import { readHomeLive, renderHomeLive } from "./public/home_live.ts";
import { type QueryContext, readDataVersion } from "../catalog/common.ts";

/** Where Stripe sends its events (configured on Stripe's webhook endpoint). */
export const BILLING_WEBHOOK_PATH = "/billing/webhook";

export type { Offering, Surfaces } from "./public/home.ts";

/** What the web needs; only `sql` and `context` are required. */
export interface WebDeps {
  sql: Sql;
  /**
   * Where the public pages' catalogue reads run (src/db/replicas.ts: a replica that has replayed
   * the primary's data version, or the primary itself); without it, on the primary.
   */
  reads?: ReadRouter;
  context: QueryContext;
  /** The cached content operations shared with the API (made on `sql` when not given). */
  content?: Content;
  /** Delivers the account area's mails; defaults to writing them to standard error. */
  mailer?: Mailer;
  /** Forces the `Secure` cookie attribute on or off; by default on except for localhost. */
  secureCookies?: boolean;
  /** An address shown on the dashboard for plan changes. */
  contactEmail?: string;
  /**
   * The client's address for the rate limits. The default is the socket's peer from Deno.serve's
   * second argument; behind a proxy, pass a function that reads the proxy's header instead.
   */
  clientIp?: (request: Request, info?: Deno.ServeHandlerInfo) => string;
  /** Keyless catalogue searches per client address and minute (default 60). */
  searchesPerMinute?: number;
  /** Lifetimes and rate limits (tests shorten them). */
  settings?: Partial<AccountSettings>;
  /** Receives error entries; defaults to a JSON line on standard error. */
  log?: (entry: Record<string, unknown>) => void;
  /** The memory budget the rendered pages' cache draws from (src/platform/memory.ts). */
  memory?: MemoryBudget;
  /** The watch operations of the dashboard; by default made on `sql` with no SSRF allow-list. */
  watches?: WatchService;
  /**
   * The REST endpoints and MCP tools of each operation, for the home page's plan table (the
   * composition root reads them from the other edges); without it the table is empty.
   */
  surfaces?: Surfaces;
  /**
   * Stripe Billing (src/billing/setup.ts): the dashboard's upgrade and Billing buttons and the
   * webhook at /billing/webhook. Without it plans are changed by the operator.
   */
  billing?: BillingSetup;
  /** The token of /.well-known/openai-apps-challenge; without it the path answers 404. */
  openaiAppsChallenge?: string;
  /** The MCP server card (src/surfaces.ts); without it its paths answer 404. */
  serverCard?: Record<string, unknown>;
  /** URLs per sitemap file (the protocol's 50,000 unless a test makes it small). */
  sitemapMaxUrls?: number;
  /** The OAuth authorization server: how client ID metadata documents are fetched, and limits. */
  oauth?: {
    documents?: DocumentPolicy;
    registrationsPerHour?: number;
    documentFetchesPerHour?: number;
  };
}

/** The answer of a web path, or undefined for a path the web does not serve. */
export type WebHandler = (
  request: Request,
  info?: Deno.ServeHandlerInfo,
) => Promise<Response | undefined>;

const ASSETS: Record<string, { body: string; type: string }> = {
  "/assets/web.css": { body: WEB_CSS, type: "text/css; charset=utf-8" },
  "/assets/copy.js": { body: COPY_JS, type: "text/javascript; charset=utf-8" },
  ...DOCS_ASSETS,
};

function defaultIp(_request: Request, info?: Deno.ServeHandlerInfo): string {
  const addr = info?.remoteAddr;
  return addr && "hostname" in addr ? addr.hostname : "unknown";
}

/**
 * The client's address behind one trusted reverse proxy: the last entry of X-Forwarded-For
 * (the one the proxy added; earlier entries come from the client and can be forged), else the
 * socket's peer. Use it as `clientIp` only when a proxy always sets the header.
 */
export function forwardedClientIp(request: Request, info?: Deno.ServeHandlerInfo): string {
  const forwarded = request.headers.get("x-forwarded-for")?.split(",").map((s) => s.trim())
    .filter((s) => s.length > 0);
  return forwarded?.at(-1) ?? defaultIp(request, info);
}

const LLMS_PATHS = ["/llms.txt", "/llms-full.txt"];

/** Where ChatGPT's app directory reads the domain verification token. */
const OPENAI_CHALLENGE_PATH = "/.well-known/openai-apps-challenge";

function isWebPath(path: string): boolean {
  return path === "/" || path === "/docs" || path.startsWith("/docs/") || path === "/blog" ||
    path.startsWith("/blog/") || isOpportunityPath(path) || isPublicSitePath(path) ||
    isSitemapPath(path) ||
    LLMS_PATHS.includes(path) || SERVER_CARD_PATHS.includes(path) || path === "/account" ||
    path.startsWith("/account/") || path in ASSETS || isOAuthPath(path) ||
    path === BILLING_WEBHOOK_PATH || isDownloadPath(path) || path === OPENAI_CHALLENGE_PATH;
}

function htmlPage(status: number, title: string, text: string): Response {
  const body = page({
    title: `${title} · Opportunity Intelligence`,
    body: html`
      <h1>${title}</h1>
      <p>${text}</p>
    `,
  });
  return new Response(body, {
    status,
    headers: { "Content-Type": "text/html; charset=utf-8", ...securityHeaders("public") },
  });
}

/** The methods of the read-only pages (the app answers HEAD as GET without the body). */
const READ_METHODS = "GET, HEAD";

/** Builds the handler of the public web: /, /docs, /blog, /account and their assets. */
export function createWebHandler(deps: WebDeps): WebHandler {
  const log = deps.log ?? ((entry) => console.error(JSON.stringify(entry)));
  const cache = createPageCache(deps.memory);
  const content = deps.content ?? createContent(deps.sql, deps.context);
  const clientIp = deps.clientIp ?? defaultIp;
  const onCatalogue = <T>(read: (sql: Sql) => Promise<T>): Promise<T> =>
    deps.reads ? deps.reads.run(undefined, read) : read(deps.sql);
  // The home page changes with a deployment, Stripe's prices (read once, and again while they
  // could not be read) and its live part, the catalogue's counts and examples (each data version).
  let prices: Promise<PriceList> | undefined;
  const priceList = () =>
    prices ??= (async () => {
      const list = deps.billing ? await deps.billing.billing.priceList() : LIST_PRICES;
      if (deps.billing && list.source !== "stripe") prices = undefined;
      return list;
    })();
  const renderHomePage = async (version?: number) => {
    // Without the database the home page still answers, without its live part.
    const live = version === undefined
      ? undefined
      : await readHomeLive({ content, sql: deps.sql, base: deps.context.publicBaseUrl }, version)
        .catch(() => undefined);
    return await staticPage(
      renderHome(deps.context.publicBaseUrl, deps.surfaces ?? { rest: [], mcp: [] }, {
        prices: await priceList(),
        selfServe: deps.billing !== undefined,
        live: live && renderHomeLive(live),
      }),
    );
  };
  const homePage = async () => {
    const version = await readDataVersion(deps.sql).catch(() => undefined);
    if (version === undefined) return await renderHomePage();
    return (await cachedPage(cache, version, "home", () => renderHomePage(version)))!;
  };
  const base = deps.context.publicBaseUrl;
  const docsSite = createDocsSite(base);
  const account = createAccountArea({
    sql: deps.sql,
    context: deps.context,
    mailer: deps.mailer ?? createMailer(),
    settings: { ...DEFAULT_SETTINGS, ...deps.settings },
    secureCookies: deps.secureCookies,
    contactEmail: deps.contactEmail,
    log,
    watches: deps.watches ??
      createWatchService(deps.sql, { publicBaseUrl: deps.context.publicBaseUrl }),
    documents: deps.oauth?.documents,
    billing: deps.billing?.billing,
  });
  const sitemap = createSitemap({
    sql: deps.sql,
    context: deps.context,
    staticPaths: [
      "/",
      "/opportunities",
      "/blog",
      "/docs",
      ...DOC_PAGES.map((p) => `/docs/${p.slug}`),
      "/docs/api",
    ],
    maxUrls: deps.sitemapMaxUrls,
  });
  const oauth = createOAuthEndpoints({
    sql: deps.sql,
    publicBaseUrl: deps.context.publicBaseUrl,
    documents: deps.oauth?.documents,
    registrationsPerHour: deps.oauth?.registrationsPerHour,
    documentFetchesPerHour: deps.oauth?.documentFetchesPerHour,
  });

  /** Stripe's events: the raw bytes (read within the body deadline and bound by the app). */
  async function billingWebhook(request: Request): Promise<Response> {
    if (request.method !== "POST") {
      return errorResponse(new MethodNotAllowedError(request.method, "POST"));
    }
    if (!deps.billing) return errorResponse(new NotFoundError("Billing is not configured"));
    const signature = request.headers.get("stripe-signature");
    // Unsigned, or signed in a way that cannot be valid: refused without reading a byte (the app
    // did not read it either), so a client that promises a body and never sends it holds nothing.
    const plausible = signatureCanBeValid(signature);
    if (!plausible) await request.body?.cancel().catch(() => {});
    const body = plausible ? new Uint8Array(await request.arrayBuffer()) : new Uint8Array();
    const answer = await deps.billing.webhook(body, signature);
    return json(answer.status, answer.body);
  }

  async function serve(
    request: Request,
    url: URL,
    info: Deno.ServeHandlerInfo | undefined,
  ): Promise<Response> {
    const path = url.pathname;
    const isRead = request.method === "GET" || request.method === "HEAD";
    const asset = ASSETS[path];
    if (asset) {
      if (!isRead) return errorResponse(new MethodNotAllowedError(request.method, READ_METHODS));
      return new Response(asset.body, {
        headers: {
          "Content-Type": asset.type,
          "Cache-Control": "public, max-age=3600",
          ...securityHeaders("public"),
        },
      });
    }
    if (isOAuthPath(path)) return await oauth(request, clientIp(request, info));
    if (path === BILLING_WEBHOOK_PATH) return await billingWebhook(request);
    if (path === OPENAI_CHALLENGE_PATH && deps.openaiAppsChallenge) {
      if (!isRead) return errorResponse(new MethodNotAllowedError(request.method, READ_METHODS));
      return new Response(deps.openaiAppsChallenge, {
        headers: { "Content-Type": "text/plain; charset=utf-8", ...securityHeaders("public") },
      });
    }
    if (SERVER_CARD_PATHS.includes(path) && deps.serverCard) {
      if (!isRead && request.method !== "OPTIONS") {
        return errorResponse(new MethodNotAllowedError(request.method, "GET, HEAD, OPTIONS"));
      }
      return await serveServerCard(request, path, { card: deps.serverCard, base });
    }
    if (path === "/account" || path.startsWith("/account/")) {
      const answer = await account(request, clientIp(request, info));
      // The security headers win over the page's own; a page may only name one more place its
      // forms go to (the consent page's form-action, web/account/oauth_consent.ts).
      const headers = new Headers({
        ...answer.headers,
        ...securityHeaders("private", { formAction: answer.formAction }),
      });
      for (const c of answer.cookies ?? []) headers.append("Set-Cookie", c);
      return new Response(answer.body ?? null, { status: answer.status, headers });
    }
    if (!isRead) return errorResponse(new MethodNotAllowedError(request.method, READ_METHODS));
    if (path === "/docs/api") return await docsSite.apiReference(request);
    if (isDownloadPath(path)) {
      return await serveDownload(request, path, deps.context.publicBaseUrl) ??
        htmlPage(404, "Page not found", "There is no download at this address.");
    }
    if (isSitemapPath(path)) {
      const answer = await onCatalogue((sql) => sitemap(request, path, sql));
      if (answer) return answer;
      return htmlPage(404, "Page not found", "There is no sitemap at this address.");
    }
    if (isCatalogueSearch(url)) {
      const refused = await limitSearch(deps.sql, clientIp(request, info), deps.searchesPerMinute);
      if (refused) return refused;
    }
    const pages = (sql: Sql) => ({ sql, context: deps.context, cache });
    const opportunity = isOpportunityPath(path) || isPublicSitePath(path);
    const rendered = path === "/"
      ? await homePage()
      : isPublicSitePath(path)
      ? await onCatalogue((sql) => publicSitePage({ ...pages(sql), content }, url))
      : opportunity
      ? await onCatalogue((sql) => opportunityPage(pages(sql), path))
      : path.startsWith("/blog")
      ? await onCatalogue((sql) => blogPage(pages(sql), path, url.searchParams))
      : await docsSite.page(path);
    if (!rendered) {
      const what = path.startsWith("/themes/")
        ? "theme"
        : path.startsWith("/categories/")
        ? "category"
        : opportunity
        ? "opportunity"
        : path.startsWith("/blog")
        ? "article"
        : "page";
      return htmlPage(404, "Page not found", `There is no ${what} at this address.`);
    }
    if (rendered.location) {
      return new Response(null, {
        status: rendered.status,
        headers: { Location: rendered.location, ...securityHeaders("public") },
      });
    }
    const headers = {
      "Content-Type": rendered.contentType,
      "Cache-Control": "public, max-age=60",
      ETag: rendered.etag,
      ...securityHeaders("public"),
    };
    if (request.headers.get("if-none-match") === rendered.etag) {
      return new Response(null, { status: 304, headers });
    }
    return new Response(rendered.body, { status: rendered.status, headers });
  }

  return async function webHandler(request, serveInfo) {
    const url = new URL(request.url);
    const watchPage = isWatchPagePath(url.pathname);
    if (!watchPage && !isWebPath(url.pathname)) return undefined;
    try {
      return watchPage
        ? await serveWatchPage(request, url, {
          sql: deps.sql,
          publicBaseUrl: deps.context.publicBaseUrl,
        })
        : await serve(request, url, serveInfo);
    } catch (error) {
      log({
        level: "error",
        method: request.method,
        // Only the path (the query of an account link carries a token), without key shapes.
        path: redactKeys(url.pathname),
        error: error instanceof Error ? error.stack ?? error.message : String(error),
      });
      return htmlPage(500, "Something went wrong", "Please try again in a moment.");
    }
  };
}
