/**
 * The JSON-RPC messages of POST /mcp as the handler (server.ts) sees them before the SDK does:
 * the body read once, what kind of message it is, and the readable -32602 of a malformed
 * tools/call.
 */
import {
  DEFAULT_MAX_REQUEST_BODY_SIZE,
  isJsonContentType,
  PROTOCOL_VERSION_META_KEY,
  readRequestBody,
} from "@modelcontextprotocol/server";

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * True for one JSON-RPC message (not an array, not a posted response, not `initialize`) whose
 * params carry the 2026-07-28 envelope claim, the protocol version key in `_meta`. The SDK's era
 * classification (v2.4, `classifyRequestBody` and `classifyNotificationBody`) serves such a
 * message as modern or refuses it as modern, never as 2025-era, so the full era check
 * (`isLegacyRequest`: a second schema parse of the whole body, 5% of a modern tool call) is
 * skipped for it. tests/mcp/era_check_test.ts holds this to isLegacyRequest.
 */
export function claimsModernEnvelope(body: unknown): boolean {
  if (!isPlainObject(body) || "result" in body || "error" in body) return false;
  if (typeof body.method !== "string" || body.method === "initialize") return false;
  const params = body.params;
  return isPlainObject(params) && isPlainObject(params._meta) &&
    PROTOCOL_VERSION_META_KEY in params._meta;
}

/** The name and arguments of a body that is one tools/call request, else undefined. */
export function toolCallOf(body: unknown): { name: string; args: unknown } | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
  const { method, params } = body as Record<string, unknown>;
  if (method !== "tools/call" || typeof params !== "object" || params === null) return undefined;
  const { name, arguments: args } = params as Record<string, unknown>;
  return typeof name === "string" ? { name, args } : undefined;
}

/** Messages that read no data and cost nothing: answered for a recently seen key as it was. */
const PROTOCOL_METHODS = new Set(["initialize", "ping", "tools/list", "server/discover"]);

export function isProtocolOnly(body: unknown): boolean {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return false;
  const { method } = body as Record<string, unknown>;
  return typeof method === "string" &&
    (PROTOCOL_METHODS.has(method) || method.startsWith("notifications/"));
}

/**
 * What, in words, is wrong with the params of a tools/call request (a single JSON-RPC message),
 * or undefined.
 */
export function callParamsProblem(message: unknown): string | undefined {
  if (typeof message !== "object" || message === null) return undefined;
  if ((message as Record<string, unknown>).method !== "tools/call") return undefined;
  const params = (message as Record<string, unknown>).params;
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
export async function withReadableParamsError(
  response: Response,
  problem: string,
): Promise<Response> {
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

function rpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status });
}

const decoder = new TextDecoder();

/**
 * The JSON body, read and parsed once for the era check and whichever era serves it (the SDK
 * would otherwise read a clone for the check and the body again to serve it, a fifth of an MCP
 * request's own cost); or the answer the SDK gives when there is no JSON body to serve. `bytes`
 * is the body when the app has read it already (null: none).
 */
export async function readJsonBody(
  request: Request,
  bytes?: Uint8Array | null,
): Promise<{ body: unknown } | { answer: Response }> {
  if (!isJsonContentType(request.headers.get("content-type"))) {
    return {
      answer: rpcError(
        415,
        -32000,
        "Unsupported Media Type: Content-Type must be application/json",
      ),
    };
  }
  const limit = DEFAULT_MAX_REQUEST_BODY_SIZE;
  const tooLarge = () => ({
    answer: rpcError(413, -32000, `Payload Too Large: Request body must not exceed ${limit} bytes`),
  });
  let text: string;
  if (bytes === undefined) {
    const read = await readRequestBody(request, limit);
    if (read.tooLarge) return tooLarge();
    text = read.text;
  } else {
    // The SDK's bound, as readRequestBody applies it: the declared length, then the bytes.
    const declared = Number(request.headers.get("content-length"));
    if (declared > limit || (bytes?.byteLength ?? 0) > limit) return tooLarge();
    text = bytes ? decoder.decode(bytes) : "";
  }
  try {
    return { body: JSON.parse(text) };
  } catch {
    return { answer: rpcError(400, -32700, "Parse error: Invalid JSON") };
  }
}
