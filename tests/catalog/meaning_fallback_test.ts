/**
 * A sentence encoder that cannot load (src/catalog/meaning/encoder.ts): questions are still
 * answered 200, by their words, `read_as.by_meaning` says so, stop words are named as ignored,
 * and /healthz reports the failure. In a file of its own: the encoder is one per process.
 */
import assert from "node:assert/strict";
import { startEncoder } from "../../src/catalog/meaning/encoder.ts";
import { dbTest } from "../helpers/db.ts";
import { loadFixture, makeKey, testApp } from "../helpers/app.ts";

dbTest("a model that fails to load leaves answers lexical and 200", async (db) => {
  const failed = await startEncoder({ load: () => Promise.reject(new Error("no weights here")) });
  assert.equal(failed, undefined);
  await loadFixture(db.sql);
  const app = testApp(db);
  const { key } = await makeKey(db.sql, "pro");
  const response = await app.get("/api/v1/opportunities?q=chasing+the+invoices", key);
  assert.equal(response.status, 200);
  const body = await response.json();
  assert.ok(body.items.length > 0);
  assert.equal(body.read_as.by_meaning, false);
  assert.deepEqual(body.read_as.meant_themes, []);
  assert.deepEqual(body.ignored_terms, ["the"]);
  const health = await app.get("/healthz");
  assert.equal(health.status, 200);
  assert.deepEqual((await health.json()).encoder, { state: "failed", error: "no weights here" });
});
