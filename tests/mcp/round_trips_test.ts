/**
 * MCP messages that read no data and cost nothing (initialize, tools/list, ping, notifications)
 * are answered without a database round trip for a key seen in the last seconds; a tool call
 * checks its key, plan and quota in one statement every time.
 */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { makeKey, revokeKey } from "../helpers/app.ts";
import { createMcpHandler } from "../../src/mcp/server.ts";
import type { Sql } from "../../src/db/open.ts";
import { KeyRevokedError } from "../../src/platform/errors.ts";

/** `sql` counting the statements started through it (fragments included). */
function counting(sql: Sql): { sql: Sql; count(): number } {
  let n = 0;
  const proxy = new Proxy(sql, {
    apply(target, self, args) {
      if (Array.isArray(args[0]) && "raw" in args[0]) n++;
      return Reflect.apply(target, self, args);
    },
  });
  return { sql: proxy, count: () => n };
}

function post(key: string, message: Record<string, unknown>): Request {
  return new Request("http://oppintel.test/mcp/", {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "X-API-Key": key,
      "Mcp-Protocol-Version": "2025-11-25",
    },
    body: JSON.stringify({ jsonrpc: "2.0", ...message }),
  });
}

const INITIALIZE = {
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "round-trips", version: "0" },
  },
};

dbTest(
  "MCP protocol messages of a recently seen key cost no database round trip",
  async (db, t) => {
    const counted = counting(db.sql);
    const handler = createMcpHandler({
      sql: counted.sql,
      context: { publicBaseUrl: "https://oppintel.example" },
    });
    const { key, keyId } = await makeKey(db.sql, "pro");

    await t.step("the first message of a key looks it up", async () => {
      const { response } = await handler(post(key, INITIALIZE), key);
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("x-quota-limit"), "1000");
      await response.body?.cancel();
      assert.ok(counted.count() > 0);
    });
    await t.step("initialize, notifications, tools/list and ping after it: none", async () => {
      const before = counted.count();
      for (
        const message of [
          INITIALIZE,
          { method: "notifications/initialized" },
          { id: 2, method: "tools/list" },
          { id: 3, method: "ping" },
        ]
      ) {
        const { response } = await handler(post(key, message), key);
        assert.ok(response.status === 200 || response.status === 202, String(response.status));
        assert.equal(response.headers.get("x-quota-used"), "0");
        await response.body?.cancel();
      }
      assert.equal(counted.count(), before);
    });
    await t.step("a tool call is admitted in the database every time", async () => {
      const before = counted.count();
      const { response } = await handler(
        post(key, { id: 4, method: "tools/call", params: { name: "list_blog_posts" } }),
        key,
      );
      assert.equal(response.status, 200);
      await response.body?.cancel();
      assert.ok(counted.count() > before);
    });
    await t.step("a revoke in this process is seen at once", async () => {
      await revokeKey(db.sql, keyId);
      await assert.rejects(
        () => handler(post(key, { id: 5, method: "tools/list" }), key),
        KeyRevokedError,
      );
    });
  },
);
