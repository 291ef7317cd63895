/**
 * The hosted MCP endpoint (docs/DECISIONS.md section 5) on the MCP TypeScript SDK v2: revision
 * 2026-07-28 (no handshake, every request self-describing) and the 2025 revisions (initialize,
 * then stateless JSON requests) on one URL, from one server factory and one tool definition set.
 * The key was checked by endpoint.ts before we get here; a server instance serves one HTTP
 * request only, so one is built per request, while everything costly (the tool listing with its
 * JSON Schemas) is built once in createMcpHandler.
 */
import {
  type AuthInfo,
  type CallToolResult,
  createMcpHandler as createSdkHandler,
  DEFAULT_MAX_REQUEST_BODY_SIZE,
  isJsonContentType,
  isLegacyRequest,
  type ListToolsResult,
  ProtocolError,
  ProtocolErrorCode,
  readRequestBody,
  Server,
  type Tool,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { type Caller, OPERATIONS, perform } from "../accounts/admission.ts";
import { type Content, createContent } from "../catalog/content.ts";
import type { Sql } from "../db/open.ts";
import { QuotaExceededError, toApiError } from "../platform/errors.ts";
import { parseInput } from "../catalog/params.ts";
import { corsHeaders, quotaHeaders, serializeJson } from "../platform/responses.ts";
import type { QueryContext } from "../catalog/common.ts";
import type { UsageState } from "../platform/plans.ts";
import { prepareOperation } from "../accounts/operations.ts";
import { LIST_CACHE_HINT, type ToolDefinition, toolListing, TOOLS, WATCH_TOOLS } from "./tools.ts";
import type { WatchService } from "../watches/service.ts";
import { callWatchTool, WATCH_TOOLS_BY_NAME } from "./watch_tools.ts";

/** What the MCP endpoint needs. */
export interface McpDeps {
  sql: Sql;
  context: QueryContext;
  /**
   * Extra tools served as given, free and uncharged. Only the conformance harness sets this: a
   * scenario of the official suite looks for a fixture tool that only the reference server has.
   */
  fixtureTools?: FixtureTool[];
  /** The cached content operations shared with REST; made from sql and context when absent. */
  content?: Content;
  /** The watch operations; with them the watch tools are listed and served. */
  watches?: WatchService;
}

/** A tool listed verbatim and answered by `call`, outside plans and quota. */
export interface FixtureTool {
  tool: Tool;
  call(args: Record<string, unknown>): Promise<CallToolResult>;
}

/** The server's name and version in `initialize`. */
export const SERVER_INFO = {
  name: "oppintel",
  title: "Opportunity Intelligence",
  version: "1.0.0",
};

/** Shown to the model on `initialize`. */
export const INSTRUCTIONS =
  "Opportunity Intelligence: validated business opportunities mined from community " +
  "discussions, grouped into themes and categories, plus long-form research articles. " +
  "Start with get_overview for categories and trending themes; use query_opportunities to " +
  "search and get_opportunity for the full record with evidence quotes. Blog tools are free " +
  "of charge; other calls use the monthly quota, and query_opportunities, " +
  "list_trending_themes and get_theme need the Pro plan. A failed call is never charged.";

function result(body: Record<string, unknown>, isError: boolean): CallToolResult {
  return {
    content: [{ type: "text", text: serializeJson(body) }],
    structuredContent: body,
    ...(isError ? { isError: true } : {}),
  };
}

function logFailure(error: unknown, tool: string, caller: Caller): void {
  const stack = error instanceof Error ? error.stack ?? error.message : String(error);
  console.error(JSON.stringify({
    level: "error",
    path: "/mcp",
    tool,
    key_prefix: caller.keyPrefix,
    error: stack,
  }));
}

/**
 * Calls one tool for a caller: arguments (invalid_parameter), then plan, existence and charge
 * through `perform`. Every failure becomes an `isError` result with the REST error body.
 */
async function callTool(
  deps: McpDeps & { content: Content },
  caller: Caller,
  tool: ToolDefinition,
  args: unknown,
  requestId?: string,
): Promise<{ result: CallToolResult; usage?: UsageState }> {
  try {
    const prepared = prepareOperation(tool.operation, deps, (schema) => parseInput(schema, args));
    const work = () => prepared.work(caller.dataVersion, caller);
    // Tier and cost come from the shared table; messages name the tool the model called.
    const operation = { ...OPERATIONS[tool.operation], name: tool.name };
    const performed = await perform(deps.sql, caller, operation, work);
    return {
      result: result(performed.result as Record<string, unknown>, false),
      usage: performed.usage,
    };
  } catch (error) {
    const apiError = toApiError(error);
    if (apiError.status === 500) logFailure(error, tool.name, caller);
    const usage = error instanceof QuotaExceededError
      ? { limit: error.limit, used: error.current, remaining: 0, reset_at: error.resetAt }
      : undefined;
    const body = requestId ? { ...apiError.body, request_id: requestId } : apiError.body;
    return { result: result(body, true), usage };
  }
}

/** One HTTP request: who calls, and the usage after its last charged call (for X-Quota-*). */
interface Exchange {
  caller: Caller;
  requestId?: string;
  usage: UsageState;
}

/**
 * The SDK hands `authInfo` through to the server factory untouched; our key check is the
 * authentication, so the caller rides there. The raw key never does: `token` is its prefix.
 */
function authInfoOf(exchange: Exchange): AuthInfo {
  const { caller } = exchange;
  return {
    token: caller.keyPrefix,
    clientId: String(caller.accountId),
    scopes: [caller.plan],
    extra: { exchange },
  };
}

function exchangeOf(authInfo: AuthInfo | undefined): Exchange {
  const exchange = authInfo?.extra?.exchange as Exchange | undefined;
  // Only handleMcp calls the SDK handler, always with an exchange.
  if (!exchange) throw new Error("MCP request without a checked caller");
  return exchange;
}

function rpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status });
}

/**
 * The JSON body, read and parsed once for the era check and whichever era serves it (the SDK
 * would otherwise read a clone for the check and the body again to serve it, a fifth of an MCP
 * request's own cost); or the answer the SDK gives when there is no JSON body to serve.
 */
async function readJsonBody(request: Request): Promise<{ body: unknown } | { answer: Response }> {
  if (!isJsonContentType(request.headers.get("content-type"))) {
    return {
      answer: rpcError(
        415,
        -32000,
        "Unsupported Media Type: Content-Type must be application/json",
      ),
    };
  }
  const read = await readRequestBody(request, DEFAULT_MAX_REQUEST_BODY_SIZE);
  if (read.tooLarge) {
    const limit = DEFAULT_MAX_REQUEST_BODY_SIZE;
    return {
      answer: rpcError(
        413,
        -32000,
        `Payload Too Large: Request body must not exceed ${limit} bytes`,
      ),
    };
  }
  try {
    return { body: JSON.parse(read.text) };
  } catch {
    return { answer: rpcError(400, -32700, "Parse error: Invalid JSON") };
  }
}

/** Builds the handler of POST /mcp for authenticated callers. */
export function createMcpHandler(
  deps: McpDeps,
): (request: Request, caller: Caller, requestId?: string) => Promise<Response> {
  const fixtures = new Map((deps.fixtureTools ?? []).map((f) => [f.tool.name, f]));
  const withContent = { ...deps, content: deps.content ?? createContent(deps.sql, deps.context) };
  const listing: ListToolsResult = {
    tools: [
      ...TOOLS.map(toolListing),
      ...(deps.watches ? WATCH_TOOLS.map(toolListing) : []),
      ...[...fixtures.values()].map((f) => f.tool),
    ],
  };
  const byName = new Map(TOOLS.map((t) => [t.name, t]));

  /** The one server definition both eras are served from. */
  function buildServer(exchange: Exchange): Server {
    // The low-level Server rather than McpServer: McpServer validates arguments itself and
    // answers a protocol error, where ours are the REST invalid_parameter body (section 5).
    const server = new Server(SERVER_INFO, {
      capabilities: { tools: { listChanged: false } },
      instructions: INSTRUCTIONS,
      cacheHints: { "tools/list": LIST_CACHE_HINT, "server/discover": LIST_CACHE_HINT },
    });
    server.setRequestHandler("tools/list", () => listing);
    server.setRequestHandler("tools/call", async ({ params }) => {
      const fixture = fixtures.get(params.name);
      if (fixture) return await fixture.call(params.arguments ?? {});
      const { caller, requestId } = exchange;
      const watchTool = deps.watches && WATCH_TOOLS_BY_NAME.get(params.name);
      if (watchTool) {
        return await callWatchTool(deps.watches!, caller, watchTool, params.arguments, requestId);
      }
      const tool = byName.get(params.name);
      // An unknown tool is a protocol error, as the MCP specification's tools page shows.
      if (!tool) {
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool "${params.name}"`);
      }
      const called = await callTool(withContent, caller, tool, params.arguments, requestId);
      if (called.usage) exchange.usage = called.usage;
      return called.result;
    });
    return server;
  }

  // 2026-07-28 requests: the SDK's per-request path, with its validation of the Mcp-Method,
  // Mcp-Name and MCP-Protocol-Version headers and of `_meta`, answered before any tool runs.
  const modern = createSdkHandler(({ authInfo }) => buildServer(exchangeOf(authInfo)), {
    legacy: "reject",
  });

  // 2025-era requests: stateless with JSON answers, as before the v2 SDK (section 5). The SDK's
  // own fallback answers them as SSE streams, which would change what every 2025 client,
  // proxy and benchmark sees, so this leg stays ours, on the same server definition.
  async function serveLegacy(
    request: Request,
    body: unknown,
    exchange: Exchange,
  ): Promise<Response> {
    const server = buildServer(exchange);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    try {
      await server.connect(transport);
      const response = await transport.handleRequest(request, { parsedBody: body });
      // JSON response mode: the body is complete once handleRequest resolves.
      const answer = response.body ? await response.arrayBuffer() : null;
      return new Response(answer, { status: response.status, headers: response.headers });
    } finally {
      await server.close();
    }
  }

  return async function handleMcp(
    request: Request,
    caller: Caller,
    requestId?: string,
  ): Promise<Response> {
    const exchange: Exchange = { caller, requestId, usage: caller.usage };
    const read = await readJsonBody(request);
    const response = "answer" in read
      ? read.answer
      : await isLegacyRequest(request, read.body)
      ? await serveLegacy(request, read.body, exchange)
      : await modern.fetch(request, { authInfo: authInfoOf(exchange), parsedBody: read.body });
    const headers = new Headers(response.headers);
    for (
      const [name, value] of Object.entries({ ...corsHeaders(), ...quotaHeaders(exchange.usage) })
    ) {
      headers.set(name, value);
    }
    if (headers.get("content-type") === "application/json") {
      headers.set("content-type", "application/json; charset=utf-8");
    }
    // A JSON answer is complete here; an event stream (only subscriptions/listen opens one)
    // passes through as it comes.
    return new Response(response.body, { status: response.status, headers });
  };
}
