/**
 * The MCP server card: valid against the Server Card extension's schema (vendored unchanged in
 * tests/fixtures/mcp-server-card/), served where clients look for it (the .well-known address,
 * `<mcp url>/server-card`, the AI Catalog entry) with the extension's headers, and consistent
 * with the live endpoint, as the extension asks: the name agrees with the registry entry, the
 * remote is this service's /mcp/, every revision it names is served (2026-07-28 as
 * `server/discover` lists it, each 2025 one as `initialize` accepts it) and none is left out.
 */
import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { sha256Hex } from "../../src/platform/crypto.ts";
import { dbTest } from "../helpers/db.ts";
import { makeKey } from "../helpers/app.ts";
import { webTestApp } from "../helpers/web.ts";
import { PROTOCOL_VERSIONS, serverCard } from "../../src/surfaces.ts";

const ROOT = new URL("../../", import.meta.url);
const SCHEMA = new URL("tests/fixtures/mcp-server-card/schema.json", ROOT);
const SCHEMA_SHA256 = "2c772b51edb367f154771d84ddbae87ddba00a624422c8e46f218a9ac03bf042";
const BASE = "https://oppintel.example";

// deno-lint-ignore no-explicit-any
type Json = any;

async function validator() {
  const text = await Deno.readTextFile(SCHEMA);
  assert.equal(await sha256Hex(text), SCHEMA_SHA256, "the vendored schema, unchanged");
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema(JSON.parse(text), "schema.json");
  const validate = ajv.getSchema("schema.json#/$defs/ServerCard")!;
  return (card: Json) =>
    validate(card) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

Deno.test("serverCard validates against the extension's schema, which can refuse", async (t) => {
  const errorsOf = await validator();
  const card = serverCard(BASE);
  await t.step("the card passes", () => assert.deepEqual(errorsOf(card), []));
  await t.step("broken cards do not", () => {
    const broken: [string, (c: Json) => void][] = [
      ["no name", (c) => delete c.name],
      ["a name without a namespace", (c) => c.name = "oppintel"],
      ["a description over 100 characters", (c) => c.description = "x".repeat(101)],
      ["another schema", (c) => c.$schema = "https://example.com/card.json"],
      ["a remote of an unknown transport", (c) => c.remotes[0].type = "websocket"],
    ];
    for (const [what, breakIt] of broken) {
      const copy = structuredClone(card);
      breakIt(copy);
      assert.notDeepEqual(errorsOf(copy), [], what);
    }
  });
  await t.step("it agrees with server.json, the registry entry", async () => {
    const entry = JSON.parse(await Deno.readTextFile(new URL("server.json", ROOT)));
    assert.equal(card.name, entry.name);
    assert.equal(card.description, entry.description);
    assert.equal(card.version, entry.version);
    assert.equal(card.title, entry.title);
  });
});

dbTest(
  "GET /.well-known/mcp/server-card.json, /mcp/server-card and the AI Catalog",
  async (db, t) => {
    const app = webTestApp(db, { base: BASE });
    const get = (path: string, init?: RequestInit) =>
      app.handler(new Request(`${BASE}${path}`, init));

    await t.step("the card at both addresses, with the extension's headers", async () => {
      for (const path of ["/.well-known/mcp/server-card.json", "/mcp/server-card"]) {
        const response = await get(path);
        assert.equal(response.status, 200, path);
        assert.equal(response.headers.get("content-type"), "application/json; charset=utf-8");
        assert.equal(response.headers.get("access-control-allow-origin"), "*");
        assert.equal(response.headers.get("access-control-expose-headers"), "ETag");
        assert.equal(response.headers.get("cache-control"), "public, max-age=3600");
        const card: Json = await response.json();
        assert.equal(card.remotes[0].url, `${BASE}/mcp/`);
        assert.deepEqual(card, serverCard(BASE), path);
        const etag = response.headers.get("etag")!;
        const again = await get(path, { headers: { "If-None-Match": etag } });
        assert.equal(again.status, 304);
      }
      const typed = await get("/mcp/server-card", {
        headers: { Accept: "application/mcp-server-card+json" },
      });
      assert.equal(
        typed.headers.get("content-type"),
        "application/mcp-server-card+json; charset=utf-8",
      );
      await typed.body?.cancel();
      const preflight = await get("/mcp/server-card", { method: "OPTIONS" });
      assert.equal(preflight.status, 204);
      assert.equal(preflight.headers.get("access-control-allow-methods"), "GET");
      const post = await get("/mcp/server-card", { method: "POST" });
      assert.equal(post.status, 405);
      await post.body?.cancel();
    });

    await t.step("the AI Catalog lists the card", async () => {
      const catalog = await (await get("/.well-known/ai-catalog.json")).json();
      assert.equal(catalog.specVersion, "1.0");
      assert.deepEqual(catalog.entries, [{
        identifier: "urn:air:oppintel.example:mcp:opportunity-intelligence",
        type: "application/mcp-server-card+json",
        url: `${BASE}/mcp/server-card`,
      }]);
    });

    await t.step("every revision the card names is served, and only those", async () => {
      const { key } = await makeKey(db.sql, "free");
      const post = async (body: Json, headers: Record<string, string>) => {
        const response = await app.handler(
          new Request(`${BASE}/mcp/`, {
            method: "POST",
            headers: {
              "X-API-Key": key,
              "Content-Type": "application/json",
              Accept: "application/json, text/event-stream",
              ...headers,
            },
            body: JSON.stringify({ jsonrpc: "2.0", id: 1, ...body }),
          }),
        );
        return await response.json();
      };
      const discover = await post({
        method: "server/discover",
        params: {
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": { name: "t", version: "0" },
          },
        },
      }, { "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "server/discover" });
      const modern: string[] = discover.result.supportedVersions;
      const older = PROTOCOL_VERSIONS.filter((v) => !modern.includes(v));
      for (const version of older) {
        const answer = await post({
          method: "initialize",
          params: {
            protocolVersion: version,
            capabilities: {},
            clientInfo: { name: "t", version: "0" },
          },
        }, {});
        assert.equal(answer.result.protocolVersion, version, `initialize accepts ${version}`);
      }
      assert.deepEqual([...modern, ...older].sort(), [...PROTOCOL_VERSIONS].sort());
      assert.ok(modern.length >= 1 && older.length >= 1, "both eras");
    });
  },
);
