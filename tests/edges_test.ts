/**
 * The service's edges over a real socket, as Deno.serve runs it: every method on every route
 * (never a 500; a 405 is JSON with Allow; HEAD is GET without the body), URLs and headers past
 * the service's bounds (414 and 431 as JSON), and a body that is never read for a caller without
 * a valid credential (the key is checked from the headers alone).
 */
import assert from "node:assert/strict";
import { dbTest } from "./helpers/db.ts";
import { loadFixture, makeKey, revokeKey, testApp } from "./helpers/app.ts";
import { rawRequest, serveRaw } from "./helpers/raw_http.ts";
import { openApiDocument } from "../src/rest/openapi.ts";
import { generateApiKey } from "../src/accounts/keys.ts";
import { MAX_HEADER_BYTES, MAX_URL_BYTES } from "../src/platform/limits.ts";

const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "TRACK"];
const OTHER_METHODS = ["FOO", "PROPFIND"];

/** Every route of the service: the REST document's paths (ids filled in) and the rest. */
function routes(watchId: number): string[] {
  const paths = openApiDocument().paths as Record<string, unknown>;
  const rest = Object.keys(paths).map((p) =>
    p.replace("{id}", p.includes("watches") ? String(watchId) : "1").replace("{slug}", "x")
  );
  return [
    ...rest,
    "/api/v1/openapi.json",
    "/api/v1/nothing",
    "/mcp",
    "/mcp/",
    "/healthz",
    "/",
    "/docs",
    "/docs/api",
    "/docs/rest",
    "/docs/rest.md",
    "/llms.txt",
    "/sitemap.xml",
    "/opportunities/1/x",
    "/.well-known/mcp/server-card.json",
    "/blog",
    "/blog/x",
    "/blog/feed.xml",
    "/assets/web.css",
    "/account",
    "/account/signin",
    "/account/keys",
    "/account/watches",
    "/account/billing/checkout",
    "/account/billing/portal",
    "/billing/webhook",
    "/oauth/register",
    "/oauth/token",
    "/oauth/authorize",
    "/.well-known/oauth-authorization-server",
    "/.well-known/oauth-protected-resource/mcp/",
    "/feeds/watch",
    "/watches/unsubscribe",
    "/nothing",
  ];
}

function head(method: string, path: string, key: string, extra: string[] = []): string {
  return [
    `${method} ${path} HTTP/1.1`,
    "Host: oppintel.test",
    `X-API-Key: ${key}`,
    "Connection: close",
    ...(["POST", "PUT", "PATCH", "DELETE"].includes(method) ? ["Content-Length: 0"] : []),
    ...extra,
  ].join("\r\n");
}

dbTest(
  "every method on every route: no 500, 405 as JSON with Allow, HEAD as GET",
  async (db, t) => {
    await loadFixture(db.sql);
    const { key } = await makeKey(db.sql, "business");
    const app = testApp(db);
    const created = await app.get("/api/v1/watches", key, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ name: "edges", query: { q: "invoice" }, deliveries: { feed: true } }),
    });
    assert.equal(created.status, 201, await created.clone().text());
    const watchId = (await created.json()).id as number;
    const server = serveRaw(app.handler);
    try {
      for (const path of routes(watchId)) {
        await t.step(path, async () => {
          const get = await rawRequest(server.port, head("GET", path, key));
          for (const method of [...METHODS, ...OTHER_METHODS]) {
            const answer = method === "GET"
              ? get
              : await rawRequest(server.port, head(method, path, key));
            const label = `${method} ${path}: ${answer.status} ${answer.body.slice(0, 120)}`;
            assert.ok(answer.status >= 200 && answer.status < 500, label);
            if (answer.status === 405) {
              const allow = answer.headers.get("allow") ?? "";
              assert.match(allow, /^[A-Z]+(, [A-Z]+)*$/, `${label}: Allow`);
              assert.match(answer.headers.get("content-type") ?? "", /^application\/json/, label);
              assert.ok(!allow.split(", ").includes(method), `${label}: ${method} not allowed`);
              if (method !== "HEAD") JSON.parse(answer.body);
            }
            if (method === "HEAD") {
              assert.equal(answer.status, get.status, label);
              assert.equal(answer.body, "", `${label}: no body`);
            }
          }
        });
      }
    } finally {
      await server.close();
    }
    assert.ok(!app.logs.some((entry) => entry.status === 500), "no 500 in the request log");
  },
);

dbTest("HEAD of a REST route answers GET's status and headers without the body", async (db) => {
  await loadFixture(db.sql);
  const { key } = await makeKey(db.sql, "pro");
  const app = testApp(db);
  const res = await app.get("/api/v1/opportunities?page_size=2", key, { method: "HEAD" });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "application/json; charset=utf-8");
  assert.equal(res.headers.get("x-quota-used"), "1", "charged as the GET it stands for");
  assert.equal(await res.text(), "");
});

dbTest("URLs and headers past the bounds answer 414 and 431 as JSON", async (db) => {
  const { key } = await makeKey(db.sql, "pro");
  const app = testApp(db);
  const server = serveRaw(app.handler);
  const long = "a".repeat(MAX_URL_BYTES);
  const big = "b".repeat(MAX_HEADER_BYTES);
  try {
    for (const path of ["/api/v1/opportunities", "/api/v1/blog", "/", "/account", "/nothing"]) {
      const url = await rawRequest(server.port, head("GET", `${path}?x=${long}`, key));
      assert.equal(url.status, 414, path);
      assert.equal(url.headers.get("content-type"), "application/json; charset=utf-8");
      assert.equal(JSON.parse(url.body).error, "uri_too_long", path);
      const headers = await rawRequest(server.port, head("GET", path, key, [`X-Big: ${big}`]));
      assert.equal(headers.status, 431, path);
      assert.equal(JSON.parse(headers.body).error, "headers_too_large", path);
    }
    // The MCP endpoint answers in its own shape: a JSON-RPC error carrying the REST body.
    const mcp = await rawRequest(server.port, head("POST", `/mcp/?x=${long}`, key));
    assert.equal(mcp.status, 414);
    assert.equal(JSON.parse(mcp.body).error.data.error, "uri_too_long");
    // Past Deno's own bound (64 KiB of head) the HTTP server answers before the service can.
    const huge = await rawRequest(server.port, head("GET", `/api/v1/blog?x=${long}${long}`, key));
    assert.equal(huge.status, 400);
  } finally {
    await server.close();
  }
  assert.ok(!app.logs.some((entry) => entry.status === 500));
});

dbTest("a body is never read or waited for without a valid credential", async (db, t) => {
  const pro = await makeKey(db.sql, "pro");
  const revoked = await makeKey(db.sql, "pro");
  await revokeKey(db.sql, revoked.keyId);
  // A deadline longer than the test's own: only an answer from the headers can come back.
  const app = testApp(db, { BODY_TIMEOUT_MS: "120000" });
  const server = serveRaw(app.handler);
  // The headers promise 8 MB; ten bytes arrive and the rest never does.
  const stalled = (path: string, credential: string[]) =>
    rawRequest(
      server.port,
      [
        `POST ${path} HTTP/1.1`,
        "Host: oppintel.test",
        "Content-Type: application/json",
        "Content-Length: 8000000",
        ...credential,
      ].join("\r\n"),
      '{"jsonrpc"',
    );
  const cases: [string, string[], number, string][] = [
    ["no credential", [], 401, "missing_api_key"],
    ["a malformed key", ["X-API-Key: nope"], 401, "invalid_api_key"],
    ["an unknown key", [`X-API-Key: ${generateApiKey()}`], 401, "invalid_api_key"],
    ["a revoked key", [`X-API-Key: ${revoked.key}`], 403, "key_revoked"],
    ["an unknown bearer token", [`Authorization: Bearer ${generateApiKey()}`], 401, ""],
  ];
  try {
    for (const [what, credential, status, code] of cases) {
      await t.step(`POST /mcp/ with ${what}`, async () => {
        const answer = await stalled("/mcp/", credential);
        assert.equal(answer.status, status, answer.body);
        const body = JSON.parse(answer.body);
        assert.equal(body.error.code, -32001);
        if (code) assert.equal(body.error.data.error, code);
      });
      await t.step(`POST /api/v1/watches with ${what}`, async () => {
        const answer = await stalled("/api/v1/watches", credential);
        assert.equal(answer.status, status, answer.body);
        if (code) assert.equal(JSON.parse(answer.body).error, code);
      });
    }
    await t.step("a valid key's body is read and answered", async () => {
      const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
      const answer = await rawRequest(
        server.port,
        [
          "POST /mcp/ HTTP/1.1",
          "Host: oppintel.test",
          "Content-Type: application/json",
          "Accept: application/json, text/event-stream",
          "MCP-Protocol-Version: 2025-06-18",
          `X-API-Key: ${pro.key}`,
          "Connection: close",
          `Content-Length: ${body.length}`,
        ].join("\r\n"),
        body,
      );
      assert.equal(answer.status, 200, answer.body);
      assert.deepEqual(JSON.parse(answer.body).result, {});
    });
  } finally {
    await server.close();
  }
});
