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

/**
 * What is wrong, in words, with the params of a tools/call request (a single JSON-RPC message),
 * or undefined. The body was read whole before routing (platform/body.ts), so reading a clone
 * costs a parse of a few bytes.
 */
async function callParamsProblem(request: Request): Promise<string | undefined> {
  const message = await request.clone().json().catch(() => undefined);
  if (typeof message !== "object" || message === null || message.method !== "tools/call") {
    return undefined;
  }
  const params = message.params;
  if (typeof params !== "object" || params === null || Array.isArray(params)) {
    return "params must be an object";
  }
  const { name, arguments: args } = params as Record<string, unknown>;
  if (name === undefined) return '"name" is required';
  if (typeof name !== "string") return '"name" must be a string';
  if (args !== undefined && (typeof args !== "object" || args === null || Array.isArray(args))) {
    return '"arguments" must be an object';
  }
  return undefined;
}

/**
 * The SDK answers malformed tools/call params with -32602 and its validation dump as the
 * message ("Invalid tools/call request: [{ "expected": ... }]"); the client gets the same code
 * with the problem in words instead. Any other answer passes unchanged.
 */
async function withReadableParamsError(response: Response, problem: string): Promise<Response> {
  if (!(response.headers.get("content-type") ?? "").startsWith("application/json")) {
    return response;
  }
  const body = await response.clone().json().catch(() => undefined);
  const error = body?.error;
  if (error?.code !== -32602 || !String(error.message).startsWith("Invalid tools/call request")) {
    return response;
  }
  error.message = `Invalid params: ${problem}`;
  return new Response(JSON.stringify(body), { status: response.status, headers: response.headers });
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
    const problem = await callParamsProblem(request);
    let response = await deps.serve(request, caller, requestId);
    if (problem) response = await withReadableParamsError(response, problem);
    // The tools report their charge in the quota headers, after the call.
    const usedAfter = Number(response.headers.get("x-quota-used") ?? caller.usage.used);
    const quota = usedAfter > caller.usage.used ? "charged" : undefined;
    return { response, caller, route: "/mcp", quota };
  };
}
