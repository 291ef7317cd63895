/** The MCP watch tools: create_watch, list_watches, delete_watch, free and not read-only. */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { BASE, makeKey, testApp, usedOf } from "../helpers/app.ts";

async function call(app: ReturnType<typeof testApp>, key: string, name: string, args: unknown) {
  const res = await app.handler(
    new Request(`${BASE}/mcp`, {
      method: "POST",
      headers: {
        "X-API-Key": key,
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        "Mcp-Protocol-Version": "2025-06-18",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name, arguments: args },
      }),
    }),
  );
  assert.equal(res.status, 200);
  return (await res.json()).result;
}

dbTest(
  "MCP create_watch, list_watches and delete_watch manage the caller's watches",
  async (db) => {
    const app = testApp(db);
    const { key, accountId } = await makeKey(db.sql, "free");
    const created = await call(app, key, "create_watch", {
      name: "From a model",
      query: { q: "invoice", min_score: 50 },
      deliveries: { feed: true },
    });
    assert.equal(created.isError, undefined);
    assert.equal(created.structuredContent.name, "From a model");
    assert.match(created.structuredContent.feed_url, /feeds\/watch\?token=oi_feed_/);

    const refused = await call(app, key, "create_watch", {
      name: "Second",
      deliveries: { webhook: { url: "https://example.com/hook" } },
    });
    assert.equal(refused.isError, true);
    assert.equal(refused.structuredContent.error, "plan_required");
    const invalid = await call(app, key, "create_watch", {
      name: "Bad",
      query: { min_score: 500 },
      deliveries: { feed: true },
    });
    assert.equal(invalid.structuredContent.error, "invalid_parameter");
    assert.equal(invalid.structuredContent.details[0].param, "query.min_score");

    const listed = await call(app, key, "list_watches", {});
    assert.deepEqual(listed.structuredContent.items.map((w: { id: number }) => w.id), [
      created.structuredContent.id,
    ]);
    const deleted = await call(app, key, "delete_watch", { id: created.structuredContent.id });
    assert.deepEqual(deleted.structuredContent, {
      deleted: true,
      id: created.structuredContent.id,
    });
    const again = await call(app, key, "delete_watch", { id: created.structuredContent.id });
    assert.equal(again.structuredContent.error, "not_found");
    assert.equal(await usedOf(db.sql, accountId), 0, "watch tools cost nothing");
  },
);
