/**
 * The service's one router: /healthz, /metrics, /api/v1 (the REST edge), /mcp (the MCP edge),
 * and everything else to the public web; one log line per request with its outcome.
 */
import type { Content } from "./catalog/content.ts";
import type { Sql } from "./db/open.ts";
import type { ReadRouter } from "./db/replicas.ts";
import { isDatabaseUp } from "./db/status.ts";
import { encoderStatus } from "./catalog/meaning/encoder.ts";
import { type MemoryBudget, memorySummary } from "./platform/memory.ts";
import { createMcpEndpoint, mcpErrorResponse, type McpHandler } from "./mcp/endpoint.ts";
import { MethodNotAllowedError, NotFoundError, toApiError } from "./platform/errors.ts";
import { logFailure, type Outcome, redactedPath } from "./platform/request_log.ts";
import { errorResponse, json, requestIdOf, withRequestId } from "./platform/responses.ts";
import { createRestHandler } from "./rest/handler.ts";
import type { WatchService } from "./watches/service.ts";
import { DEFAULT_BODY_TIMEOUT_MS, readBodyBytes, withBody } from "./platform/body.ts";
import { checkRequestHead } from "./platform/limits.ts";
import { getOfHead } from "./platform/head.ts";
import { BILLING_WEBHOOK_PATH } from "./web/handler.ts";
import { signatureCanBeValid } from "./billing/webhook.ts";

/**
 * The methods whose body the public web reads before routing (its forms). The API and MCP edges
 * read theirs themselves, once the method and the credential are known good; no other method's
 * body is ever read (TRACE and TRACK cannot even be copied into a new Request).
 */
const BODY_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** Everything the app needs, passed in (the server, tests and benchmarks build their own). */
export interface AppDeps {
  sql: Sql;
  /** The memory budget, whose held parts /healthz lists. */
  memory?: MemoryBudget;
  /** The read replicas (DATABASE_READ_URL), whose state /healthz shows. */
  replicas?: ReadRouter;
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
  const bodyTimeoutMs = deps.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
  const mcp = deps.mcp
    ? createMcpEndpoint({
      serve: deps.mcp,
      sql: deps.sql,
      publicBaseUrl: deps.publicBaseUrl,
      bodyTimeoutMs,
    })
    : undefined;

  async function route(
    request: Request,
    url: URL,
    requestId: string,
    info?: Deno.ServeHandlerInfo,
  ): Promise<Outcome> {
    const path = url.pathname;
    if (path === "/healthz") {
      if (request.method !== "GET") throw new MethodNotAllowedError(request.method, "GET, HEAD");
      return {
        response: await health(deps.sql, deps.replicas, deps.memory),
        route: "/healthz",
      };
    }
    if (path === "/mcp" || path === "/mcp/") {
      if (!mcp) throw new NotFoundError(`Cannot find "${path}"`);
      return { route: "/mcp", ...await mcp(request, url, requestId) };
    }
    if (path.startsWith("/api/v1/")) return await rest(request, url);
    // The web's forms are read whole, within the deadline and the bound, before routing; a
    // Stripe delivery without a signature that could be valid is refused unread (web/handler.ts).
    const unsigned = path === BILLING_WEBHOOK_PATH &&
      !signatureCanBeValid(request.headers.get("stripe-signature"));
    const body = BODY_METHODS.has(request.method) && !unsigned
      ? await readBodyBytes(request, bodyTimeoutMs)
      : null;
    const page = await deps.web?.(withBody(request, body), info);
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
    // HEAD is answered as GET without the body (RFC 9110 9.3.2), charged as GET is (but for the
    // export, whose price is the rows it sends: src/platform/head.ts).
    const head = request.method === "HEAD";
    let outcome: Outcome;
    try {
      checkRequestHead(request);
      const asked = head ? getOfHead(request) : request;
      outcome = await route(asked, url, requestId, info);
    } catch (error) {
      if (toApiError(error).status === 500) logFailure(error, request, url);
      // Refused before an edge answered (414, 431, a form's 408 or 413, an unknown path): still
      // answered in the surface's own shape.
      outcome = {
        response: isMcp && mcp
          ? mcpErrorResponse(error, undefined, deps.publicBaseUrl)
          : errorResponse(error),
      };
    }
    const { caller } = outcome;
    const response = head
      ? new Response(null, { status: outcome.response.status, headers: outcome.response.headers })
      : outcome.response;
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

/**
 * 200 while the primary answers; with replicas, how each stands (a replica down or behind only
 * sends its reads to the primary, so it never makes the service unhealthy).
 */
async function health(
  sql: Sql,
  replicas?: ReadRouter,
  budget?: MemoryBudget,
): Promise<Response> {
  const [up, details] = await Promise.all([
    isDatabaseUp(sql),
    replicas ? replicas.check().then((list) => ({ replicas: list })) : {},
  ]);
  // Questions are read by their words until the encoder is ready, or when it failed to load.
  const encoder = encoderStatus();
  // Which structures the memory budget holds now, and which it refused (src/platform/memory.ts).
  const memory = budget && memorySummary(budget.report());
  return up ? json(200, { status: "ok", encoder, memory, ...details }) : json(503, {
    status: "unavailable",
    error: "service_unavailable",
    encoder,
    memory,
    ...details,
  });
}
