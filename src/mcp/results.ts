/**
 * A tool result as every tool of the endpoint answers it (docs/DECISIONS.md section 5): the body
 * as `structuredContent` and the same JSON as the one text block, which is also the shape OpenAI
 * documents for the `search` and `fetch` tools of ChatGPT connectors.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import { serializeJson } from "../platform/responses.ts";

/** The result of a tool call; `isError` marks a failure whose body is the REST error body. */
export function toolResult(body: Record<string, unknown>, isError: boolean): CallToolResult {
  return {
    content: [{ type: "text", text: serializeJson(body) }],
    structuredContent: body,
    ...(isError ? { isError: true } : {}),
  };
}
