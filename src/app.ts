/**
 * The service's one router: /healthz, /metrics, /api/v1 (the REST edge), /mcp (the MCP edge),
 * and everything else to the public web; one log line per request with its outcome.
 */
import type { Content } from "./catalog/content.ts";
import type { Sql } from "./db/open.ts";
import { isDatabaseUp } from "./db/status.ts";
import { createMcpEndpoint, mcpErrorResponse, type McpHandler } from "./mcp/endpoint.ts";
import { NotFoundError, toApiError } from "./platform/errors.ts";
import { logFailure, type Outcome, redactedPath } from "./platform/request_log.ts";
import { errorResponse, json, requestIdOf, withRequestId } from "./platform/responses.ts";
import { createRestHandler } from "./rest/handler.ts";
import type { WatchService } from "./watches/service.ts";
import {
  DEFAULT_BODY_TIMEOUT_MS,
  MAX_BODY_BYTES,
  readBodyBytes,
  withBody,
} from "./platform/body.ts";

/** Above the MCP SDK's 4 MiB request bound, so that the endpoint's own 413 answers first. */
const MCP_MAX_BODY_BYTES = 8 * 1024 * 1024;

/** Everything the app needs, passed in (the server, tests and benchmarks build their own). */
export interface AppDeps {
  sql: Sql;
  /** The cached content operations (src/catalog/content.ts), shared by REST and MCP. */
  content: Content;
  /** Receives one structured entry per request; defaults to a JSON line on stdout. */
  log?: (entry: Record<string, unknown>) => void;
  /** Serves the MCP endpoint; without it /mcp answers 404. */
  mcp?: McpHandler;
  /** Serves the public web (articles, account area) outside /api and /mcp (src/web). */
  web?: (request: Request, info?: Deno.ServeHandlerInfo) => Promise<Response | undefined>;
  /** Serves GET /metrics; without it /metrics is an unknown path. */
  metrics?: (request: Request) => Promise<Response>;
  /** The watch operations; without them /api/v1/watches is an unknown path. */
  watches?: WatchService;
  /**
   * The public base URL: with it, a 401 of /mcp carries the OAuth challenge pointing to the
   * protected resource metadata (WWW-Authenticate, RFC 9728).
   */
  publicBaseUrl?: string;
  /** How long a request body may take to arrive before a 408 (platform/body.ts; 10 s). */
  bodyTimeoutMs?: number;
}

/** Builds the service's fetch handler. */
export function createApp(
  deps: AppDeps,
): (request: Request, info?: Deno.ServeHandlerInfo) => Promise<Response> {
  const log = deps.log ?? ((entry) => console.log(JSON.stringify(entry)));
  const rest = createRestHandler(deps);
  const mcp = deps.mcp
    ? createMcpEndpoint({ serve: deps.mcp, publicBaseUrl: deps.publicBaseUrl })
    : undefined;

  /** Routes a request whose body (if any) has been read as `body`. */
  async function route(
    request: Request,
    body: Uint8Array<ArrayBuffer> | null,
    url: URL,
    requestId: string,
    info?: Deno.ServeHandlerInfo,
  ): Promise<Outcome> {
    const path = url.pathname;
    if (path === "/healthz") return { response: await health(deps.sql), route: "/healthz" };
    if (path === "/mcp" || path === "/mcp/") {
      if (!mcp) throw new NotFoundError(`Cannot find "${path}"`);
      // The MCP handler parses the bytes itself: no second Request, no second read.
      return { route: "/mcp", ...await mcp(request, url, requestId, body) };
    }
    const whole = withBody(request, body);
    if (path.startsWith("/api/v1/")) return await rest(whole, url);
    const page = await deps.web?.(whole, info);
    if (page) return { response: page, route: "web" };
    throw new NotFoundError(`Cannot find "${path}"`);
  }

  return async function handler(
    request: Request,
    info?: Deno.ServeHandlerInfo,
  ): Promise<Response> {
    const started = performance.now();
    const url = new URL(request.url);
    // Scrapes stay out of the request log and of the metrics they read.
    if (url.pathname === "/metrics" && deps.metrics) return await deps.metrics(request);
    const requestId = requestIdOf(request);
    const isMcp = url.pathname === "/mcp" || url.pathname === "/mcp/";
    let outcome: Outcome;
    try {
      const body = await readBodyBytes(
        request,
        deps.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS,
        // MCP applies the SDK's own 4 MiB bound and answers it as JSON-RPC (mcp/server.ts).
        isMcp ? MCP_MAX_BODY_BYTES : MAX_BODY_BYTES,
      );
      outcome = await route(request, body, url, requestId, info);
    } catch (error) {
      if (toApiError(error).status === 500) logFailure(error, request, url);
      // A body refused before routing (408, 413) is still answered in the surface's own shape.
      outcome = {
        response: isMcp && mcp
          ? mcpErrorResponse(error, undefined, deps.publicBaseUrl)
          : errorResponse(error),
      };
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
      request_id: requestId,
    });
    return await withRequestId(response, requestId);
  };
}

async function health(sql: Sql): Promise<Response> {
  return await isDatabaseUp(sql)
    ? json(200, { status: "ok" })
    : json(503, { status: "unavailable", error: "service_unavailable" });
}
