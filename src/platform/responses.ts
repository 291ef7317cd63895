/** Building responses: JSON bodies, CORS, quota headers, and every error mapped in one place. */
import { type ApiError, MethodNotAllowedError, toApiError } from "./errors.ts";
import type { UsageState } from "../accounts/usage.ts";

const QUOTA_HEADERS = "X-Quota-Limit, X-Quota-Used, X-Quota-Remaining, X-Quota-Reset";

/** Headers every response of /api/v1 and /mcp carries. */
export function corsHeaders(): Record<string, string> {
  return {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Expose-Headers": `${QUOTA_HEADERS}, Mcp-Session-Id, Mcp-Protocol-Version`,
  };
}

/** The answer to a CORS preflight: 204, no key needed. */
export function preflight(methods: string): Response {
  return new Response(null, {
    status: 204,
    headers: {
      ...corsHeaders(),
      "Access-Control-Allow-Methods": methods,
      "Access-Control-Allow-Headers":
        "X-API-Key, Authorization, Content-Type, Accept, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID",
      "Access-Control-Max-Age": "86400",
    },
  });
}

/** The X-Quota-* headers of an authenticated response, after this call's charge. */
export function quotaHeaders(usage: UsageState | undefined): Record<string, string> {
  if (!usage) return {};
  return {
    "X-Quota-Limit": String(usage.limit),
    "X-Quota-Used": String(usage.used),
    "X-Quota-Remaining": String(usage.remaining),
    "X-Quota-Reset": usage.reset_at,
  };
}

// Cached answers are shared, never-mutated objects: serialize each one once.
const serialized = new WeakMap<object, string>();

/** `JSON.stringify(body)`, computed once per object. Bodies must not be mutated after. */
export function serializeJson(body: unknown): string {
  if (body === null || typeof body !== "object") return JSON.stringify(body);
  let text = serialized.get(body);
  if (text === undefined) {
    text = JSON.stringify(body);
    serialized.set(body, text);
  }
  return text;
}

/** A JSON response with the service's headers. */
export function json(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): Response {
  return new Response(serializeJson(body), {
    status,
    headers: { "Content-Type": "application/json; charset=utf-8", ...corsHeaders(), ...headers },
  });
}

/** The JSON error response of any thrown value; unknown errors never show their text. */
export function errorResponse(error: unknown, usage?: UsageState): Response {
  const apiError: ApiError = toApiError(error);
  const headers = quotaHeaders(usage);
  if (apiError instanceof MethodNotAllowedError) headers["Allow"] = apiError.allow;
  return json(apiError.status, apiError.body, headers);
}
