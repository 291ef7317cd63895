/**
 * The hosted MCP endpoint (docs/DECISIONS.md section 5) on the MCP TypeScript SDK v2: revision
 * 2026-07-28 (no handshake, every request self-describing) and the 2025 revisions (initialize,
 * then stateless JSON requests) on one URL, from one server factory and one tool definition set.
 * The key is checked before any JSON-RPC processing, in the same statement that admits and
 * charges the request's tool call (admission.ts); a server instance serves one HTTP request
 * only, so one is built per request, while everything costly (the tool listing with its JSON
 * Schemas) is built once in createMcpHandler.
 */
import {
  type CallToolResult,
  createMcpHandler as createSdkHandler,
  isLegacyRequest,
  type ListToolsResult,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type Tool,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import type { Caller } from "../accounts/credentials.ts";
import { type Content, createContent } from "../catalog/content.ts";
import type { QueryContext } from "../catalog/common.ts";
import type { Sql } from "../db/open.ts";
import { PlanRequiredError, withUpgradeUrl } from "../platform/errors.ts";
import { corsHeaders, quotaHeaders, withHeaders } from "../platform/responses.ts";
import type { WatchService } from "../watches/service.ts";
import { authInfoOf, type Exchange, exchangeOf, openExchange } from "./admission.ts";
import {
  callParamsProblem,
  claimsModernEnvelope,
  readJsonBody,
  withReadableParamsError,
} from "./messages.ts";
import { toolFailure, toolResult } from "./results.ts";
import { DetailSchema, shapeAnswer } from "../catalog/compact.ts";
import { INSTRUCTIONS } from "./instructions.ts";
import { parseInput } from "../catalog/params.ts";
import {
  LIST_CACHE_HINT,
  takesDetail,
  type ToolDefinition,
  toolListing,
  TOOLS,
  WATCH_TOOLS,
} from "./tools.ts";

const COMPACTLY = { detail: "compact" } as const;
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

/**
 * Answers one tool call: arguments (invalid_parameter), then plan, existence and charge in the
 * admission statement (made with the key check, or now), then the work, whose failure gives the
 * charge back. Every failure becomes an `isError` result with the REST error body.
 */
async function callTool(
  exchange: Exchange,
  tool: ToolDefinition,
  args: unknown,
): Promise<CallToolResult> {
  try {
    const call = await exchange.admitCall(tool, args);
    const { caller, refusal, charged } = call.admission;
    // A plan below the operation's: the call's free answer when it has one (search), else refused.
    const { belowPlan } = call.prepared;
    if (refusal && !(belowPlan && refusal instanceof PlanRequiredError)) throw refusal;
    try {
      const body = refusal
        ? await belowPlan!(caller.dataVersion)
        : await call.prepared.work(caller.dataVersion, caller, call.admission.fetched);
      if (charged) exchange.charged = true;
      const { detail } = takesDetail(tool) ? parseInput(DetailSchema, args) : COMPACTLY;
      const shaped = shapeAnswer(tool.operation, body as Record<string, unknown>, detail);
      return withQuotaMeta(toolResult(shaped, false), caller, charged);
    } catch (error) {
      await exchange.refund(call);
      throw error;
    }
  } catch (error) {
    const { caller, requestId } = exchange;
    withUpgradeUrl(error, exchange.deps.context.publicBaseUrl);
    return toolFailure(error, { tool: tool.name, keyPrefix: caller.keyPrefix, requestId });
  }
}

/** The `_meta` key of a tool result's quota (reverse-DNS, as `io.modelcontextprotocol/...`). */
export const QUOTA_META = "com.example.oppintel/quota";

/**
 * A successful result with what its call took of the quota in `_meta` (the X-Quota-* headers
 * as values, and `charged`: 1, or 0 for a repeat or a free tool), since an MCP client shows the
 * model the result, not the HTTP headers.
 */
function withQuotaMeta(result: CallToolResult, caller: Caller, charged?: boolean): CallToolResult {
  const { used, limit, remaining, reset_at } = caller.usage;
  const quota = { charged: charged ? 1 : 0, used, limit, remaining, reset_at };
  return { ...result, _meta: { ...result._meta, [QUOTA_META]: quota } };
}

/**
 * Serves one 2025-era request with `server` on the SDK's stateless transport, answering JSON
 * (a probe, since removed, measured this same path: the SDK's floor in bench/results/FINDINGS.md).
 */
export async function serveStateless(
  server: Server,
  request: Request,
  body: unknown,
): Promise<Response> {
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

/** What the handler answers, with the caller once the key is known. */
export interface McpAnswer {
  response: Response;
  caller?: Caller;
  /** True when a tool call of the request was charged. */
  charged?: boolean;
}

/**
 * Builds the handler of POST /mcp: checks the key (throwing 401 and 403), then serves the
 * request. A tool call of the catalog is admitted (key, plan, existence, charge) in one statement
 * with the key check; protocol messages that cost nothing are answered for a recently seen key
 * without a database round trip; anything else costs one key lookup.
 */
export function createMcpHandler(
  deps: McpDeps,
): (
  request: Request,
  rawKey: string | undefined,
  requestId?: string,
  bytes?: Uint8Array | null,
) => Promise<McpAnswer> {
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
      return await callTool(exchange, tool, params.arguments);
    });
    return server;
  }

  // 2026-07-28 requests: the SDK's per-request path, with its validation of the Mcp-Method,
  // Mcp-Name and MCP-Protocol-Version headers and of `_meta`, answered before any tool runs.
  const modern = createSdkHandler(({ authInfo }) => buildServer(exchangeOf(authInfo)), {
    legacy: "reject",
  });

  return async function handleMcp(
    request: Request,
    rawKey: string | undefined,
    requestId?: string,
    bytes?: Uint8Array | null,
  ): Promise<McpAnswer> {
    const read = await readJsonBody(request, bytes);
    // The key is checked first, whatever the body (401 and 403 are thrown from here).
    const body = "body" in read ? read.body : undefined;
    const exchange = await openExchange(withContent, byName, rawKey, body, requestId);
    let response = "answer" in read
      ? read.answer
      : !claimsModernEnvelope(read.body) && await isLegacyRequest(request, read.body)
      // 2025-era requests: stateless with JSON answers, as before the v2 SDK (section 5). The
      // SDK's own fallback answers them as SSE streams, which would change what every 2025
      // client, proxy and benchmark sees, so this leg stays ours, on the same server definition.
      ? await serveStateless(buildServer(exchange), request, read.body)
      : await modern.fetch(request, { authInfo: authInfoOf(exchange), parsedBody: read.body });
    await exchange.settle();
    const problem = "body" in read ? callParamsProblem(read.body) : undefined;
    if (problem) response = await withReadableParamsError(response, problem);
    // A JSON answer is complete here; an event stream (only subscriptions/listen opens one)
    // passes through as it comes.
    const headers = { ...corsHeaders(), ...quotaHeaders(exchange.usage) };
    if (response.headers.get("content-type") === "application/json") {
      headers["content-type"] = "application/json; charset=utf-8";
    }
    return {
      response: withHeaders(response, headers),
      caller: exchange.caller,
      charged: exchange.charged,
    };
  };
}
