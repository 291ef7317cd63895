/**
 * POST /mcp: CORS preflight and the method check in front of the MCP server (server.ts), which
 * checks the key; errors are answered as JSON-RPC errors an MCP client can parse.
 */
import { apiKeyOf, type Caller } from "../accounts/admission.ts";
import { MethodNotAllowedError, toApiError } from "../platform/errors.ts";
import type { Outcome } from "../platform/request_log.ts";
import { json, preflight, quotaHeaders } from "../platform/responses.ts";
import type { UsageState } from "../platform/plans.ts";

/**
 * Serves an MCP request with its raw key (server.ts): throws 401 and 403 for a bad key, and
 * answers with the caller once the key is known.
 */
export type McpHandler = (
  request: Request,
  rawKey: string | undefined,
  requestId?: string,
) => Promise<{ response: Response; caller?: Caller; charged?: boolean }>;

const MCP_METHODS = "POST, OPTIONS";

/** The JSON-RPC error an MCP client can parse, carrying the REST error body in `data`. */
export function mcpErrorResponse(error: unknown, usage?: UsageState): Response {
  const apiError = toApiError(error);
  const headers = quotaHeaders(usage);
  if (apiError instanceof MethodNotAllowedError) headers["Allow"] = apiError.allow;
  return json(apiError.status, {
    jsonrpc: "2.0",
    id: null,
    error: { code: -32001, message: apiError.message, data: apiError.body },
  }, headers);
}

/** The MCP edge for the app's router. */
export function createMcpEndpoint(
  deps: { serve: McpHandler },
): (request: Request, url: URL, requestId?: string) => Promise<Outcome> {
  return async function mcp(request: Request, url: URL, requestId?: string): Promise<Outcome> {
    if (request.method === "OPTIONS") return { response: preflight(MCP_METHODS) };
    if (request.method !== "POST") {
      return { response: mcpErrorResponse(new MethodNotAllowedError(request.method, "POST")) };
    }
    try {
      const { response, caller, charged } = await deps.serve(
        request,
        apiKeyOf(request, url),
        requestId,
      );
      return { response, caller, route: "/mcp", quota: charged ? "charged" : undefined };
    } catch (error) {
      // A bad key (401, 403) is answered here; anything unexpected goes to the app's handler.
      if (toApiError(error).status === 500) throw error;
      return { response: mcpErrorResponse(error) };
    }
  };
}
