/** A key pasted anywhere into a URL never reaches the log. */
import assert from "node:assert/strict";
import { redactedPath, redactKeys } from "../../src/platform/request_log.ts";
import { generateApiKey } from "../../src/accounts/keys.ts";
import { dbTest } from "../helpers/db.ts";
import { makeKey, testApp } from "../helpers/app.ts";

Deno.test("redactedPath redacts key shapes in the path and in any parameter", async (t) => {
  const key = generateApiKey();
  const encoded = key.replaceAll("_", "%5F");
  const cases: [string, string, string][] = [
    ["in a path segment", `/api/v1/blog/${key}`, "/api/v1/blog/[redacted]"],
    ["in the middle of a path", `/x/${key}/y`, "/x/[redacted]/y"],
    ["percent-encoded", `/api/v1/blog/${encoded}`, "/api/v1/blog/[redacted]"],
    ["lowercase", `/api/v1/blog/${key.toLowerCase()}`, "/api/v1/blog/[redacted]"],
    [
      "in another parameter",
      `/api/v1/opportunities?q=${key}&page=2`,
      "/api/v1/opportunities?q=[redacted]&page=2",
    ],
    ["truncated", `/api/v1/blog/${key.slice(0, 20)}`, "/api/v1/blog/[redacted]"],
    ["api_key as before", `/api/v1/overview?api_key=${key}`, "/api/v1/overview?api_key=[redacted]"],
    ["nothing shaped like a key", "/api/v1/blog/oi-live-notes", "/api/v1/blog/oi-live-notes"],
  ];
  for (const [name, path, expected] of cases) {
    await t.step(name, () => {
      assert.equal(redactedPath(new URL(`http://x${path}`)), expected);
    });
  }
  assert.equal(redactKeys(`key ${key}.`), "key [redacted].");
});

dbTest("a key pasted into the path of a request is not in its log line", async (db) => {
  const app = testApp(db);
  const { key } = await makeKey(db.sql, "pro");
  const res = await app.get(`/api/v1/blog/${key}`, key);
  await res.body?.cancel();
  const other = await app.get(`/api/v1/opportunities/${key}`, key);
  await other.body?.cancel();
  const text = JSON.stringify(app.logs);
  assert.equal(app.logs.length, 2);
  assert.ok(!text.includes(key.slice(8)), text);
  assert.equal(app.logs[0].path, "/api/v1/blog/[redacted]");
  assert.equal(app.logs[1].path, "/api/v1/opportunities/[redacted]");
});
