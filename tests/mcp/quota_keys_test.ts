/**
 * The hosted MCP endpoint (DECISIONS.md section 5) with the SDK's real Client over HTTP: the
 * service's handler is served on 127.0.0.1, so requests pass the real routing, key check and
 * transport exactly as in production. This file: the quota, the one counter per account, the
 * key's places and stateless JSON.
 */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { loadFixture, makeKey, revokeKey, setUsed, testApp, usedOf } from "../helpers/app.ts";
import { generateApiKey } from "../../src/accounts/keys.ts";
import { resetAtOf } from "../../src/platform/plans.ts";
import {
  call,
  connect,
  errorOf,
  INITIALIZE,
  rawPost,
  restJson,
  serve,
  structured,
} from "../helpers/mcp_http.ts";

dbTest("MCP quota: exhausted gives quota_exceeded, free calls go on", async (db, t) => {
  const app = testApp(db);
  const served = serve(app);
  const opp = await loadFixture(db.sql);
  const free = await makeKey(db.sql, "free");
  await setUsed(db.sql, free.accountId, 20);
  const { client, lastHeaders, close } = await connect(served.url, { key: free.key });
  try {
    await t.step("initialize, tools/list and ping still work at the limit", async () => {
      assert.equal((await client.listTools()).tools.length, 16);
      await client.ping();
      assert.equal(await usedOf(db.sql, free.accountId), 20);
    });
    for (const [name, args] of [["get_overview", {}], ["get_opportunity", { id: opp["opp-1"] }]]) {
      await t.step(`${name} gets quota_exceeded with current, limit and reset_at`, async () => {
        const body = errorOf(
          await call(client, name as string, args as Record<string, unknown>),
        );
        assert.equal(body.error, "quota_exceeded");
        assert.equal(body.current, 20);
        assert.equal(body.limit, 20);
        assert.equal(body.reset_at, resetAtOf(new Date()));
        assert.equal(lastHeaders().get("x-quota-remaining"), "0");
        assert.equal(lastHeaders().get("x-quota-used"), "20");
      });
    }
    await t.step("the body equals REST's 429", async () => {
      const mcp = errorOf(await call(client, "get_opportunity", { id: opp["opp-1"] }));
      const rest = await restJson(app, `/api/v1/opportunities/${opp["opp-1"]}`, free.key);
      assert.deepEqual(mcp, rest);
    });
    await t.step("blog tools cost nothing and keep working", async () => {
      const list = await call(client, "list_blog_posts");
      assert.equal(structured(list).total, 2);
      const post = await call(client, "get_blog_post", { slug: "invoices" });
      assert.equal(structured(post).slug, "invoices");
    });
    await t.step("an unknown id is a 404, not a 429", async () => {
      const body = errorOf(await call(client, "get_opportunity", { id: 999999 }));
      assert.equal(body.error, "not_found");
    });
    await t.step("nothing went past the limit", async () => {
      assert.equal(await usedOf(db.sql, free.accountId), 20);
    });
  } finally {
    await close();
    await served.close();
  }
});

dbTest("MCP and REST draw on one counter per account", async (db) => {
  const app = testApp(db);
  const served = serve(app);
  const opp = await loadFixture(db.sql);
  const free = await makeKey(db.sql, "free");
  const { client, lastHeaders, close } = await connect(served.url, { key: free.key });
  try {
    assert.equal((await app.get(`/api/v1/opportunities/${opp["opp-1"]}`, free.key)).status, 200);
    assert.equal(await usedOf(db.sql, free.accountId), 1);
    // Another opportunity: the same one would be a repeat, free (issue 49).
    const result = await call(client, "get_opportunity", { id: opp["opp-2"] });
    assert.notEqual(result.isError, true);
    assert.equal(await usedOf(db.sql, free.accountId), 2);
    assert.equal(lastHeaders().get("x-quota-used"), "2");
    assert.equal(lastHeaders().get("x-quota-remaining"), "18");
    await setUsed(db.sql, free.accountId, 19);
    assert.notEqual((await call(client, "get_overview")).isError, true);
    const rest = await app.get(`/api/v1/opportunities/${opp["opp-3"]}`, free.key);
    assert.equal(rest.status, 429);
    assert.equal(await usedOf(db.sql, free.accountId), 20);
  } finally {
    await close();
    await served.close();
  }
});

dbTest("MCP keys: checked before JSON-RPC, in header, Bearer or ?api_key=", async (db, t) => {
  const app = testApp(db);
  const served = serve(app);
  const { key, keyId, accountId } = await makeKey(db.sql, "pro");

  async function jsonRpcError(res: Response, status: number, code: string) {
    assert.equal(res.status, status);
    assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    // A 401 starts OAuth discovery (RFC 9728); a 403 (a known key, switched off) does not.
    const challenge = res.headers.get("www-authenticate");
    if (status === 401) {
      const metadata = "https://oppintel.example/.well-known/oauth-protected-resource/mcp/";
      assert.ok(challenge?.startsWith("Bearer "), challenge ?? "no challenge");
      assert.ok(challenge?.includes(`resource_metadata="${metadata}"`), challenge!);
      assert.equal(/error="invalid_token"/.test(challenge!), code !== "missing_api_key");
    } else assert.equal(challenge, null);
    const body = await res.json();
    assert.equal(body.jsonrpc, "2.0");
    assert.equal(body.id, null);
    assert.equal(body.error.code, -32001);
    assert.equal(typeof body.error.message, "string");
    assert.equal(body.error.data.error, code);
    return body;
  }

  try {
    await t.step("no key: 401 missing_api_key", async () => {
      await jsonRpcError(await rawPost(served.url, INITIALIZE), 401, "missing_api_key");
    });
    await t.step("an unknown key: 401 invalid_api_key", async () => {
      const res = await rawPost(served.url, INITIALIZE, { "X-API-Key": generateApiKey() });
      await jsonRpcError(res, 401, "invalid_api_key");
    });
    await t.step("the SDK client without a key or auth provider fails to connect", async () => {
      await assert.rejects(() => connect(served.url));
    });
    await t.step("X-API-Key, Bearer and ?api_key= all connect, on /mcp and /mcp/", async () => {
      const variants = [
        connect(served.url, { key }),
        connect(served.url.replace(/\/$/, ""), { key }),
        connect(served.url, { header: { Authorization: `Bearer ${key}` } }),
        connect(`${served.url}?api_key=${key}`),
      ];
      for (const pending of variants) {
        const c = await pending;
        assert.equal((await c.client.listTools()).tools.length, 16);
        await c.close();
      }
    });
    await t.step("GET and DELETE answer 405; OPTIONS is a preflight", async () => {
      for (const method of ["GET", "DELETE"]) {
        const res = await rawPost(served.url, null, { "X-API-Key": key }, method);
        assert.equal(res.status, 405);
        const body = await res.json();
        assert.equal(body.jsonrpc, "2.0");
        assert.equal(body.error.data.error, "method_not_allowed");
      }
      const pre = await fetch(served.url, { method: "OPTIONS" });
      await pre.body?.cancel();
      assert.equal(pre.status, 204);
      assert.equal(pre.headers.get("access-control-allow-origin"), "*");
      assert.match(pre.headers.get("access-control-allow-headers") ?? "", /Mcp-Protocol-Version/);
    });
    await t.step("a revoked key: 403 key_revoked with revoked_by", async () => {
      await revokeKey(db.sql, keyId, "admin");
      const res = await rawPost(served.url, INITIALIZE, { "X-API-Key": key });
      const body = await jsonRpcError(res, 403, "key_revoked");
      assert.equal(body.error.data.revoked_by, "admin");
    });
    await t.step("none of this was charged", async () => {
      assert.equal(await usedOf(db.sql, accountId), 0);
    });
  } finally {
    await served.close();
  }
});

dbTest("MCP stateless JSON: no session id, JSON body, quota headers", async (db) => {
  const app = testApp(db);
  const served = serve(app);
  const { key } = await makeKey(db.sql, "pro");
  try {
    const res = await rawPost(served.url, INITIALIZE, { "X-API-Key": key });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/json; charset=utf-8");
    assert.equal(res.headers.get("mcp-session-id"), null);
    assert.equal(res.headers.get("x-quota-limit"), "1000");
    const body = await res.json();
    assert.equal(body.result.serverInfo.name, "oppintel");
    // A later request needs no session: tools/call straight away.
    const call = await rawPost(
      served.url,
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "list_blog_posts" } },
      { "X-API-Key": key, "Mcp-Protocol-Version": "2025-06-18" },
    );
    assert.equal(call.status, 200);
    const called = await call.json();
    assert.deepEqual(called.result.structuredContent, {
      items: [],
      total: 0,
      page: 1,
      page_size: 10,
      match: "all",
      next_cursor: null,
      remaining: 0,
    });
  } finally {
    await served.close();
  }
});
