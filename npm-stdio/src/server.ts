/**
 * The stdio MCP server: two of the hosted tools, listed exactly as the hosted endpoint lists
 * them (the definitions are bundled in from the service's src/mcp/tools.ts at build time) and
 * answered by the hosted REST API. One definition serves both protocol eras (cli.ts).
 */
import {
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ServerContext,
  UnsupportedProtocolVersionError,
} from "@modelcontextprotocol/server";
import { LIST_CACHE_HINT, toolListing, TOOLS } from "../../src/mcp/tools.ts";
import { INSTRUCTIONS } from "../../src/mcp/instructions.ts";
import { DetailSchema, shapeAnswer, withToolDefaults } from "../../src/catalog/compact.ts";
import type { StdioConfig } from "./config.ts";
import { getJson, jsonResult, type ToolResult } from "./rest.ts";

/** The tools this package offers: the two a desktop client needs most. */
export const STDIO_TOOL_NAMES = ["query_opportunities", "get_opportunity"] as const;

type StdioToolName = (typeof STDIO_TOOL_NAMES)[number];

/** The operation each tool runs on the service (src/metering/admission.ts). */
const OPERATION_OF: Record<StdioToolName, string> = {
  query_opportunities: "listOpportunities",
  get_opportunity: "getOpportunity",
};

/** The REST path of each tool and the arguments that go into its query string. */
const ROUTES: Record<
  StdioToolName,
  (args: Record<string, unknown>) => { path: string; queryArgs: string[] } | ToolResult
> = {
  query_opportunities: () => ({
    path: "/api/v1/opportunities",
    queryArgs: Object.keys(listingOf("query_opportunities").inputSchema.properties ?? {})
      .filter((name) => name !== "detail"),
  }),
  get_opportunity: (args) => {
    if (args.id === undefined || args.id === null) {
      // The same body the service gives for a bad parameter, so clients see one error shape.
      return jsonResult({
        error: "invalid_parameter",
        message: 'Invalid parameter "id": is required',
        details: [{ param: "id", message: "is required" }],
      }, true);
    }
    return { path: `/api/v1/opportunities/${encodeURIComponent(String(args.id))}`, queryArgs: [] };
  },
};

type Listing = ReturnType<typeof toolListing> & {
  inputSchema: { properties?: Record<string, unknown> };
};

let listings: Listing[] | undefined;

/** The `tools/list` entries of the two tools, converted once. */
export function stdioToolListings(): Listing[] {
  listings ??= TOOLS.filter((t) => (STDIO_TOOL_NAMES as readonly string[]).includes(t.name))
    .map((t) => toolListing(t) as Listing);
  return listings;
}

function listingOf(name: StdioToolName): Listing {
  return stdioToolListings().find((l) => l.name === name)!;
}

/** The per-request revisions served (serveStdio's list in SDK 2.4.0). */
export const MODERN_VERSIONS = ["2026-07-28"];

/**
 * Refuses a request whose `_meta` names a revision not served. serveStdio checks the version of
 * a connection's opening request only and passes later ones through (SDK 2.4.0), but the
 * revision requires the check on every request, and a tool call here costs quota on the service.
 */
function checkVersion(ctx: ServerContext): void {
  // The SDK's type of the envelope is empty; the key holds the requested revision.
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const requested = envelope?.[PROTOCOL_VERSION_META_KEY];
  if (typeof requested === "string" && !MODERN_VERSIONS.includes(requested)) {
    throw new UnsupportedProtocolVersionError({ supported: MODERN_VERSIONS, requested });
  }
}

/**
 * Builds one MCP server instance; it calls the REST API of `config` for every tool call. The
 * low-level Server, as on the hosted endpoint: argument errors are the service's REST bodies.
 */
export function buildStdioServer(
  config: StdioConfig,
  info: { name: string; version: string },
): Server {
  const server = new Server(info, {
    capabilities: { tools: {} },
    instructions: INSTRUCTIONS,
    cacheHints: { "tools/list": LIST_CACHE_HINT, "server/discover": LIST_CACHE_HINT },
  });
  server.setRequestHandler("tools/list", (_, ctx) => {
    checkVersion(ctx);
    return { tools: stdioToolListings() };
  });
  server.setRequestHandler("tools/call", async (request, ctx) => {
    checkVersion(ctx);
    const name = request.params.name;
    if (!(STDIO_TOOL_NAMES as readonly string[]).includes(name)) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool "${name}"`);
    }
    const given = request.params.arguments ?? {};
    const detail = DetailSchema.safeParse(given);
    if (!detail.success) {
      return jsonResult({
        error: "invalid_parameter",
        message: 'Invalid parameter "detail": must be one of compact, full',
        details: [{ param: "detail", message: "must be one of compact, full" }],
      }, true);
    }
    const operation = OPERATION_OF[name as StdioToolName];
    const args = withToolDefaults(operation, given) as Record<string, unknown>;
    const route = ROUTES[name as StdioToolName](args);
    if ("content" in route) return route;
    const query: Record<string, string> = {};
    for (const param of route.queryArgs) {
      const value = args[param];
      if (value !== undefined && value !== null) query[param] = String(value);
    }
    return shaped(
      operation,
      await getJson(config, route.path, query, { userAgent: `${info.name}/${info.version}` }),
      detail.data.detail,
    );
  });
  return server;
}

/** A REST answer as the hosted tool gives it: compact by default (src/catalog/compact.ts). */
function shaped(operation: string, result: ToolResult, detail: "compact" | "full"): ToolResult {
  if (result.isError) return result;
  return jsonResult(shapeAnswer(operation, result.structuredContent, detail));
}
