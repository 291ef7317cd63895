/** Usage records, GET /api/v1/usage and the MCP tool get_usage. */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { loadFixture, makeKey, setUsed, type TestApp, testApp, usedOf } from "../helpers/app.ts";
import { createApiKey } from "../../src/accounts/api_keys.ts";
import { admit, OPERATIONS, refund } from "../../src/metering/admission.ts";
import { readUsageReport } from "../../src/metering/usage_report.ts";

/** One MCP tools/call over the service's handler, without a session (the endpoint is stateless). */
async function mcpCall(
  app: TestApp,
  key: string,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ status: number; result: Record<string, unknown>; headers: Headers }> {
  const res = await app.handler(
    new Request("http://oppintel.test/mcp/", {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        "X-API-Key": key,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name, arguments: args },
      }),
    }),
  );
  const body = await res.json();
  return { status: res.status, result: body.result, headers: res.headers };
}

type Report = {
  used: number;
  limit: number;
  remaining: number;
  reset_at: string;
  month: string;
  by_key: { prefix: string; name: string; calls: number; revoked: boolean }[];
  by_day: { date: string; calls: number }[];
  by_surface: { rest: number; mcp: number };
};

async function usage(app: TestApp, key: string, query = ""): Promise<Report> {
  const res = await app.get(`/api/v1/usage${query}`, key);
  assert.equal(res.status, 200, await res.clone().text());
  return await res.json();
}

dbTest(
  "usage records: concurrent calls of two keys on both surfaces add up to used",
  async (db, t) => {
    const app = testApp(db);
    await loadFixture(db.sql);
    const first = await makeKey(db.sql, "pro");
    const second = await createApiKey(db.sql, { email: first.email, name: "agent" });
    const calls: Promise<unknown>[] = [];
    // Each call another (page_size): the same call again would be a repeat, free (issue 49).
    const list = (size: number) => `/api/v1/opportunities?page_size=${size}`;
    for (let i = 1; i <= 12; i++) calls.push(app.get(list(i), first.key));
    for (let i = 21; i <= 27; i++) calls.push(app.get(list(i), second.key));
    for (let i = 31; i <= 35; i++) {
      calls.push(mcpCall(app, second.key, "query_opportunities", { page_size: i }));
    }
    for (let i = 41; i <= 44; i++) {
      calls.push(mcpCall(app, first.key, "query_opportunities", { page_size: i }));
    }
    // Free calls are not counted anywhere.
    for (let i = 0; i < 3; i++) calls.push(app.get("/api/v1/blog", first.key));
    await Promise.all(calls);
    const report = await usage(app, first.key);

    await t.step("used is every charged call, and by_key sums to it", () => {
      assert.equal(report.used, 28);
      assert.equal(report.used, report.by_key.reduce((n, k) => n + k.calls, 0));
      assert.deepEqual(report.by_key.map((k) => [k.name, k.calls]), [["test", 16], ["agent", 12]]);
      assert.equal(report.by_key[0].prefix, first.key.slice(0, 12));
    });
    await t.step("by_surface splits REST from MCP, by_day puts them on today", () => {
      assert.deepEqual(report.by_surface, { rest: 19, mcp: 9 });
      const today = new Date().toISOString().slice(0, 10);
      assert.equal(report.by_day.at(-1)?.date, today);
      assert.equal(report.by_day.at(-1)?.calls, 28);
      assert.equal(report.by_day[0].date, today.slice(0, 8) + "01");
      assert.equal(report.by_day.reduce((n, d) => n + d.calls, 0), 28);
    });
    await t.step("the counter agrees with the records", async () => {
      assert.equal(await usedOf(db.sql, first.accountId), 28);
    });
    await t.step("MCP get_usage answers the same, free of charge", async () => {
      const { result, headers } = await mcpCall(app, second.key, "get_usage");
      assert.equal(result.isError, undefined);
      assert.deepEqual(result.structuredContent, await usage(app, first.key));
      assert.equal(headers.get("x-quota-used"), "28");
      assert.equal(await usedOf(db.sql, first.accountId), 28);
    });
  },
);

dbTest("GET /api/v1/usage is never charged and answers at quota exhaustion", async (db, t) => {
  const app = testApp(db);
  await loadFixture(db.sql);
  const { key, accountId } = await makeKey(db.sql, "free");
  await setUsed(db.sql, accountId, 20);

  await t.step("a charged call is refused with 429", async () => {
    assert.equal((await app.get("/api/v1/overview", key)).status, 429);
  });
  await t.step("/usage answers 200 with the quota used up, and charges nothing", async () => {
    for (let i = 0; i < 3; i++) {
      const res = await app.get("/api/v1/usage", key);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("x-quota-remaining"), "0");
      const body = await res.json();
      assert.equal(body.used, 20);
      assert.equal(body.remaining, 0);
      assert.equal(body.limit, 20);
    }
    assert.equal(await usedOf(db.sql, accountId), 20);
  });
  await t.step("MCP get_usage answers too", async () => {
    const { result } = await mcpCall(app, key, "get_usage");
    assert.equal(result.isError, undefined);
    assert.equal((result.structuredContent as Report).used, 20);
  });
  await t.step("a bad month is 422 invalid_parameter, on REST and MCP", async () => {
    const now = new Date();
    const future = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
    const tooOld = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 13, 1));
    for (const month of ["2026-13", "26-01", "abc", ym(future), ym(tooOld)]) {
      const res = await app.get(`/api/v1/usage?month=${month}`, key);
      assert.equal(res.status, 422, month);
      const body = await res.json();
      assert.equal(body.error, "invalid_parameter");
      assert.equal(body.details[0].param, "month");
      const mcp = await mcpCall(app, key, "get_usage", { month });
      assert.equal(mcp.result.isError, true);
      assert.equal((mcp.result.structuredContent as { error: string }).error, "invalid_parameter");
    }
    const oldest = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 12, 1));
    assert.equal((await usage(app, key, `?month=${ym(oldest)}`)).used, 0);
  });
  await t.step("a missing key is still 401", async () => {
    assert.equal((await app.get("/api/v1/usage")).status, 401);
  });
});

function ym(d: Date): string {
  return d.toISOString().slice(0, 7);
}

dbTest(
  "usage records: the month boundary in UTC, and refunds take the record back",
  async (db, t) => {
    const { key, keyId, accountId } = await makeKey(db.sql, "pro");
    const lastSecond = new Date("2026-10-31T23:59:59.500Z");
    const firstSecond = new Date("2026-11-01T00:00:00.000Z");
    const account = { id: accountId, plan: "pro" as const };
    for (const at of [lastSecond, lastSecond, firstSecond]) {
      const { charged } = await admit(db.sql, key, OPERATIONS.getOverview, undefined, at);
      assert.equal(charged, true);
    }
    const now = new Date("2026-11-15T12:00:00Z");

    await t.step("calls on each side of midnight land in their own month and day", async () => {
      const october = await readUsageReport(db.sql, account, { month: "2026-10", now });
      assert.equal(october.used, 2);
      assert.equal(october.by_day.length, 31);
      assert.deepEqual(october.by_day.at(-1), { date: "2026-10-31", calls: 2 });
      assert.equal(october.reset_at, "2026-11-01T00:00:00Z");
      const november = await readUsageReport(db.sql, account, { now });
      assert.equal(november.month, "2026-11");
      assert.equal(november.used, 1);
      assert.deepEqual(november.by_day[0], { date: "2026-11-01", calls: 1 });
      assert.equal(november.by_day.length, 15);
      assert.equal(november.by_key[0].calls, 1);
    });
    await t.step(
      "a refund gives back the unit in the month and on the day of the charge",
      async () => {
        const caller = { keyId, accountId } as Parameters<typeof refund>[1];
        await refund(db.sql, caller, lastSecond);
        const october = await readUsageReport(db.sql, account, { month: "2026-10", now });
        assert.equal(october.used, 1);
        assert.equal(october.by_key[0].calls, 1);
        assert.deepEqual(october.by_day.at(-1), { date: "2026-10-31", calls: 1 });
        const november = await readUsageReport(db.sql, account, { now });
        assert.equal(november.used, 1);
      },
    );
  },
);

dbTest(
  "usage records: the day's counts on the counter row are filed when the day changes",
  async (db, t) => {
    const { key, keyId, accountId, email } = await makeKey(db.sql, "pro");
    const second = await createApiKey(db.sql, { email, name: "b" });
    const account = { id: accountId, plan: "pro" as const };
    const day1 = new Date("2026-11-03T10:00:00Z");
    const day2 = new Date("2026-11-04T00:00:01Z");
    const now = new Date("2026-11-15T12:00:00Z");
    const charge = (raw: string, at: Date, surface: "rest" | "mcp" = "rest") =>
      admit(db.sql, raw, OPERATIONS.getOverview, undefined, at, surface);
    for (let i = 0; i < 3; i++) await charge(key, day1);
    await charge(key, day1, "mcp");
    await charge(second.key, day1);
    const counter = async () => {
      const [row] = await db.sql<{ today: object; earlier: { day: string; calls: object }[] }[]>`
        select today, earlier from usage_counters where account_id = ${accountId}`;
      return { today: row.today, earlier: row.earlier.map((filed) => filed.calls) };
    };
    const report = () => readUsageReport(db.sql, account, { now });
    const sumsUp = (r: Awaited<ReturnType<typeof report>>) => {
      assert.equal(r.used, r.by_key.reduce((n, k) => n + k.calls, 0));
      assert.equal(r.used, r.by_day.reduce((n, d) => n + d.calls, 0));
      assert.equal(r.used, r.by_surface.rest + r.by_surface.mcp);
    };

    await t.step("the day's calls are on the counter row, and reported", async () => {
      assert.deepEqual(await counter(), {
        today: { [`${keyId}:rest`]: 3, [`${keyId}:mcp`]: 1, [`${second.id}:rest`]: 1 },
        earlier: [],
      });
      const r = await report();
      assert.equal(r.used, 5);
      assert.deepEqual(r.by_day[2], { date: "2026-11-03", calls: 5 });
      assert.deepEqual(r.by_surface, { rest: 4, mcp: 1 });
      assert.deepEqual(r.by_key.map((k) => k.calls), [4, 1]);
      sumsUp(r);
    });
    await t.step("the first charge of the next day files them, exactly", async () => {
      await charge(second.key, day2, "mcp");
      assert.deepEqual(await counter(), {
        today: { [`${second.id}:mcp`]: 1 },
        earlier: [{ [`${keyId}:rest`]: 3, [`${keyId}:mcp`]: 1, [`${second.id}:rest`]: 1 }],
      });
      const r = await report();
      assert.equal(r.used, 6);
      assert.deepEqual(r.by_day.slice(2, 4), [
        { date: "2026-11-03", calls: 5 },
        { date: "2026-11-04", calls: 1 },
      ]);
      assert.deepEqual(r.by_surface, { rest: 4, mcp: 2 });
      sumsUp(r);
    });
    await t.step("a refund of a filed day takes the unit from its filing", async () => {
      const caller = { keyId, accountId } as Parameters<typeof refund>[1];
      assert.equal(await refund(db.sql, caller, day1), 5);
      const r = await report();
      assert.deepEqual(r.by_day.slice(2, 4), [
        { date: "2026-11-03", calls: 4 },
        { date: "2026-11-04", calls: 1 },
      ]);
      sumsUp(r);
    });
    await t.step("a refund of today takes the unit from today's counts", async () => {
      const caller = { keyId: second.id, accountId } as Parameters<typeof refund>[1];
      assert.equal(await refund(db.sql, caller, day2, "mcp"), 4);
      const r = await report();
      assert.deepEqual(r.by_day[3], { date: "2026-11-04", calls: 0 });
      assert.deepEqual(r.by_surface, { rest: 3, mcp: 1 });
      sumsUp(r);
    });
    await t.step(
      "a clock behind by a day (another instance) is still counted exactly",
      async () => {
        await charge(key, day1);
        await charge(key, day2);
        const r = await report();
        assert.equal(r.used, 6);
        assert.deepEqual(r.by_day.slice(2, 4), [
          { date: "2026-11-03", calls: 5 },
          { date: "2026-11-04", calls: 1 },
        ]);
        assert.equal((await counter()).earlier.length, 3, "day 1 was filed twice, day 2 once");
        sumsUp(r);
      },
    );
    await t.step("records of usage_daily (before sql/0007) count and refund too", async () => {
      await db.sql`
        insert into usage_daily (account_id, key_id, surface, day, calls)
        values (${accountId}, ${keyId}, 'rest', '2026-11-02', 2)`;
      await db.sql`update usage_counters set used = used + 2 where account_id = ${accountId}`;
      const caller = { keyId, accountId } as Parameters<typeof refund>[1];
      assert.equal(await refund(db.sql, caller, new Date("2026-11-02T08:00:00Z")), 7);
      const r = await report();
      assert.deepEqual(r.by_day[1], { date: "2026-11-02", calls: 1 });
      sumsUp(r);
    });
  },
);
