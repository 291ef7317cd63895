/**
 * POST /mcp: CORS preflight, the method check and the key check in front of the MCP server
 * (server.ts), with errors answered as JSON-RPC errors an MCP client can parse.
 */
import { apiKeyOf, authenticate, type Caller } from "../accounts/admission.ts";
import type { Sql } from "../db/open.ts";
import { MethodNotAllowedError, toApiError } from "../platform/errors.ts";
import type { Outcome } from "../platform/request_log.ts";
import { json, preflight, quotaHeaders } from "../platform/responses.ts";
import type { UsageState } from "../platform/plans.ts";

/** Serves an MCP request for an authenticated caller (server.ts). */
export type McpHandler = (
  request: Request,
  caller: Caller,
  requestId?: string,
) => Promise<Response>;

const MCP_METHODS = "POST, OPTIONS";

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

/** The MCP edge for the app's router: `serve` answers once the caller is known. */
export function createMcpEndpoint(
  deps: { sql: Sql; serve: McpHandler },
): (request: Request, url: URL, requestId?: string) => Promise<Outcome> {
  return async function mcp(request: Request, url: URL, requestId?: string): Promise<Outcome> {
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
    const response = await deps.serve(request, caller, requestId);
    // The tools report their charge in the quota headers, after the call.
    const usedAfter = Number(response.headers.get("x-quota-used") ?? caller.usage.used);
    const quota = usedAfter > caller.usage.used ? "charged" : undefined;
    return { response, caller, route: "/mcp", quota };
  };
}
