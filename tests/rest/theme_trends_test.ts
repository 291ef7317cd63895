/**
 * Theme trends on both surfaces: GET /api/v1/themes/{id}/history and get_theme_history, the
 * trending list's window and status, the status, growth and weekly points of a theme; REST and
 * MCP give the same answers, and a refused call is not charged.
 */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import {
  loadFixture,
  makeKey,
  mcpPost,
  restTwinArgs,
  type TestApp,
  testApp,
  usedOf,
} from "../helpers/app.ts";
import { importLines } from "../../src/ingest/import.ts";
import { ThemeDetailSchema, TrendingThemesSchema } from "../../src/catalog/schemas.ts";
import { ThemeHistorySchema } from "../../src/catalog/trend_schemas.ts";
import { growth } from "../../src/catalog/trend_rule.ts";
import { DECLINING, mondayBefore, RISING, STEADY, weeklyLines } from "../helpers/trends.ts";
import type { Sql } from "../../src/db/open.ts";

async function loadTrends(sql: Sql): Promise<Record<string, number>> {
  await loadFixture(sql);
  await importLines(sql, [
    ...weeklyLines("invoice-chasing", RISING),
    ...weeklyLines("legacy-docs", DECLINING),
    // flaky-ci has a shorter history: its last 30 weeks.
    ...weeklyLines("flaky-ci", STEADY.slice(-30)),
  ]);
  const rows = await sql<{ slug: string; id: number }[]>`select slug, id from themes`;
  return Object.fromEntries(rows.map((r) => [r.slug, r.id]));
}

async function tool(app: TestApp, key: string, name: string, args: Record<string, unknown>) {
  const res = await mcpPost(app, key, {
    id: 1,
    method: "tools/call",
    params: { name, arguments: restTwinArgs(name, args) },
  });
  assert.equal(res.status, 200);
  return (await res.json()).result as {
    isError?: boolean;
    structuredContent: Record<string, unknown>;
  };
}

dbTest("GET /api/v1/themes/{id}/history: weeks, months, ranges, errors", async (db, t) => {
  const app = testApp(db);
  const ids = await loadTrends(db.sql);
  const { key, accountId } = await makeKey(db.sql, "pro");
  const id = ids["invoice-chasing"];

  await t.step("by week: the whole history, oldest first, 1 call", async () => {
    const res = await app.get(`/api/v1/themes/${id}/history`, key);
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /application\/json/);
    const body = ThemeHistorySchema.parse(await res.json());
    assert.equal(body.interval, "week");
    assert.equal(body.theme.slug, "invoice-chasing");
    assert.equal(body.theme.trend_status, "rising");
    assert.deepEqual(body.points.map((p) => p.mentions), RISING);
    assert.equal(body.points[0].start, mondayBefore(RISING.length - 1));
    assert.equal(body.points.at(-1)!.start, mondayBefore(0));
    assert.equal(body.from, mondayBefore(RISING.length - 1));
    assert.equal(body.to, mondayBefore(0));
    assert.equal(body.total_mentions, RISING.reduce((a, b) => a + b, 0));
    assert.equal(await usedOf(db.sql, accountId), 1);
  });
  await t.step("by month: calendar months summing the weeks in them", async () => {
    const body = ThemeHistorySchema.parse(
      await (await app.get(`/api/v1/themes/${id}/history?interval=month`, key)).json(),
    );
    assert.ok(body.points.every((p) => p.start.endsWith("-01")));
    assert.equal(body.points.at(-1)!.start, "2026-11-01");
    // November 2026: the Mondays 2, 9 and 16.
    assert.equal(body.points.at(-1)!.mentions, RISING.slice(-3).reduce((a, b) => a + b, 0));
    assert.equal(body.total_mentions, RISING.reduce((a, b) => a + b, 0));
  });
  await t.step("from and to bound the days counted", async () => {
    const from = mondayBefore(5);
    const to = mondayBefore(2);
    const body = ThemeHistorySchema.parse(
      await (await app.get(`/api/v1/themes/${id}/history?from=${from}&to=${to}`, key)).json(),
    );
    assert.deepEqual(body.points.map((p) => p.mentions), RISING.slice(-6, -2));
    assert.equal(body.from, from);
    assert.equal(body.to, to);
  });
  await t.step("a range without data is empty, not an error", async () => {
    const body = ThemeHistorySchema.parse(
      await (await app.get(`/api/v1/themes/${id}/history?to=2001-01-01`, key)).json(),
    );
    assert.deepEqual(body.points, []);
    assert.equal(body.from, null);
    assert.equal(body.total_mentions, 0);
  });
  await t.step("bad parameters are 422, an unknown theme 404, neither charged", async () => {
    const used = await usedOf(db.sql, accountId);
    for (
      const query of [
        "interval=day",
        "from=2026-02-30",
        "to=yesterday",
        "from=2026-11-10&to=2026-11-01",
        "interval=week&interval=month",
      ]
    ) {
      const res = await app.get(`/api/v1/themes/${id}/history?${query}`, key);
      assert.equal(res.status, 422, query);
      assert.equal((await res.json()).error, "invalid_parameter", query);
    }
    assert.equal((await app.get(`/api/v1/themes/999999/history`, key)).status, 404);
    // A segment that is not digits is a slug: an unknown one is 404, a malformed one 422.
    assert.equal((await app.get(`/api/v1/themes/abc/history`, key)).status, 404);
    assert.equal((await app.get(`/api/v1/themes/Not_A_Slug/history`, key)).status, 422);
    assert.equal(await usedOf(db.sql, accountId), used);
  });
  await t.step("a Free key gets plan_required", async () => {
    const free = await makeKey(db.sql, "free");
    const res = await app.get(`/api/v1/themes/${id}/history`, free.key);
    assert.equal(res.status, 403);
    assert.equal((await res.json()).error, "plan_required");
  });
});

dbTest(
  "trending list: window and status; theme detail: status, growth, 26 weeks",
  async (db, t) => {
    const app = testApp(db);
    const ids = await loadTrends(db.sql);
    const { key } = await makeKey(db.sql, "pro");
    const list = async (query: string) =>
      TrendingThemesSchema.parse(
        await (await app.get(`/api/v1/themes/trending?${query}`, key)).json(),
      ).items;

    await t.step("each theme carries its status and growth per window", async () => {
      const [rising] = (await list("window=7d")).filter((x) => x.slug === "invoice-chasing");
      assert.equal(rising.trend_status, "rising");
      assert.deepEqual(rising.growth, {
        "7d": growth(RISING, 1),
        "30d": rising.trend_change,
        "90d": growth(RISING, 13),
        "1y": growth(RISING, 52),
      });
    });
    await t.step("windows: only themes growing 10% or more over it, by that growth", async () => {
      assert.deepEqual((await list("window=7d")).map((x) => x.slug), ["invoice-chasing"]);
      assert.deepEqual((await list("window=90d")).map((x) => x.slug), ["invoice-chasing"]);
      // Over a year the rise is +6.2%: below 10%, not listed; flaky-ci's 30 weeks are too short.
      assert.ok(growth(RISING, 52)! < 10);
      assert.deepEqual((await list("window=1y")).map((x) => x.slug), []);
      const flaky = (await list("status=steady&window=1y"))[0];
      assert.equal(flaky.slug, "flaky-ci");
      assert.equal(flaky.growth["1y"], null);
      assert.equal(flaky.growth["90d"], growth(STEADY.slice(-30), 13));
    });
    await t.step("status filters whatever the growth", async () => {
      assert.deepEqual((await list("status=declining")).map((x) => x.slug), ["legacy-docs"]);
      assert.deepEqual((await list("status=rising&window=90d")).map((x) => x.slug), [
        "invoice-chasing",
      ]);
      assert.deepEqual(await list("status=emerging"), []);
      assert.deepEqual(
        (await list("status=declining&category=small-business")).map((x) => x.slug),
        [],
      );
    });
    await t.step("bad window or status is 422", async () => {
      for (const query of ["window=2w", "status=booming", "window="]) {
        const res = await app.get(`/api/v1/themes/trending?${query}`, key);
        assert.equal(res.status, query === "window=" ? 200 : 422, query);
      }
    });
    await t.step("the detail has the last 26 weeks", async () => {
      const body = ThemeDetailSchema.parse(
        await (await app.get(`/api/v1/themes/${ids["legacy-docs"]}`, key)).json(),
      );
      assert.equal(body.theme.trend_status, "declining");
      assert.deepEqual(body.weekly_mentions.map((p) => p.mentions), DECLINING.slice(-26));
      assert.equal(body.weekly_mentions[0].start, mondayBefore(25));
    });
    await t.step("a theme without points: null status, no weeks, 30d growth only", async () => {
      await db.sql`delete from theme_mentions where theme_id = ${ids["flaky-ci"]}`;
      await db.sql`update themes set trend_status = null, growth_7d = null, growth_90d = null,
      growth_1y = null where id = ${ids["flaky-ci"]}`;
      await db.sql`update data_version set version = version + 1`;
      const body = ThemeDetailSchema.parse(
        await (await app.get(`/api/v1/themes/${ids["flaky-ci"]}`, key)).json(),
      );
      assert.equal(body.theme.trend_status, null);
      assert.deepEqual(body.weekly_mentions, []);
      assert.equal(body.theme.growth["30d"], body.theme.trend_change);
      const history = await (await app.get(`/api/v1/themes/${ids["flaky-ci"]}/history`, key))
        .json();
      assert.deepEqual(history.points, []);
    });
  },
);

dbTest("REST and MCP give the same trend answers", async (db, t) => {
  const app = testApp(db);
  const ids = await loadTrends(db.sql);
  const { key, accountId } = await makeKey(db.sql, "pro");
  const id = ids["invoice-chasing"];
  const cases: [string, string, Record<string, unknown>][] = [
    [`/api/v1/themes/${id}/history?interval=month&from=2025-06-01`, "get_theme_history", {
      id,
      interval: "month",
      from: "2025-06-01",
    }],
    [`/api/v1/themes/${id}/history`, "get_theme_history", { id }],
    ["/api/v1/themes/trending?window=1y", "list_trending_themes", { window: "1y" }],
    ["/api/v1/themes/trending?status=declining", "list_trending_themes", { status: "declining" }],
    [`/api/v1/themes/${id}`, "get_theme", { id }],
  ];
  for (const [path, name, args] of cases) {
    await t.step(path, async () => {
      const rest = await (await app.get(path, key)).json();
      const mcp = await tool(app, key, name, args);
      assert.equal(mcp.isError, undefined, JSON.stringify(mcp.structuredContent));
      assert.deepEqual(mcp.structuredContent, rest);
    });
  }
  await t.step("MCP errors: invalid_parameter and not_found, uncharged", async () => {
    const used = await usedOf(db.sql, accountId);
    const bad = await tool(app, key, "get_theme_history", { id, interval: "day" });
    assert.equal(bad.isError, true);
    assert.equal(bad.structuredContent.error, "invalid_parameter");
    const missing = await tool(app, key, "get_theme_history", { id: 999999 });
    assert.equal(missing.structuredContent.error, "not_found");
    assert.equal(await usedOf(db.sql, accountId), used);
  });
});
