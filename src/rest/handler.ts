/**
 * The request handler: a route table on URLPattern, the check order of docs/DECISIONS.md section 4
 * (method -> key -> parameters -> plan -> existence -> charge -> answer), one log line per
 * request, and errors mapped to JSON in one place.
 */
import { bearerToken } from "../platform/crypto.ts";
import type { z } from "zod";
import {
  admit,
  authenticate,
  type Caller,
  type Existence,
  type Operation,
  OPERATIONS,
  refund,
} from "../accounts/admission.ts";
import type { Content } from "../catalog/content.ts";
import type { Sql } from "../db/open.ts";
import {
  InvalidParameterError,
  MethodNotAllowedError,
  NotFoundError,
  QuotaExceededError,
  toApiError,
} from "../platform/errors.ts";
import { rowExistsFragment } from "../catalog/common.ts";
import { isDatabaseUp } from "../db/status.ts";
import type { UsageState } from "../accounts/usage.ts";
import {
  BlogQuerySchema,
  BlogSlugSchema,
  OpportunityIdSchema,
  OpportunityQuerySchema,
  ThemeIdSchema,
  TrendingQuerySchema,
} from "../catalog/schemas.ts";
import { openApiDocument } from "./openapi.ts";
import { parseParams } from "../catalog/params.ts";
import { errorResponse, json, preflight, quotaHeaders } from "../platform/responses.ts";

/** Handles a request to /mcp for an authenticated caller (src/mcp). */
export type McpHandler = (request: Request, caller: Caller) => Promise<Response>;

/** Everything the handler needs, passed in (the server, tests and benchmarks build their own). */
export interface AppDeps {
  sql: Sql;
  /** The cached content operations (src/catalog/content.ts), shared with the MCP endpoint. */
  content: Content;
  /** Receives one structured entry per request; defaults to a JSON line on stdout. */
  log?: (entry: Record<string, unknown>) => void;
  /** Serves the MCP endpoint; without it /mcp answers 404. */
  mcp?: McpHandler;
  /** Serves the public web (articles, account area) outside /api and /mcp (src/web). */
  web?: (request: Request, info?: Deno.ServeHandlerInfo) => Promise<Response | undefined>;
}

interface RouteInput {
  search: URLSearchParams;
  path: Record<string, string>;
}

/** A parsed request: what must exist, and the work that answers it at a data version. */
interface Prepared {
  existence?: Existence;
  work(version: number): Promise<unknown>;
}

interface Route {
  pattern: URLPattern;
  operation: Operation;
  /** Parses the parameters (throws 422) and says what the call needs and does. */
  prepare(input: RouteInput, deps: AppDeps): Prepared;
}

function route(pathname: string, operation: Operation, prepare: Route["prepare"]): Route {
  return { pattern: new URLPattern({ pathname }), operation, prepare };
}

function pathParams<S extends z.ZodObject>(schema: S, input: RouteInput): z.infer<S> {
  return parseParams(schema, input.path);
}

/** `exists` of a row by id, checked in the admission statement so a 404 is never charged. */
function rowExists(sql: Sql, table: "opportunities" | "themes", id: number, what: string) {
  return {
    check: rowExistsFragment(sql, table, id),
    notFound: () => new NotFoundError(`Cannot find ${what} ${id}`),
  };
}

const ROUTES: Route[] = [
  route("/api/v1/opportunities", OPERATIONS.listOpportunities, ({ search }, { content }) => {
    const query = parseParams(OpportunityQuerySchema, search);
    return { work: (v) => content.listOpportunities(v, query) };
  }),
  route("/api/v1/opportunities/:id", OPERATIONS.getOpportunity, (input, { sql, content }) => {
    const { id } = pathParams(OpportunityIdSchema, input);
    return {
      existence: rowExists(sql, "opportunities", id, "opportunity"),
      work: (v) => content.getOpportunity(v, id),
    };
  }),
  route("/api/v1/blog", OPERATIONS.listBlogPosts, ({ search }, { content }) => {
    const query = parseParams(BlogQuerySchema, search);
    return { work: (v) => content.listBlogPosts(v, query) };
  }),
  route("/api/v1/blog/:slug", OPERATIONS.getBlogPost, (input, { content }) => {
    const { slug } = pathParams(BlogSlugSchema, input);
    return { work: (v) => content.getBlogPost(v, slug) };
  }),
  route("/api/v1/overview", OPERATIONS.getOverview, (_, { content }) => ({
    work: (v) => content.getOverview(v),
  })),
  route("/api/v1/categories", OPERATIONS.listCategories, (_, { content }) => ({
    work: (v) => content.listCategories(v),
  })),
  route("/api/v1/themes/trending", OPERATIONS.listTrendingThemes, ({ search }, { content }) => {
    const query = parseParams(TrendingQuerySchema, search);
    return { work: (v) => content.listTrendingThemes(v, query) };
  }),
  route("/api/v1/themes/:id", OPERATIONS.getTheme, (input, { sql, content }) => {
    const { id } = pathParams(ThemeIdSchema, input);
    return {
      existence: rowExists(sql, "themes", id, "theme"),
      work: (v) => content.getTheme(v, id),
    };
  }),
];

const REST_METHODS = "GET, OPTIONS";
const MCP_METHODS = "POST, OPTIONS";

/** The raw key of a request: X-API-Key, then Authorization: Bearer, then ?api_key=. */
function apiKeyOf(request: Request, url: URL): string | undefined {
  const header = request.headers.get("x-api-key")?.trim();
  if (header) return header;
  const bearer = bearerToken(request);
  if (bearer) return bearer;
  return url.searchParams.get("api_key")?.trim() || undefined;
}

// Query parameters whose values are secrets: API keys, and the account area's e-mailed tokens.
const SECRET_PARAMS = new Set(["api_key", "token"]);

/**
 * A URL path and query for logs, with the value of every secret parameter (`api_key`, `token`)
 * replaced by `[redacted]`. Names are compared decoded, as the key lookup reads them, so an
 * encoded name (`api%5Fkey`) is redacted too.
 */
export function redactedPath(url: URL): string {
  if (!url.search) return url.pathname;
  const parts = url.search.slice(1).split("&").map((part) => {
    const [name] = new URLSearchParams(part).keys();
    return name !== undefined && SECRET_PARAMS.has(name.toLowerCase())
      ? `${part.split("=")[0]}=[redacted]`
      : part;
  });
  return `${url.pathname}?${parts.join("&")}`;
}

function decodePath(groups: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(groups)) {
    if (v === undefined) continue;
    try {
      out[k] = decodeURIComponent(v);
    } catch {
      throw new InvalidParameterError([{ param: k, message: "is not valid percent-encoding" }]);
    }
  }
  return out;
}

/** The JSON-RPC error an MCP client can parse, carrying the REST error body in `data`. */
function mcpErrorResponse(error: unknown, usage?: UsageState): Response {
  const apiError = toApiError(error);
  const headers = quotaHeaders(usage);
  if (apiError instanceof MethodNotAllowedError) headers["Allow"] = apiError.allow;
  return json(apiError.status, {
    jsonrpc: "2.0",
    id: null,
    error: { code: -32001, message: apiError.message, data: apiError.body },
  }, headers);
}

interface Outcome {
  response: Response;
  caller?: Caller;
  /** The route pattern, for logs and metrics (never the raw path with its ids). */
  route?: string;
  /** What the call did to the quota: charged one unit, was refused (429), or cost nothing. */
  quota?: "charged" | "rejected" | "free";
}

/** Builds the service's fetch handler. */
export function createHandler(
  deps: AppDeps,
): (request: Request, info?: Deno.ServeHandlerInfo) => Promise<Response> {
  const log = deps.log ?? ((entry) => console.log(JSON.stringify(entry)));

  async function route(
    request: Request,
    url: URL,
    info?: Deno.ServeHandlerInfo,
  ): Promise<Outcome> {
    let path = url.pathname;
    if (path === "/healthz") return { response: await health(deps.sql), route: "/healthz" };
    if (path === "/mcp" || path === "/mcp/") return { route: "/mcp", ...await mcp(request, url) };
    if (!path.startsWith("/api/v1/")) {
      if (path === "/" && deps.web) {
        return { response: new Response(null, { status: 302, headers: { Location: "/blog" } }) };
      }
      const page = await deps.web?.(request, info);
      if (page) return { response: page, route: "web" };
      throw new NotFoundError(`Cannot find "${path}"`);
    }
    if (request.method === "OPTIONS") return { response: preflight(REST_METHODS) };
    if (path.length > 8 && path.endsWith("/")) path = path.slice(0, -1);
    if (path === "/api/v1/openapi.json") {
      if (request.method !== "GET") throw new MethodNotAllowedError(request.method, "GET");
      return { response: json(200, openApiDocument()), route: "/api/v1/openapi.json" };
    }
    for (const r of ROUTES) {
      const match = r.pattern.exec({ pathname: path });
      if (!match) continue;
      if (request.method !== "GET") throw new MethodNotAllowedError(request.method, "GET");
      return { ...await rest(request, url, r, match), route: r.pattern.pathname };
    }
    throw new NotFoundError(`Cannot find "${path}"`);
  }

  /** key -> parameters -> plan -> existence -> charge (one statement) -> answer. */
  async function rest(
    request: Request,
    url: URL,
    r: Route,
    match: URLPatternResult,
  ): Promise<Outcome> {
    const key = apiKeyOf(request, url);
    let prepared: Prepared;
    try {
      prepared = r.prepare(
        { search: url.searchParams, path: decodePath(match.pathname.groups) },
        deps,
      );
    } catch (error) {
      // A bad parameter is answered only once the key is known to be good (401/403 first).
      const caller = await authenticate(deps.sql, key);
      return { response: errorResponse(error, caller.usage), caller };
    }
    const admittedAt = new Date();
    const { caller, refusal, charged } = await admit(
      deps.sql,
      key,
      r.operation,
      prepared.existence,
      admittedAt,
    );
    if (refusal) {
      const quota = refusal instanceof QuotaExceededError ? "rejected" : undefined;
      return { response: errorResponse(refusal, caller.usage), caller, quota };
    }
    try {
      const result = await prepared.work(caller.dataVersion);
      const quota = charged ? "charged" : "free";
      return { response: json(200, result, quotaHeaders(caller.usage)), caller, quota };
    } catch (error) {
      if (charged) await refund(deps.sql, caller, admittedAt);
      if (toApiError(error).status === 500) logFailure(error, request, url);
      return { response: errorResponse(error, caller.usage), caller };
    }
  }

  async function mcp(request: Request, url: URL): Promise<Outcome> {
    if (!deps.mcp) throw new NotFoundError(`Cannot find "${url.pathname}"`);
    if (request.method === "OPTIONS") return { response: preflight(MCP_METHODS) };
    if (request.method !== "POST") {
      return { response: mcpErrorResponse(new MethodNotAllowedError(request.method, "POST")) };
    }
    let caller: Caller;
    try {
      caller = await authenticate(deps.sql, apiKeyOf(request, url));
    } catch (error) {
      return { response: mcpErrorResponse(error) };
    }
    const response = await deps.mcp(request, caller);
    // The tools report their charge in the quota headers, after the call.
    const usedAfter = Number(response.headers.get("x-quota-used") ?? caller.usage.used);
    const quota = usedAfter > caller.usage.used ? "charged" : undefined;
    return { response, caller, route: "/mcp", quota };
  }

  return async function handler(
    request: Request,
    info?: Deno.ServeHandlerInfo,
  ): Promise<Response> {
    const started = performance.now();
    const url = new URL(request.url);
    let outcome: Outcome;
    try {
      outcome = await route(request, url, info);
    } catch (error) {
      if (toApiError(error).status === 500) logFailure(error, request, url);
      outcome = { response: errorResponse(error) };
    }
    const { response, caller } = outcome;
    log({
      time: new Date().toISOString(),
      method: request.method,
      path: redactedPath(url),
      status: response.status,
      ms: Math.round((performance.now() - started) * 10) / 10,
      key_prefix: caller?.keyPrefix ?? null,
      account_id: caller?.accountId ?? null,
      route: outcome.route ?? null,
      plan: caller?.plan ?? null,
      quota: outcome.quota ?? null,
    });
    return response;
  };
}

function logFailure(error: unknown, request: Request, url: URL): void {
  const stack = error instanceof Error ? error.stack ?? error.message : String(error);
  console.error(JSON.stringify({
    level: "error",
    method: request.method,
    path: redactedPath(url),
    error: stack,
  }));
}

async function health(sql: Sql): Promise<Response> {
  return await isDatabaseUp(sql)
    ? json(200, { status: "ok" })
    : json(503, { status: "unavailable", error: "service_unavailable" });
}
