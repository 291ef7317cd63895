/** Keys, tiers and the monthly quota on REST (DECISIONS.md sections 1-3). */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { loadFixture, makeKey, revokeKey, setUsed, testApp, usedOf } from "../helpers/app.ts";
import { generateApiKey } from "../../src/accounts/keys.ts";
import { resetAtOf } from "../../src/platform/plans.ts";

async function body(res: Response): Promise<Record<string, unknown>> {
  assert.equal(res.headers.get("content-type"), "application/json; charset=utf-8");
  return await res.json();
}

dbTest("REST keys: 401 and 403 exactly as DECISIONS.md section 3", async (db, t) => {
  const app = testApp(db);
  const ids = await loadFixture(db.sql);
  const { key, keyId } = await makeKey(db.sql, "pro");
  const path = `/api/v1/opportunities/${ids["opp-1"]}`;

  await t.step("no key at all answers 401 missing_api_key", async () => {
    const res = await app.get(path);
    assert.equal(res.status, 401);
    const b = await body(res);
    assert.equal(b.error, "missing_api_key");
    assert.equal(typeof b.message, "string");
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
  });
  await t.step("an unknown well-formed key answers 401 invalid_api_key", async () => {
    const res = await app.get(path, generateApiKey());
    assert.equal(res.status, 401);
    assert.equal((await body(res)).error, "invalid_api_key");
  });
  await t.step(
    "a malformed key or one with a bad checksum answers 401 invalid_api_key",
    async () => {
      for (const bad of ["nope", key.slice(0, -1) + (key.endsWith("A") ? "B" : "A")]) {
        const res = await app.get(path, bad);
        assert.equal(res.status, 401);
        assert.equal((await body(res)).error, "invalid_api_key");
      }
    },
  );
  await t.step("the key works in X-API-Key, ?api_key= and Authorization: Bearer", async () => {
    assert.equal((await app.get(path, key)).status, 200);
    assert.equal((await app.get(`${path}?api_key=${key}`)).status, 200);
    const bearer = await app.get(path, undefined, { headers: { Authorization: `Bearer ${key}` } });
    assert.equal(bearer.status, 200);
  });
  await t.step("the header wins over the query parameter", async () => {
    assert.equal((await app.get(`${path}?api_key=${generateApiKey()}`, key)).status, 200);
    assert.equal((await app.get(`${path}?api_key=${key}`, generateApiKey())).status, 401);
  });
  await t.step("a revoked key answers 403 key_revoked with revoked_by", async () => {
    await revokeKey(db.sql, keyId, "owner");
    const res = await app.get(path, key);
    assert.equal(res.status, 403);
    const b = await body(res);
    assert.equal(b.error, "key_revoked");
    assert.equal(b.revoked_by, "owner");
    const admin = await makeKey(db.sql, "pro");
    await revokeKey(db.sql, admin.keyId, "admin");
    assert.equal((await body(await app.get(path, admin.key))).revoked_by, "admin");
  });
});

dbTest(
  "REST tiers: Free keys get 403 plan_required on Pro operations, uncharged",
  async (db, t) => {
    const app = testApp(db);
    const ids = await loadFixture(db.sql);
    const free = await makeKey(db.sql, "free");
    const themeId = (await db.sql`select id from themes where slug = 'flaky-ci'`)[0].id;

    for (
      const path of [
        "/api/v1/opportunities",
        "/api/v1/themes/trending",
        `/api/v1/themes/${themeId}`,
      ]
    ) {
      await t.step(`${path} with a Free key`, async () => {
        const res = await app.get(path, free.key);
        assert.equal(res.status, 403);
        const b = await body(res);
        assert.equal(b.error, "plan_required");
        assert.equal(b.required_plan, "pro");
        assert.equal(b.current_plan, "free");
        assert.equal(await usedOf(db.sql, free.accountId), 0);
      });
    }
    await t.step("parameters are checked before the plan (422 first)", async () => {
      const res = await app.get("/api/v1/opportunities?min_score=101", free.key);
      assert.equal(res.status, 422);
    });
    await t.step("Free operations work for a Free key and cost what section 1 says", async () => {
      const cases: [string, number][] = [
        [`/api/v1/opportunities/${ids["opp-1"]}`, 1],
        ["/api/v1/overview", 1],
        ["/api/v1/blog", 0],
        ["/api/v1/blog/ci-analysis", 0],
        ["/api/v1/categories", 0],
      ];
      for (const [path, cost] of cases) {
        const before = await usedOf(db.sql, free.accountId);
        const res = await app.get(path, free.key);
        assert.equal(res.status, 200, path);
        await res.body?.cancel();
        assert.equal(await usedOf(db.sql, free.accountId), before + cost, path);
      }
    });
    await t.step("Pro and Business keys may list, each call costs 1", async () => {
      for (const plan of ["pro", "business"] as const) {
        const k = await makeKey(db.sql, plan);
        const res = await app.get("/api/v1/opportunities", k.key);
        assert.equal(res.status, 200);
        assert.equal(await usedOf(db.sql, k.accountId), 1);
        assert.equal(res.headers.get("x-quota-limit"), plan === "pro" ? "1000" : "5000");
      }
    });
    await t.step("a plan change takes effect on the next call", async () => {
      await db.sql`update accounts set plan = 'pro' where id = ${free.accountId}`;
      assert.equal((await app.get("/api/v1/opportunities", free.key)).status, 200);
    });
  },
);

dbTest("REST quota: 429 body, headers, and what is never charged", async (db, t) => {
  const app = testApp(db);
  const ids = await loadFixture(db.sql);
  const k = await makeKey(db.sql, "free");
  const detail = `/api/v1/opportunities/${ids["opp-1"]}`;
  const other = `/api/v1/opportunities/${ids["opp-2"]}`;

  await t.step("X-Quota-* headers report the state after this call's charge", async () => {
    const res = await app.get(detail, k.key);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("x-quota-limit"), "20");
    assert.equal(res.headers.get("x-quota-used"), "1");
    assert.equal(res.headers.get("x-quota-remaining"), "19");
    assert.equal(res.headers.get("x-quota-reset"), resetAtOf(new Date()));
    assert.match(res.headers.get("access-control-expose-headers") ?? "", /X-Quota-Remaining/);
  });
  await t.step("404, 422 and 401 are not charged", async () => {
    const before = await usedOf(db.sql, k.accountId);
    assert.equal((await app.get("/api/v1/opportunities/999999", k.key)).status, 404);
    assert.equal((await app.get("/api/v1/opportunities/abc", k.key)).status, 422);
    assert.equal((await app.get("/api/v1/blog/no-such-post", k.key)).status, 404);
    assert.equal(await usedOf(db.sql, k.accountId), before);
  });
  await t.step("at the limit a charged call gets exactly the 429 body", async () => {
    await setUsed(db.sql, k.accountId, 20);
    // Another opportunity: the same detail again would be a repeat, free (issue 49).
    const res = await app.get(other, k.key);
    assert.equal(res.status, 429);
    const b = await body(res);
    assert.deepEqual(Object.keys(b).sort(), [
      "current",
      "error",
      "limit",
      "message",
      "request_id",
      "reset_at",
      "upgrade_url",
    ]);
    assert.equal(b.error, "quota_exceeded");
    assert.equal(b.current, 20);
    assert.equal(b.limit, 20);
    assert.equal(b.reset_at, resetAtOf(new Date()));
    assert.match(String(b.reset_at), /^\d{4}-\d{2}-01T00:00:00(Z|\+00:00)$/);
    assert.equal(res.headers.get("x-quota-remaining"), "0");
    assert.equal(await usedOf(db.sql, k.accountId), 20, "a refused call is not charged");
  });
  await t.step("free operations keep working when the quota is used up", async () => {
    assert.equal((await app.get("/api/v1/blog", k.key)).status, 200);
    assert.equal((await app.get("/api/v1/blog/ci-analysis", k.key)).status, 200);
    assert.equal((await app.get("/api/v1/categories", k.key)).status, 200);
    assert.equal(await usedOf(db.sql, k.accountId), 20);
  });
  await t.step("the quota belongs to the account: all its keys share one counter", async () => {
    const { createApiKey } = await import("../../src/accounts/api_keys.ts");
    const second = await createApiKey(db.sql, { email: k.email, name: "second" });
    assert.equal((await app.get(other, second.key)).status, 429);
  });
});

dbTest(
  "REST quota: with R calls remaining, exactly R of many concurrent calls succeed",
  async (db) => {
    const app = testApp(db);
    await loadFixture(db.sql);
    const k = await makeKey(db.sql, "pro");
    const remaining = 7;
    await setUsed(db.sql, k.accountId, 1000 - remaining);
    const responses = await Promise.all(
      // 40 different calls: the same call again would be a repeat, free (issue 49).
      Array.from(
        { length: 40 },
        (_, i) => app.get(`/api/v1/opportunities?page_size=${i + 1}`, k.key),
      ),
    );
    const statuses = responses.map((r) => r.status);
    await Promise.all(responses.map((r) => r.body?.cancel()));
    assert.equal(statuses.filter((s) => s === 200).length, remaining);
    assert.equal(statuses.filter((s) => s === 429).length, 40 - remaining);
    assert.equal(await usedOf(db.sql, k.accountId), 1000);
  },
  { max: 10 },
);

dbTest("REST logs: one line per request, api_key redacted, never a raw key", async (db) => {
  const app = testApp(db);
  const ids = await loadFixture(db.sql);
  const k = await makeKey(db.sql, "pro");
  await app.get(`/api/v1/opportunities/${ids["opp-1"]}?api_key=${k.key}`);
  await app.get(`/api/v1/opportunities?api_key=${k.key}&page=1`);
  await app.get("/api/v1/opportunities", k.key);
  await app.get("/api/v1/opportunities", undefined, {
    headers: { Authorization: `Bearer ${k.key}` },
  });
  await app.get("/api/v1/nowhere?api_key=" + k.key);
  await app.get(`/api/v1/opportunities?api%5Fkey=${k.key}`);
  await app.get("/account/link?token=secret-sign-in-token&x=1");
  assert.equal(app.logs.length, 7);
  assert.equal(app.logs[5].status, 200, "an encoded name still carries the key");
  assert.equal(app.logs[5].path, "/api/v1/opportunities?api%5Fkey=[redacted]");
  assert.equal(app.logs[6].path, "/account/link?token=[redacted]&x=1");
  assert.ok(!JSON.stringify(app.logs).includes("secret-sign-in-token"));
  const text = JSON.stringify(app.logs);
  assert.ok(!text.includes(k.key), "no raw key in any log line");
  assert.ok(!text.includes(k.key.slice(12)), "not even the secret part");
  assert.equal(app.logs[0].path, `/api/v1/opportunities/${ids["opp-1"]}?api_key=[redacted]`);
  assert.equal(app.logs[1].path, "/api/v1/opportunities?api_key=[redacted]&page=1");
  assert.equal(app.logs[0].route, "/api/v1/opportunities/:id");
  assert.equal(app.logs[0].plan, "pro");
  assert.equal(app.logs[0].quota, "charged");
  assert.equal(app.logs[4].route, null, "an unknown path has no route");
  for (const entry of app.logs.slice(0, 4)) {
    assert.equal(entry.status, 200);
    assert.equal(entry.key_prefix, k.key.slice(0, 12));
    assert.equal(entry.account_id, k.accountId);
    assert.equal(typeof entry.ms, "number");
    assert.equal(entry.method, "GET");
  }
});
