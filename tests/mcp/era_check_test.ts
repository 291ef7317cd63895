/**
 * claimsModernEnvelope (src/mcp/messages.ts) lets a 2026-07-28 message skip the SDK's full era
 * check: it must never say "modern" for a body the SDK would serve as 2025-era. Checked here
 * against the SDK's own isLegacyRequest for bodies of both eras, well-formed or not, under
 * every MCP-Protocol-Version header a client may send.
 */
import assert from "node:assert/strict";
import { isLegacyRequest, PROTOCOL_VERSION_META_KEY } from "@modelcontextprotocol/server";
import { claimsModernEnvelope } from "../../src/mcp/messages.ts";

const envelope = (version: unknown) => ({
  [PROTOCOL_VERSION_META_KEY]: version,
  "io.modelcontextprotocol/clientInfo": { name: "t", version: "0" },
  "io.modelcontextprotocol/clientCapabilities": {},
});

const BODIES: Record<string, unknown> = {
  "modern tools/call": {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "x", arguments: {}, _meta: envelope("2026-07-28") },
  },
  "modern tools/list": {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/list",
    params: { _meta: envelope("2026-07-28") },
  },
  "envelope naming a 2025 version": {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/list",
    params: { _meta: envelope("2025-11-25") },
  },
  "envelope with a number as version": {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/list",
    params: { _meta: envelope(7) },
  },
  "envelope with only the version": {
    jsonrpc: "2.0",
    id: 1,
    method: "ping",
    params: { _meta: { [PROTOCOL_VERSION_META_KEY]: "2026-07-28" } },
  },
  "modern notification": {
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: 1, _meta: envelope("2026-07-28") },
  },
  "posted result with an envelope": {
    jsonrpc: "2.0",
    id: 1,
    result: {},
    method: "tools/list",
    params: { _meta: envelope("2026-07-28") },
  },
  "posted error with an envelope": {
    jsonrpc: "2.0",
    id: 1,
    error: { code: 1, message: "x" },
    method: "tools/list",
    params: { _meta: envelope("2026-07-28") },
  },
  "batch of modern requests": [
    { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: envelope("2026-07-28") } },
  ],
  "legacy tools/call": {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "x", arguments: {} },
  },
  "legacy initialize": {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "t", version: "0" },
    },
  },
  "legacy notification": { jsonrpc: "2.0", method: "notifications/initialized" },
  "method not a string": {
    jsonrpc: "2.0",
    id: 1,
    method: 5,
    params: { _meta: envelope("2026-07-28") },
  },
  "no jsonrpc member": { id: 1, method: "tools/list", params: { _meta: envelope("2026-07-28") } },
};

const LEGACY_INITIALIZE = BODIES["legacy initialize"] as { params: Record<string, unknown> };
BODIES["initialize with an envelope"] = {
  ...LEGACY_INITIALIZE,
  params: { ...LEGACY_INITIALIZE.params, _meta: envelope("2026-07-28") },
};

const HEADERS: (string | undefined)[] = [undefined, "2026-07-28", "2025-11-25", "2025-06-18", "x"];

Deno.test("claimsModernEnvelope never claims a body the SDK serves as 2025-era", async () => {
  let claimed = 0;
  for (const [name, body] of Object.entries(BODIES)) {
    for (const version of HEADERS) {
      const request = new Request("http://127.0.0.1/mcp/", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...(version ? { "mcp-protocol-version": version } : {}),
        },
        body: JSON.stringify(body),
      });
      if (!claimsModernEnvelope(body)) continue;
      claimed++;
      assert.equal(await isLegacyRequest(request, body), false, `${name}, header ${version}`);
    }
  }
  // The check above must have something to check: the well-formed modern bodies are claimed.
  assert.ok(claimed >= 6 * HEADERS.length, `claimed ${claimed}`);
  for (const name of ["legacy tools/call", "legacy initialize", "initialize with an envelope"]) {
    assert.equal(claimsModernEnvelope(BODIES[name]), false, name);
  }
});
