/**
 * What a request leaves in the log: the outcome an edge reports (response, caller, route pattern,
 * quota effect) and the path with its secrets redacted; failures are logged with their stack.
 */
import type { Plan } from "./plans.ts";

/** Who called, as the log line names them (an authenticated caller of src/accounts/credentials.ts). */
export interface LoggedCaller {
  keyPrefix: string;
  accountId: number;
  plan: Plan;
}

/** What an edge did with a request, for the log line, metrics and telemetry. */
export interface Outcome {
  response: Response;
  caller?: LoggedCaller;
  /** The route pattern, for logs and metrics (never the raw path with its ids). */
  route?: string;
  /** What the call did to the quota: charged one unit, was refused (429), or cost nothing. */
  quota?: "charged" | "rejected" | "free";
}

// Query parameters whose values are secrets: API keys, and the account area's e-mailed tokens.
const SECRET_PARAMS = new Set(["api_key", "token"]);

// Anything shaped like one of our API keys (src/accounts/keys.ts: `oi_live_` and base62), with
// the underscores written or percent-encoded, in any case: a key pasted into a path
// (`/api/v1/blog/oi_live_...`) or another parameter is as secret as one in `api_key`.
const KEY_SHAPE = /oi(?:_|%5f)live(?:_|%5f)[0-9a-z]+/gi;

/** `text` with everything shaped like an API key replaced by `[redacted]`. */
export function redactKeys(text: string): string {
  return text.replace(KEY_SHAPE, "[redacted]");
}

/**
 * A URL path and query for logs, with the value of every secret parameter (`api_key`, `token`)
 * and anything shaped like an API key anywhere in the path or query replaced by `[redacted]`.
 * Parameter names are compared decoded, as the key lookup reads them, so an encoded name
 * (`api%5Fkey`) is redacted too.
 */
export function redactedPath(url: URL): string {
  if (!url.search) return redactKeys(url.pathname);
  const parts = url.search.slice(1).split("&").map((part) => {
    const [name] = new URLSearchParams(part).keys();
    return name !== undefined && SECRET_PARAMS.has(name.toLowerCase())
      ? `${part.split("=")[0]}=[redacted]`
      : part;
  });
  return redactKeys(`${url.pathname}?${parts.join("&")}`);
}

/** Logs an unexpected failure with its stack, on standard error. */
export function logFailure(error: unknown, request: Request, url: URL): void {
  const stack = error instanceof Error ? error.stack ?? error.message : String(error);
  console.error(JSON.stringify({
    level: "error",
    method: request.method,
    path: redactedPath(url),
    error: stack,
  }));
}
