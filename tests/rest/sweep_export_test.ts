/**
 * Hostile and odd parameters of GET /api/v1/opportunities/export: every format, bad and huge
 * filter values, NUL and other control characters, repeated parameters, a cursor or a page it
 * does not take, and every method. None may answer 5xx or internal_error, and an answer of 4xx
 * charges nothing; an answer of 200 is read to its end and charges its price (X-Export-Calls).
 */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { loadFixture, makeKey, setUsed, testApp, usedOf } from "../helpers/app.ts";
import { assertNoInternalError } from "./sweep_helpers.ts";
import { PLAN_LIMITS } from "../../src/platform/plans.ts";

const PATH = "/api/v1/opportunities/export";

/** Query strings, as they stand in a URL (already percent-encoded or deliberately not). */
const QUERIES: string[] = [
  "",
  "format=jsonl",
  "format=csv",
  "format=CSV",
  "format=xml",
  "format=",
  "format=csv&format=jsonl",
  "format=%00",
  "format=" + "c".repeat(10_240),
  "q=a%00b",
  "q=%ED%A0%80",
  "q=%zz",
  "q=" + "word+".repeat(2_000),
  "q=%22unclosed",
  "q=-",
  "q=-a+-b",
  "q=a+OR+OR+b",
  "q=%20%20&sort=relevance",
  "q=invoice&sort=relevance&format=csv",
  "q=zebra+quokka&format=csv",
  "sort=relevance",
  "sort=bogus",
  "sort=newest&sort=score",
  "min_score=-1",
  "min_score=101",
  "min_score=1e308",
  "min_score=99999999999999999999",
  "min_score=0x10",
  "min_score=NaN",
  "min_score=%00",
  "min_pain_point_intensity=11",
  "max_tech_difficulty=-0",
  "recommendation=build",
  "recommendation=%00",
  "platform=%00",
  "platform=" + "p".repeat(10_240),
  "channel=a%0Ab",
  "channel=%E2%80%AEtxt.exe",
  "category=..%2F..%2Fetc",
  "category=%00",
  "online_only=maybe",
  "online_only=",
  "page=2",
  "page_size=1000000",
  "cursor=abc",
  "cursor=%00",
  "unknown=1",
  "api_key=",
];

const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"];

dbTest("every export parameter and method: no 5xx, nothing charged on 4xx", async (db, t) => {
  const app = testApp(db);
  await loadFixture(db.sql);
  const business = await makeKey(db.sql, "business");
  const pro = await makeKey(db.sql, "pro");

  await t.step("every query and method, Business", async () => {
    for (const method of METHODS) {
      for (const query of QUERIES) {
        const url = `${PATH}?${query}`;
        const before = await usedOf(db.sql, business.accountId);
        const res = await app.get(url, business.key, { method });
        const calls = Number(res.headers.get("x-export-calls") ?? 0);
        const label = `${method} ${url.slice(0, 80)}: ${res.status}`;
        await assertNoInternalError(res, label);
        assert.ok(res.status < 500, label);
        const after = await usedOf(db.sql, business.accountId);
        if (res.status >= 400) assert.equal(after, before, `${label} charged nothing`);
        else if (method === "HEAD") assert.equal(after, before, `${label} charged nothing`);
        else assert.equal(after, before + calls, `${label} charged its price`);
        if (method !== "GET" && method !== "HEAD") assert.equal(res.status, 405, label);
      }
    }
  });

  await t.step("a plan or a quota that refuses: nothing charged either way", async () => {
    await setUsed(db.sql, business.accountId, PLAN_LIMITS.business);
    for (const [key, accountId] of [[pro.key, pro.accountId], [business.key, business.accountId]]) {
      for (const query of ["", "format=csv", "q=invoice", "min_score=101"]) {
        for (const method of ["GET", "HEAD"]) {
          const before = await usedOf(db.sql, accountId as number);
          const res = await app.get(`${PATH}?${query}`, key as string, { method });
          const label = `${method} ${query}: ${res.status}`;
          await assertNoInternalError(res, label);
          assert.ok([403, 422, 429].includes(res.status), label);
          assert.equal(await usedOf(db.sql, accountId as number), before, label);
        }
      }
    }
  });
});
