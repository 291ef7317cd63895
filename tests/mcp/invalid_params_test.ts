/** tools/call with mistyped params answers -32602 Invalid params in words. */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { makeKey, mcpPost, testApp } from "../helpers/app.ts";

dbTest("tools/call with mistyped params answers -32602 with a readable message", async (db, t) => {
  const app = testApp(db);
  const { key } = await makeKey(db.sql, "pro");
  const call = async (params: unknown, extra: Record<string, string> = {}) => {
    const res = await mcpPost(app, key, { id: 7, method: "tools/call", params }, extra);
    return { status: res.status, body: await res.json() };
  };
  const cases: [string, unknown, RegExp][] = [
    ["name is a number", { name: 123 }, /^Invalid params: "name" must be a string$/],
    ["name is missing", { arguments: {} }, /^Invalid params: "name" is required$/],
    [
      "arguments is an array",
      { name: "get_overview", arguments: [1] },
      /^Invalid params: "arguments" must be an object$/,
    ],
  ];
  for (const [name, params, message] of cases) {
    await t.step(name, async () => {
      const { status, body } = await call(params);
      assert.equal(status, 200);
      assert.equal(body.id, 7);
      assert.equal(body.error?.code, -32602, JSON.stringify(body));
      assert.match(body.error.message, message);
      assert.doesNotMatch(JSON.stringify(body), /invalid_type|"expected"|"path"/);
    });
  }
  await t.step("params that are not an object are an invalid JSON-RPC request", async () => {
    // The transport refuses the message before any handler sees it.
    const { status, body } = await call("get_overview");
    assert.equal(status, 400);
    assert.notEqual(body.error?.code, -32603);
    assert.equal(typeof body.error?.message, "string");
  });
  await t.step("the 2026-07-28 revision gets the same words", async () => {
    const meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": { name: "raw", version: "0" },
      "io.modelcontextprotocol/clientCapabilities": {},
    };
    const { body } = await call({ name: 123, arguments: {}, _meta: meta }, {
      "MCP-Protocol-Version": "2026-07-28",
      "Mcp-Method": "tools/call",
      "Mcp-Name": "123",
    });
    assert.equal(body.error?.code, -32602, JSON.stringify(body));
    assert.equal(body.error.message, 'Invalid params: "name" must be a string');
  });
});
