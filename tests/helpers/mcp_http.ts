/**
 * The hosted MCP endpoint under test: the service's handler served on 127.0.0.1 and the SDK's real
 * Client over HTTP, raw JSON-RPC posts, and the tool lists the tests expect.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { TestApp } from "./app.ts";
import type { Sql } from "../../src/db/open.ts";

export const PRO_TOOLS = [
  "query_opportunities",
  "list_trending_themes",
  "get_theme",
  "get_theme_history",
  "find_similar_opportunities",
  "match_idea",
];
export const FREE_TOOLS = [
  "get_overview",
  "get_opportunity",
  "list_blog_posts",
  "get_blog_post",
  "get_usage",
  "search",
  "fetch",
];
/** The watch tools: free, and they change state (not read-only). */
export const WATCH_TOOLS = ["create_watch", "list_watches", "delete_watch"];

export interface Served {
  /** Base URL of the MCP endpoint, e.g. http://127.0.0.1:1234/mcp/ */
  url: string;
  close(): Promise<void>;
}

export function serve(app: TestApp): Served {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request) => app.handler(request),
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}/mcp/`,
    close: () => server.shutdown(),
  };
}

interface Connected {
  client: Client;
  /** Headers of the last HTTP response the client received. */
  lastHeaders(): Headers;
  close(): Promise<void>;
}

/** A real MCP client, connected (initialize + notifications/initialized). */
export async function connect(
  url: string,
  auth: { key?: string; header?: Record<string, string> } = {},
): Promise<Connected> {
  let last = new Headers();
  const headers: Record<string, string> = { ...auth.header };
  if (auth.key) headers["X-API-Key"] = auth.key;
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers },
    fetch: async (input: string | URL, init?: RequestInit) => {
      const response = await fetch(input, init);
      last = response.headers;
      return response;
    },
  });
  const client = new Client({ name: "oppintel-test", version: "0.0.0" });
  await client.connect(transport);
  await client.listTools();
  return { client, lastHeaders: () => last, close: () => client.close() };
}

/**
 * tools/call through the SDK client, which (once it has listed the tools, as connect() does)
 * checks structuredContent against the tool's outputSchema, error results included.
 */
export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<CallToolResult> {
  return await client.callTool({ name, arguments: args }) as CallToolResult;
}

/** The structured body of a tool result, after checking the text block carries the same JSON. */
export function structured(result: CallToolResult): Record<string, unknown> {
  assert.ok(result.structuredContent, "structuredContent is present");
  assert.equal(result.content.length, 1);
  const [block] = result.content;
  assert.equal(block.type, "text");
  assert.deepEqual(JSON.parse((block as { text: string }).text), result.structuredContent);
  return result.structuredContent as Record<string, unknown>;
}

/** The error body of an isError result, without its request_id (which every one carries). */
export function errorOf(result: CallToolResult): Record<string, unknown> {
  assert.equal(result.isError, true, `expected an error result: ${JSON.stringify(result)}`);
  const { request_id, ...body } = structured(result);
  assert.equal(typeof request_id, "string", "an MCP error result carries request_id");
  return body;
}

/** A REST answer's JSON; an error body without its request_id, to compare with MCP's. */
export async function restJson(
  app: TestApp,
  path: string,
  key: string,
): Promise<Record<string, unknown>> {
  const { request_id: _, ...body } = await (await app.get(path, key)).json();
  return body;
}

export async function themeIds(sql: Sql): Promise<Record<string, number>> {
  const rows = await sql<{ slug: string; id: number }[]>`select slug, id from themes`;
  return Object.fromEntries(rows.map((r) => [r.slug, r.id]));
}

export async function rawPost(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
  method = "POST",
): Promise<Response> {
  return await fetch(url, {
    method,
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      ...headers,
    },
    body: method === "POST" ? JSON.stringify(body) : undefined,
  });
}

export const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "raw", version: "0" },
  },
};
