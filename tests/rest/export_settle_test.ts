/**
 * What an export pays (src/rest/export.ts): its price is reserved in one statement when it
 * starts and settled when its stream ends, at 1 call per started 1,000 rows sent. A HEAD
 * answers the headers and charges nothing; a client that disconnects pays only for the started
 * thousands it was sent; concurrent exports never overshoot the month's limit and never refuse a
 * caller whose remaining quota covers its export.
 */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { makeKey, setUsed, testApp, usedOf } from "../helpers/app.ts";
import { PLAN_LIMITS } from "../../src/platform/plans.ts";

const EXPORT = "/api/v1/opportunities/export?online_only=false";

dbTest("an export pays for the rows it sends", async (db, t) => {
  const app = testApp(db);
  const { key, accountId } = await makeKey(db.sql, "business");

  await t.step("HEAD: the headers and the price, nothing charged", async () => {
    await setUsed(db.sql, accountId, 7);
    for (const format of ["jsonl", "csv"]) {
      const res = await app.get(`${EXPORT}&format=${format}`, key, { method: "HEAD" });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("x-total-count"), "1100");
      assert.equal(res.headers.get("x-export-calls"), "2");
      assert.equal(res.headers.get("x-quota-used"), "7", "as it stands: nothing charged");
      assert.equal(res.headers.get("x-quota-remaining"), String(PLAN_LIMITS.business - 7));
      assert.equal(await res.text(), "");
      assert.equal(await usedOf(db.sql, accountId), 7);
    }
    const log = app.logs.at(-1)!;
    assert.equal(log.method, "HEAD");
    assert.equal(log.quota, "free");
  });

  await t.step("HEAD of an export the quota cannot pay: 429, nothing charged", async () => {
    await setUsed(db.sql, accountId, PLAN_LIMITS.business - 1);
    const res = await app.get(EXPORT, key, { method: "HEAD" });
    assert.equal(res.status, 429);
    assert.equal(await usedOf(db.sql, accountId), PLAN_LIMITS.business - 1);
  });

  await t.step("a disconnect after the first chunk pays 1 of 2 calls", async () => {
    await setUsed(db.sql, accountId, 0);
    const res = await app.get(EXPORT, key);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("x-export-calls"), "2");
    assert.equal(await usedOf(db.sql, accountId), 2, "the price is reserved");
    const reader = res.body!.getReader();
    const { value } = await reader.read();
    const lines = new TextDecoder().decode(value).trimEnd().split("\n");
    assert.equal(lines.length, 1000, "the first chunk");
    await reader.cancel();
    assert.equal(await usedOf(db.sql, accountId), 1, "the started thousands sent");
  });

  await t.step("a disconnect before any row pays nothing", async () => {
    await setUsed(db.sql, accountId, 0);
    const res = await app.get(EXPORT, key);
    assert.equal(res.status, 200);
    await res.body!.cancel();
    assert.equal(await usedOf(db.sql, accountId), 0);
  });

  await t.step("read to the end: the full price", async () => {
    await setUsed(db.sql, accountId, 0);
    const res = await app.get(`${EXPORT}&format=csv`, key);
    const text = await res.text();
    assert.equal(text.trimEnd().split("\r\n").length, 1101);
    assert.equal(await usedOf(db.sql, accountId), 2);
  });

  await t.step("30 concurrent two-call exports with 10 calls left: exactly 5 pass", async () => {
    await setUsed(db.sql, accountId, PLAN_LIMITS.business - 10);
    const answers = await Promise.all(
      Array.from({ length: 30 }, () => app.get(EXPORT, key)),
    );
    const passed = answers.filter((r) => r.status === 200);
    const refused = answers.filter((r) => r.status === 429);
    assert.equal(passed.length, 5, answers.map((r) => r.status).join(","));
    assert.equal(refused.length, 25);
    for (const res of refused) assert.equal((await res.json()).error, "quota_exceeded");
    const bodies = await Promise.all(passed.map((r) => r.text()));
    for (const body of bodies) assert.equal(body.trimEnd().split("\n").length, 1100);
    assert.equal(await usedOf(db.sql, accountId), PLAN_LIMITS.business);
  });
}, { seed: { opportunities: 1100 } });
