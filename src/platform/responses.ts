/** Building responses: JSON bodies, CORS, quota headers, and every error mapped in one place. */
import {
  type ApiError,
  InsufficientScopeError,
  InvalidTokenError,
  MethodNotAllowedError,
  QuotaExceededError,
  RateLimitedError,
  toApiError,
} from "./errors.ts";
import type { UsageState } from "./plans.ts";

const QUOTA_HEADERS = "X-Quota-Limit, X-Quota-Used, X-Quota-Remaining, X-Quota-Reset, " +
  "X-Quota-Charged, RateLimit-Policy, RateLimit, Retry-After, X-Request-Id";

/** Headers every response of /api/v1 and /mcp carries. */
export function corsHeaders(): Record<string, string> {
  return {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Expose-Headers":
      `${QUOTA_HEADERS}, Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate`,
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
        "X-API-Key, Authorization, Content-Type, Accept, Mcp-Protocol-Version, Mcp-Method, " +
        "Mcp-Name, Mcp-Session-Id, Last-Event-ID",
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
    ...rateLimitHeaders(usage),
  };
}

/**
 * The header of every metered answer saying how many calls of the quota it took: 1, or 0 for a
 * repeat (the same call answered from the same data within 24 hours), a free operation or a
 * refusal; an export says the calls it reserved.
 */
export const QUOTA_CHARGED = "X-Quota-Charged";

/** The name of the monthly quota in the RateLimit fields. */
export const RATE_LIMIT_POLICY = "monthly";

/** Whole seconds from `now` until the quota resets (at least 0). */
export function secondsToReset(usage: UsageState, now: Date = new Date()): number {
  return Math.max(0, Math.ceil((Date.parse(usage.reset_at) - now.getTime()) / 1000));
}

/**
 * The IETF `RateLimit-Policy` and `RateLimit` fields (draft-ietf-httpapi-ratelimit-headers-11):
 * Structured Field Lists of one Item, the policy name as a String, with the quota `q` and the
 * window `w` in seconds (this calendar month), and the remaining units `r` and the seconds `t`
 * until the reset.
 */
export function rateLimitHeaders(
  usage: UsageState,
  now: Date = new Date(),
): Record<string, string> {
  const reset = new Date(usage.reset_at);
  const start = Date.UTC(reset.getUTCFullYear(), reset.getUTCMonth() - 1, 1);
  const window = Math.round((reset.getTime() - start) / 1000);
  return {
    "RateLimit-Policy": `"${RATE_LIMIT_POLICY}";q=${usage.limit};w=${window}`,
    "RateLimit": `"${RATE_LIMIT_POLICY}";r=${usage.remaining};t=${secondsToReset(usage, now)}`,
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
  // RFC 6750 section 3: a Bearer token that is not valid is named in the challenge.
  if (apiError instanceof InvalidTokenError) {
    headers["WWW-Authenticate"] = 'Bearer error="invalid_token"';
  }
  if (apiError instanceof InsufficientScopeError) {
    headers["WWW-Authenticate"] =
      `Bearer error="insufficient_scope", scope="${apiError.requiredScope}"`;
  }
  if (apiError instanceof RateLimitedError) {
    headers["Retry-After"] = String(apiError.retryAfterSeconds);
  }
  if (apiError instanceof QuotaExceededError) {
    const reset = Date.parse(apiError.resetAt);
    headers["Retry-After"] = String(Math.max(0, Math.ceil((reset - Date.now()) / 1000)));
  }
  return json(apiError.status, apiError.body, headers);
}

// Well-formed incoming request ids are kept: letters, digits and . _ : - only (nothing that could
// end a header or a log field), at most 128 characters.
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request's `X-Request-Id` when it is well formed, else a new random one. */
export function requestIdOf(request: Request): string {
  const given = request.headers.get("x-request-id")?.trim();
  return given && REQUEST_ID.test(given) ? given : crypto.randomUUID();
}

/**
 * Sets `X-Request-Id` on an answer, and puts `request_id` into a JSON error body: beside `error`
 * in a REST error, in `error.data` of a JSON-RPC error (MCP).
 */
export async function withRequestId(response: Response, requestId: string): Promise<Response> {
  const type = response.headers.get("content-type") ?? "";
  if (response.status >= 400 && type.startsWith("application/json")) {
    const body = await response.clone().json().catch(() => undefined);
    const target = typeof body?.error === "string"
      ? body
      : typeof body?.error?.data === "object" && body.error.data !== null
      ? body.error.data
      : undefined;
    if (target) {
      target.request_id = requestId;
      const headers = new Headers(response.headers);
      headers.set("X-Request-Id", requestId);
      return new Response(JSON.stringify(body), { status: response.status, headers });
    }
  }
  return withHeaders(response, { "X-Request-Id": requestId });
}

/**
 * `response` with `extra` headers set: in place when its headers may change (a response the
 * service built), else on a copy (a fetched or static response's headers are immutable).
 */
export function withHeaders(response: Response, extra: Record<string, string>): Response {
  try {
    for (const [name, value] of Object.entries(extra)) response.headers.set(name, value);
    return response;
  } catch {
    const headers = new Headers(response.headers);
    for (const [name, value] of Object.entries(extra)) headers.set(name, value);
    return new Response(response.body, {
      status: response.status,
      statusText: response.statusText,
      headers,
    });
  }
}
