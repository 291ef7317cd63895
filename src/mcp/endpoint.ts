/**
 * POST /mcp: CORS preflight, the method check and the credential check in front of the MCP
 * server (server.ts), in that order and all before a byte of the body is read; errors are
 * answered as JSON-RPC errors an MCP client can parse.
 */
import { apiKeyOf, type Caller, vouch } from "../accounts/credentials.ts";
import type { Sql } from "../db/open.ts";
import { DEFAULT_BODY_TIMEOUT_MS, readBodyBytes } from "../platform/body.ts";
import {
  type ApiError,
  MethodNotAllowedError,
  MissingApiKeyError,
  toApiError,
} from "../platform/errors.ts";
import type { Outcome } from "../platform/request_log.ts";
import { json, preflight, quotaHeaders } from "../platform/responses.ts";
import type { UsageState } from "../platform/plans.ts";

/**
 * Serves an MCP request with its raw key (server.ts): throws 401 and 403 for a bad key, and
 * answers with the caller once the key is known. `body`, when given, is the request's body
 * already read (null: none); without it the handler reads the request's own.
 */
export type McpHandler = (
  request: Request,
  rawKey: string | undefined,
  requestId?: string,
  body?: Uint8Array | null,
) => Promise<{ response: Response; caller?: Caller; charged?: boolean }>;

const MCP_METHODS = "POST, OPTIONS";

/** Above the MCP SDK's 4 MiB request bound, so that the server's own 413 answers first. */
const MCP_MAX_BODY_BYTES = 8 * 1024 * 1024;

/**
 * The OAuth challenge of a 401 (RFC 6750 section 3, RFC 9728 section 5.1): where the protected
 * resource metadata is, and `error="invalid_token"` when a credential was sent but is not valid.
 * Built from PUBLIC_BASE_URL only, never from the request's Host.
 */
function bearerChallenge(publicBaseUrl: string, apiError: ApiError): string {
  const metadata = `${publicBaseUrl}/.well-known/oauth-protected-resource/mcp/`;
  if (apiError instanceof MissingApiKeyError) return `Bearer resource_metadata="${metadata}"`;
  const description = apiError.message.replaceAll('"', "'");
  return `Bearer error="invalid_token", error_description="${description}", ` +
    `resource_metadata="${metadata}"`;
}

/**
 * The JSON-RPC error an MCP client can parse, carrying the REST error body in `data`; a 401
 * carries the OAuth challenge when the public base URL is known.
 */
export function mcpErrorResponse(
  error: unknown,
  usage?: UsageState,
  publicBaseUrl?: string,
): Response {
  const apiError = toApiError(error);
  const headers = quotaHeaders(usage);
  if (apiError instanceof MethodNotAllowedError) headers["Allow"] = apiError.allow;
  if (apiError.status === 401 && publicBaseUrl) {
    headers["WWW-Authenticate"] = bearerChallenge(publicBaseUrl, apiError);
  }
  return json(apiError.status, {
    jsonrpc: "2.0",
    id: null,
    error: { code: -32001, message: apiError.message, data: apiError.body },
  }, headers);
}

/** The MCP edge for the app's router. */
export function createMcpEndpoint(
  deps: {
    serve: McpHandler;
    sql: Sql;
    publicBaseUrl?: string;
    /** How long the body may take to arrive after the headers before a 408 (platform/body.ts). */
    bodyTimeoutMs?: number;
  },
): (request: Request, url: URL, requestId?: string) => Promise<Outcome> {
  return async function mcp(request: Request, url: URL, requestId?: string): Promise<Outcome> {
    if (request.method === "OPTIONS") return { response: preflight(MCP_METHODS) };
    if (request.method !== "POST") {
      return { response: mcpErrorResponse(new MethodNotAllowedError(request.method, "POST")) };
    }
    try {
      const rawKey = apiKeyOf(request, url);
      // The credential first: an unknown caller's body is never read (nor waited for).
      await vouch(deps.sql, rawKey);
      const body = await readBodyBytes(
        request,
        deps.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS,
        MCP_MAX_BODY_BYTES,
      );
      // The server parses the bytes itself: no second Request, no second read.
      const { response, caller, charged } = await deps.serve(request, rawKey, requestId, body);
      return { response, caller, route: "/mcp", quota: charged ? "charged" : undefined };
    } catch (error) {
      // A bad key (401, 403) or body (408, 413) is answered here; anything unexpected goes to
      // the app's handler.
      if (toApiError(error).status === 500) throw error;
      return { response: mcpErrorResponse(error, undefined, deps.publicBaseUrl) };
    }
  };
}
