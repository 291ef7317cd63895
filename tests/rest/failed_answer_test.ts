/** A failed answer shows the quota as it stands after its refund. */
import assert from "node:assert/strict";
import { createApp } from "../../src/app.ts";
import { createContent } from "../../src/catalog/content.ts";
import { dbTest } from "../helpers/db.ts";
import { BASE, loadFixture, makeKey, setUsed, usedOf } from "../helpers/app.ts";

dbTest("a 500 is refunded and its quota headers show the count after the refund", async (db) => {
  await loadFixture(db.sql);
  const { key, accountId } = await makeKey(db.sql, "pro");
  await setUsed(db.sql, accountId, 5);
  const real = createContent(db.sql, { publicBaseUrl: BASE });
  let fail = true;
  const content = {
    ...real,
    getOverview: (version: number) =>
      fail ? Promise.reject(new Error("the answer broke")) : real.getOverview(version),
  };
  const errors: string[] = [];
  const handler = createApp({ sql: db.sql, content, log: () => {} });
  const get = () =>
    handler(new Request(`${BASE}/api/v1/overview`, { headers: { "X-API-Key": key } }));
  const original = console.error;
  console.error = (line: string) => errors.push(line);
  let res: Response;
  try {
    res = await get();
  } finally {
    console.error = original;
  }
  assert.equal(res.status, 500);
  assert.equal((await res.json()).error, "internal_error");
  assert.equal(errors.length, 1, "the failure is logged");
  assert.equal(await usedOf(db.sql, accountId), 5, "the charge was given back");
  assert.equal(res.headers.get("x-quota-used"), "5");
  assert.equal(res.headers.get("x-quota-remaining"), "995");
  assert.match(res.headers.get("ratelimit") ?? "", /;r=995;/);

  fail = false;
  const ok = await get();
  assert.equal(ok.status, 200);
  await ok.body?.cancel();
  assert.equal(ok.headers.get("x-quota-used"), "6");
});
