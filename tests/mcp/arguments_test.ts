/** Tool arguments follow the REST parsing rules where DECISIONS.md says "as REST". */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { callTool, loadFixture, makeKey, testApp } from "../helpers/app.ts";

dbTest("query_opportunities takes recommendation in any case, like REST", async (db) => {
  const app = testApp(db);
  await loadFixture(db.sql);
  const { key } = await makeKey(db.sql, "pro");
  const call = (args: Record<string, unknown>) => callTool(app, key, "query_opportunities", args);
  const lower = await call({ recommendation: "validate", detail: "full", page_size: 20 });
  assert.equal(lower.isError, undefined, JSON.stringify(lower.structuredContent));
  const rest = await (await app.get("/api/v1/opportunities?recommendation=VALIDATE", key)).json();
  assert.deepEqual(lower.structuredContent, rest);
  assert.ok(rest.items.length > 0);
  const bad = await call({ recommendation: "maybe" });
  assert.equal(bad.isError, true);
  assert.equal(bad.structuredContent.error, "invalid_parameter");
});

dbTest("MCP answers 405 with an Allow header for GET", async (db) => {
  const app = testApp(db);
  const { key } = await makeKey(db.sql, "pro");
  const res = await app.get("/mcp/", key);
  assert.equal(res.status, 405);
  assert.equal(res.headers.get("allow"), "POST");
  assert.equal((await res.json()).error.data.error, "method_not_allowed");
});
