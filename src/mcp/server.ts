/**
 * The hosted MCP endpoint (docs/DECISIONS.md section 5): Streamable HTTP, stateless, JSON responses.
 * The key was checked by src/http before we get here. Since SDK 1.26 a server and a transport
 * serve one request only, so both are built per request; everything costly (the tool listing
 * with its JSON Schemas) is built once in createMcpHandler.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv-provider.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  type CallToolRequest,
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  type ListToolsResult,
  McpError,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { type Caller, OPERATIONS, perform } from "../accounts/admission.ts";
import { type Content, createContent } from "../catalog/content.ts";
import type { Sql } from "../db/open.ts";
import { QuotaExceededError, toApiError } from "../platform/errors.ts";
import { parseInput } from "../catalog/params.ts";
import { corsHeaders, quotaHeaders, serializeJson } from "../platform/responses.ts";
import type { QueryContext } from "../catalog/common.ts";
import type { UsageState } from "../platform/plans.ts";
import { prepareOperation } from "../accounts/operations.ts";
import { type ToolDefinition, toolListing, TOOLS, WATCH_TOOLS } from "./tools.ts";
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
  // The SDK builds an Ajv instance per Server unless given one; it is used only for
  // elicitation, which these tools never do, so one shared instance serves every request.
  const jsonSchemaValidator = new AjvJsonSchemaValidator();

  return async function handleMcp(
    request: Request,
    caller: Caller,
    requestId?: string,
  ): Promise<Response> {
    // Usage after the last charged call of this request, for the X-Quota-* headers.
    let usage = caller.usage;
    const server = new Server(SERVER_INFO, {
      capabilities: { tools: { listChanged: false } },
      instructions: INSTRUCTIONS,
      jsonSchemaValidator,
    });
    server.setRequestHandler(ListToolsRequestSchema, () => listing);
    server.setRequestHandler(CallToolRequestSchema, async ({ params }: CallToolRequest) => {
      const fixture = fixtures.get(params.name);
      if (fixture) return await fixture.call(params.arguments ?? {});
      const watchTool = deps.watches && WATCH_TOOLS_BY_NAME.get(params.name);
      if (watchTool) {
        return await callWatchTool(deps.watches!, caller, watchTool, params.arguments, requestId);
      }
      const tool = byName.get(params.name);
      // An unknown tool is a protocol error, as the MCP specification's tools page shows.
      if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool "${params.name}"`);
      const called = await callTool(withContent, caller, tool, params.arguments, requestId);
      if (called.usage) usage = called.usage;
      return called.result;
    });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    try {
      await server.connect(transport);
      const response = await transport.handleRequest(request);
      const headers = new Headers(response.headers);
      for (const [name, value] of Object.entries({ ...corsHeaders(), ...quotaHeaders(usage) })) {
        headers.set(name, value);
      }
      if (headers.get("content-type") === "application/json") {
        headers.set("content-type", "application/json; charset=utf-8");
      }
      // JSON response mode: the body is complete once handleRequest resolves.
      const body = response.body ? await response.arrayBuffer() : null;
      return new Response(body, { status: response.status, headers });
    } finally {
      await server.close();
    }
  };
}
