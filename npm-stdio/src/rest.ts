/**
 * Calls of the hosted REST API and their translation into MCP tool results: a success is the
 * REST JSON, a REST error body becomes an `isError` result carrying that same body, and a
 * network failure or time-out becomes a `service_unreachable` error result, never a throw.
 */
import type { StdioConfig } from "./config.ts";

/** How long one call may take, from the request to the end of the body. */
export const TIMEOUT_MS = 15_000;

/** A tool result as MCP `tools/call` answers it. */
export interface ToolResult {
  [key: string]: unknown;
  content: { type: "text"; text: string }[];
  structuredContent: Record<string, unknown>;
  isError?: boolean;
}

/** The result that carries `body` as structured content and as text. */
export function jsonResult(body: Record<string, unknown>, isError = false): ToolResult {
  const result: ToolResult = {
    content: [{ type: "text", text: JSON.stringify(body) }],
    structuredContent: body,
  };
  if (isError) result.isError = true;
  return result;
}

/** GETs `path` (under the base address) with `query` and the key; never throws. */
export async function getJson(
  config: StdioConfig,
  path: string,
  query: Record<string, string>,
  options: { userAgent?: string; fetch?: typeof fetch } = {},
): Promise<ToolResult> {
  const url = new URL(config.baseUrl + path);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  let status: number;
  let text: string;
  try {
    const response = await (options.fetch ?? fetch)(url, {
      headers: {
        "X-API-Key": config.apiKey,
        Accept: "application/json",
        "User-Agent": options.userAgent ?? "oppintel-mcp",
      },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    status = response.status;
    text = await response.text();
  } catch (error) {
    return unreachable(config, error);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!isObject(body)) {
    // Not the service's JSON (a proxy page, an HTML error): say so rather than guess.
    return jsonResult({
      error: "unexpected_response",
      message: `The service at "${config.baseUrl}" answered HTTP ${status} without a JSON ` +
        "object; check OPPINTEL_BASE_URL",
      status,
    }, true);
  }
  return jsonResult(body, status < 200 || status > 299);
}

function unreachable(config: StdioConfig, error: unknown): ToolResult {
  const timedOut = error instanceof Error && error.name === "TimeoutError";
  const reason = timedOut ? `no answer within ${TIMEOUT_MS / 1000} s` : describeError(error);
  return jsonResult({
    error: "service_unreachable",
    message: `The Opportunity Intelligence service could not be reached at "${config.baseUrl}" ` +
      `(${reason}); check OPPINTEL_BASE_URL and your network, then try again`,
  }, true);
}

function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // Node's fetch says only "fetch failed"; the useful part (ECONNREFUSED, ENOTFOUND) is the cause.
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    return typeof code === "string" ? `${code}: ${cause.message}` : cause.message;
  }
  return error.message;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
