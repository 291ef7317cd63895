/**
 * The request handler: a route table on URLPattern, the check order of DECISIONS.md section 4
 * (method -> key -> parameters -> plan -> existence -> charge -> answer), one log line per
 * request, and errors mapped to JSON in one place.
 */
import type { z } from "zod";
import { authenticate, type Caller, type Operation, OPERATIONS, perform } from "../access.ts";
import type { Sql } from "../db/open.ts";
import {
  InvalidParameterError,
  MethodNotAllowedError,
  NotFoundError,
  QuotaExceededError,
  toApiError,
} from "../errors.ts";
import { getBlogPost, listBlogPosts } from "../queries/blog_posts.ts";
import type { QueryContext } from "../queries/common.ts";
import { getOpportunity, listOpportunities } from "../queries/opportunities.ts";
import { getOverview, getTheme, listCategories, listTrendingThemes } from "../queries/themes.ts";
import type { UsageState } from "../queries/usage.ts";
import {
  BlogQuerySchema,
  BlogSlugSchema,
  OpportunityIdSchema,
  OpportunityQuerySchema,
  ThemeIdSchema,
  TrendingQuerySchema,
} from "../schemas.ts";
import { openApiDocument } from "./openapi.ts";
import { parseParams } from "./params.ts";
import { errorResponse, json, preflight, quotaHeaders } from "./responses.ts";

/** Handles a request to /mcp for an authenticated caller (src/mcp). */
export type McpHandler = (request: Request, caller: Caller) => Promise<Response>;

/** Everything the handler needs, passed in (the server, tests and benchmarks build their own). */
export interface AppDeps {
  sql: Sql;
  context: QueryContext;
  /** Receives one structured entry per request; defaults to a JSON line on stdout. */
  log?: (entry: Record<string, unknown>) => void;
  /** Serves the MCP endpoint; without it /mcp answers 404. */
  mcp?: McpHandler;
}

interface RouteInput {
  search: URLSearchParams;
  path: Record<string, string>;
}

interface Route {
  pattern: URLPattern;
  operation: Operation;
  /** Parses the parameters (throws 422) and returns the work to perform. */
  prepare(input: RouteInput, deps: AppDeps): () => Promise<unknown>;
}

function route(
  pathname: string,
  operation: Operation,
  prepare: Route["prepare"],
): Route {
  return { pattern: new URLPattern({ pathname }), operation, prepare };
}

function pathParams<S extends z.ZodObject>(schema: S, input: RouteInput): z.infer<S> {
  return parseParams(schema, input.path);
}

const ROUTES: Route[] = [
  route("/api/v1/opportunities", OPERATIONS.listOpportunities, ({ search }, { sql }) => {
    const query = parseParams(OpportunityQuerySchema, search);
    return () => listOpportunities(sql, query);
  }),
  route("/api/v1/opportunities/:id", OPERATIONS.getOpportunity, (input, { sql, context }) => {
    const { id } = pathParams(OpportunityIdSchema, input);
    return () => getOpportunity(sql, id, context);
  }),
  route("/api/v1/blog", OPERATIONS.listBlogPosts, ({ search }, { sql, context }) => {
    const query = parseParams(BlogQuerySchema, search);
    return () => listBlogPosts(sql, query, context);
  }),
  route("/api/v1/blog/:slug", OPERATIONS.getBlogPost, (input, { sql, context }) => {
    const { slug } = pathParams(BlogSlugSchema, input);
    return () => getBlogPost(sql, slug, context);
  }),
  route("/api/v1/overview", OPERATIONS.getOverview, (_, { sql }) => () => getOverview(sql)),
  route("/api/v1/categories", OPERATIONS.listCategories, (_, { sql }) => () => listCategories(sql)),
  route("/api/v1/themes/trending", OPERATIONS.listTrendingThemes, ({ search }, { sql }) => {
    const query = parseParams(TrendingQuerySchema, search);
    return () => listTrendingThemes(sql, query);
  }),
  route("/api/v1/themes/:id", OPERATIONS.getTheme, (input, { sql }) => {
    const { id } = pathParams(ThemeIdSchema, input);
    return () => getTheme(sql, id);
  }),
];

const REST_METHODS = "GET, OPTIONS";
const MCP_METHODS = "POST, OPTIONS";

/** The raw key of a request: X-API-Key, then Authorization: Bearer, then ?api_key=. */
export function apiKeyOf(request: Request, url: URL): string | undefined {
  const header = request.headers.get("x-api-key")?.trim();
  if (header) return header;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "");
  if (bearer) return bearer[1];
  return url.searchParams.get("api_key")?.trim() || undefined;
}

/** A URL path and query for logs, with the value of `api_key` replaced by `[redacted]`. */
export function redactedPath(url: URL): string {
  if (!url.searchParams.has("api_key")) return url.pathname + url.search;
  const search = url.search.replace(/([?&]api_key=)[^&]*/gi, "$1[redacted]");
  return url.pathname + search;
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
  return json(apiError.status, {
    jsonrpc: "2.0",
    id: null,
    error: { code: -32001, message: apiError.message, data: apiError.body },
  }, quotaHeaders(usage));
}

interface Outcome {
  response: Response;
  caller?: Caller;
}

/** Builds the service's fetch handler. */
export function createHandler(deps: AppDeps): (request: Request) => Promise<Response> {
  const log = deps.log ?? ((entry) => console.log(JSON.stringify(entry)));

  async function route(request: Request, url: URL): Promise<Outcome> {
    let path = url.pathname;
    if (path === "/healthz") return { response: await health(deps.sql) };
    if (path === "/mcp" || path === "/mcp/") return await mcp(request, url);
    if (!path.startsWith("/api/v1/")) throw new NotFoundError(`Cannot find "${path}"`);
    if (request.method === "OPTIONS") return { response: preflight(REST_METHODS) };
    if (path.length > 8 && path.endsWith("/")) path = path.slice(0, -1);
    if (path === "/api/v1/openapi.json") {
      if (request.method !== "GET") throw new MethodNotAllowedError(request.method, "GET");
      return { response: json(200, openApiDocument()) };
    }
    for (const r of ROUTES) {
      const match = r.pattern.exec({ pathname: path });
      if (!match) continue;
      if (request.method !== "GET") throw new MethodNotAllowedError(request.method, "GET");
      const caller = await authenticate(deps.sql, apiKeyOf(request, url));
      try {
        const work = r.prepare(
          { search: url.searchParams, path: decodePath(match.pathname.groups) },
          deps,
        );
        const { result, usage } = await perform(deps.sql, caller, r.operation, work);
        return { response: json(200, result, quotaHeaders(usage)), caller };
      } catch (error) {
        if (toApiError(error).status === 500) logFailure(error, request, url);
        const usage = error instanceof QuotaExceededError
          ? { limit: error.limit, used: error.current, remaining: 0, reset_at: error.resetAt }
          : caller.usage;
        return { response: errorResponse(error, usage), caller };
      }
    }
    throw new NotFoundError(`Cannot find "${path}"`);
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
    return { response: await deps.mcp(request, caller), caller };
  }

  return async function handler(request: Request): Promise<Response> {
    const started = performance.now();
    const url = new URL(request.url);
    let outcome: Outcome;
    try {
      outcome = await route(request, url);
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
  try {
    await sql`select 1`;
    return json(200, { status: "ok" });
  } catch {
    return json(503, { status: "unavailable", error: "service_unavailable" });
  }
}
