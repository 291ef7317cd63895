/**
 * A tool result as every tool of the endpoint answers it (docs/DECISIONS.md section 5): the body
 * as `structuredContent` and the same JSON as the one text block, which is also the shape OpenAI
 * documents for the `search` and `fetch` tools of ChatGPT connectors; a failure is an `isError`
 * result with the REST error body, logged once when it is the service's own (500).
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import { toApiError } from "../platform/errors.ts";
import { serializeJson } from "../platform/responses.ts";

/** The result of a tool call; `isError` marks a failure whose body is the REST error body. */
export function toolResult(body: Record<string, unknown>, isError: boolean): CallToolResult {
  return {
    content: [{ type: "text", text: serializeJson(body) }],
    structuredContent: body,
    ...(isError ? { isError: true } : {}),
  };
}

/** Who and what failed, for the log line and the error body. */
export interface FailedCall {
  tool: string;
  keyPrefix: string;
  requestId?: string;
}

/** The result of a failed tool call: the REST error body (with the request id), logged on 500. */
export function toolFailure(error: unknown, call: FailedCall): CallToolResult {
  const apiError = toApiError(error);
  if (apiError.status === 500) {
    const stack = error instanceof Error ? error.stack ?? error.message : String(error);
    console.error(JSON.stringify({
      level: "error",
      path: "/mcp",
      tool: call.tool,
      key_prefix: call.keyPrefix,
      error: stack,
    }));
  }
  const { requestId } = call;
  return toolResult(requestId ? { ...apiError.body, request_id: requestId } : apiError.body, true);
}
