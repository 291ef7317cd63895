/**
 * What the sweeps of hostile input share: the GET endpoints of the served OpenAPI document with
 * their parameters, the check that an answer is no internal error, and a tools/call of either
 * MCP era.
 */
import assert from "node:assert/strict";
import { mcpPost, type TestApp } from "../helpers/app.ts";
import { openApiDocument } from "../../src/rest/openapi.ts";

/** A parameter of an endpoint, as the OpenAPI document declares it. */
export interface Parameter {
  name: string;
  in: "query" | "path";
}

/** The GET endpoints of the served document, with the parameters of the path and the GET. */
export function restEndpoints(): { path: string; parameters: Parameter[] }[] {
  const doc = openApiDocument() as {
    paths: Record<string, { parameters?: Parameter[]; get?: { parameters?: Parameter[] } }>;
  };
  // Parameters may be declared on the path (shared by its methods) or on the GET.
  return Object.entries(doc.paths)
    .filter(([, item]) => item.get)
    .map(([path, item]) => ({
      path,
      parameters: [...item.parameters ?? [], ...item.get!.parameters ?? []],
    }));
}

/** Fails when `res` is a 500 or an internal_error; the body, parsed when it is JSON (the export
 * answers JSON Lines or CSV). */
export async function assertNoInternalError(res: Response, what: string): Promise<unknown> {
  assert.notEqual(res.status, 500, what);
  const text = await res.text();
  assert.doesNotMatch(text, /internal_error/, what);
  const json = res.headers.get("content-type")?.startsWith("application/json");
  return json && text.startsWith("{") ? JSON.parse(text) : text;
}

/** A tools/call as a stateless 2025 client or a 2026-07-28 client sends it. */
export function mcpCallOfEra(
  app: TestApp,
  key: string,
  era: "2025" | "2026",
  name: string,
  args: Record<string, unknown>,
) {
  const modern = era === "2026";
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "sweep", version: "0" },
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  return mcpPost(
    app,
    key,
    {
      id: 1,
      method: "tools/call",
      params: { name, arguments: args, ...(modern ? { _meta: meta } : {}) },
    },
    {
      "Mcp-Protocol-Version": modern ? "2026-07-28" : "2025-11-25",
      ...(modern ? { "Mcp-Method": "tools/call", "Mcp-Name": name } : {}),
    },
  );
}
