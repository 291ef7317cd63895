/**
 * The `theme` filter of the opportunity list (a theme's slug, as in /themes/{slug}): refused when
 * it cannot be a slug, an empty list for an unknown one (as `category`), combined with the other
 * filters and `q`, carried by the cursor, and the same on MCP, in the export and in watches.
 */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { loadFixture, makeKey, testApp } from "../helpers/app.ts";
import { mcpCallOfEra } from "./sweep_helpers.ts";
import { importLines } from "../../src/ingest/import.ts";
import { opportunityLine, sendJson } from "../helpers/watches.ts";

dbTest("GET /api/v1/opportunities?theme=: 422 for what cannot be a slug", async (db, t) => {
  const app = testApp(db);
  const { key } = await makeKey(db.sql, "pro");
  const slug = "must be a slug of lowercase letters, digits and dashes";
  const cases: [string, string][] = [
    ["theme=Flaky-CI", slug],
    ["theme=flaky--ci", slug],
    ["theme=flaky%20ci", slug],
    ["theme=-flaky", slug],
    ["theme=flaky%00", slug],
    ["theme=%E2%80%AEci", slug],
    [`theme=${"a".repeat(201)}`, "must be at most 200 characters"],
    ["theme=a&theme=b", "must be given only once"],
  ];
  for (const [query, message] of cases) {
    await t.step(query.slice(0, 40), async () => {
      const res = await app.get(`/api/v1/opportunities?${query}`, key);
      assert.equal(res.status, 422);
      assert.equal(res.headers.get("content-type"), "application/json; charset=utf-8");
      const body = await res.json();
      assert.equal(body.error, "invalid_parameter");
      assert.deepEqual(body.details, [{ param: "theme", message }]);
    });
  }
});

dbTest("GET /api/v1/opportunities?theme=: filters, q, cursor, MCP, export", async (db, t) => {
  const app = testApp(db);
  const ids = await loadFixture(db.sql);
  const { key } = await makeKey(db.sql, "business");
  const list = async (query: string) => {
    const res = await app.get(`/api/v1/opportunities?${query}`, key);
    assert.equal(res.status, 200, query);
    return await res.json() as {
      items: { id: number }[];
      total: number;
      next_cursor: string | null;
    };
  };
  const idsOf = (body: { items: { id: number }[] }) => body.items.map((i) => i.id);
  const byExt = (...ext: string[]) => ext.map((e) => ids[e]);

  await t.step("only the theme's opportunities, with the other filters", async () => {
    const ci = await list("theme=flaky-ci");
    assert.deepEqual(idsOf(ci), byExt("opp-1", "opp-2"));
    assert.equal(ci.total, 2);
    assert.deepEqual(idsOf(await list("theme=invoice-chasing")), byExt("opp-3"));
    assert.deepEqual(
      idsOf(await list("theme=invoice-chasing&online_only=false")),
      byExt("opp-3", "opp-4"),
    );
    assert.deepEqual(idsOf(await list("theme=flaky-ci&platform=HackerNews")), byExt("opp-2"));
    assert.deepEqual(idsOf(await list("theme=flaky-ci&min_score=80")), byExt("opp-1"));
    assert.deepEqual(idsOf(await list("theme=flaky-ci&sort=newest")), byExt("opp-2", "opp-1"));
    assert.equal((await list("theme=flaky-ci&category=developer-tools")).total, 2);
    assert.equal((await list("theme=flaky-ci&category=small-business")).total, 0);
  });
  await t.step("an unknown theme is an empty list, as an unknown category", async () => {
    for (const query of ["theme=nope", "category=nope"]) {
      const body = await list(query);
      assert.equal(body.total, 0, query);
      assert.deepEqual(body.items, [], query);
      assert.equal(body.next_cursor, null, query);
    }
  });
  await t.step("with q: the words within the theme", async () => {
    assert.deepEqual(idsOf(await list("q=quarantine&theme=flaky-ci")), byExt("opp-2"));
    assert.equal((await list("q=quarantine&theme=legacy-docs")).total, 0);
    // q names one theme, the parameter another: nothing is in both, and the total says so.
    const both = await list("q=flaky%20ci&theme=legacy-docs");
    assert.deepEqual(both.items, []);
    assert.equal(both.total, 0);
    assert.deepEqual(idsOf(await list("q=flaky%20ci&theme=flaky-ci")), byExt("opp-1", "opp-2"));
  });
  await t.step("the cursor goes on within the theme, and only there", async () => {
    const first = await list("theme=flaky-ci&page_size=1");
    assert.deepEqual(idsOf(first), byExt("opp-1"));
    const cursor = encodeURIComponent(first.next_cursor!);
    const second = await list(`theme=flaky-ci&page_size=1&cursor=${cursor}`);
    assert.deepEqual(idsOf(second), byExt("opp-2"));
    assert.equal(second.next_cursor, null);
    assert.equal(second.total, 2);
    for (const other of ["theme=legacy-docs&", "", "category=developer-tools&"]) {
      const res = await app.get(`/api/v1/opportunities?${other}page_size=1&cursor=${cursor}`, key);
      assert.equal(res.status, 422, other);
      assert.equal((await res.json()).error, "invalid_cursor", other);
    }
  });
  await t.step("query_opportunities takes theme, and refuses a bad one", async () => {
    const res = await mcpCallOfEra(app, key, "2025", "query_opportunities", {
      theme: "flaky-ci",
    });
    const { result } = await res.json();
    assert.equal(result.isError, undefined);
    assert.deepEqual(
      result.structuredContent.items.map((i: { id: number }) => i.id),
      byExt("opp-1", "opp-2"),
    );
    const bad = await (await mcpCallOfEra(app, key, "2026", "query_opportunities", {
      theme: "Flaky CI",
    })).json();
    assert.equal(bad.result.isError, true);
    assert.equal(bad.result.structuredContent.error, "invalid_parameter");
    assert.equal(bad.result.structuredContent.details[0].param, "theme");
  });
  await t.step("the export of a theme", async () => {
    const res = await app.get(
      "/api/v1/opportunities/export?theme=invoice-chasing&online_only=0",
      key,
    );
    assert.equal(res.status, 200);
    const lines = (await res.text()).trim().split("\n").map((l) => JSON.parse(l).id);
    assert.deepEqual(lines, byExt("opp-3", "opp-4"));
    const bad = await app.get("/api/v1/opportunities/export?theme=Nope", key);
    assert.equal(bad.status, 422);
  });
});

dbTest("a watch with a theme delivers that theme's new opportunities only", async (db) => {
  const app = testApp(db);
  await loadFixture(db.sql);
  const { key } = await makeKey(db.sql, "business");
  const res = await sendJson(app, "POST", "/api/v1/watches", key, {
    name: "CI",
    query: "theme=flaky-ci&min_score=50",
    deliveries: { feed: true },
  });
  assert.equal(res.status, 201);
  const watch = await res.json();
  assert.deepEqual(watch.query, { theme: "flaky-ci", min_score: 50, online_only: true });
  const refused = await sendJson(app, "POST", "/api/v1/watches", key, {
    name: "Bad",
    query: { theme: "Flaky CI" },
    deliveries: { feed: true },
  });
  assert.equal(refused.status, 422);
  assert.equal((await refused.json()).details[0].param, "query.theme");
  await importLines(db.sql, [
    opportunityLine("ci-new", { theme: "flaky-ci", score: 70 }),
    opportunityLine("docs-new", { theme: "legacy-docs", score: 70 }),
    opportunityLine("ci-low", { theme: "flaky-ci", score: 20 }),
  ]);
  const rows = await db.sql<{ external_id: string }[]>`
    select o.external_id from watch_batches b, unnest(b.opportunity_ids) u(id)
    join opportunities o on o.id = u.id where b.watch_id = ${watch.id}`;
  assert.deepEqual(rows.map((r) => r.external_id), ["ci-new"]);
});
