/**
 * Similar opportunities and idea match on REST and MCP: the nearest first with a
 * similarity in 0..1, Pro only, 1 call each, 404 and 422 never charged; and REST and MCP give
 * the same answer, for these and for a best-match `q` with its `match`.
 */
import assert from "node:assert/strict";
import { importLines } from "../../src/ingest/import.ts";
import { SimilarListSchema } from "../../src/catalog/similar/similar_schemas.ts";
import { IdeaMatchSchema } from "../../src/catalog/similar/similar_schemas.ts";
import { dbTest } from "../helpers/db.ts";
import { catalogueLines } from "../helpers/catalogue_lines.ts";
import { makeKey, mcpPost, restTwinArgs, type TestApp, testApp, usedOf } from "../helpers/app.ts";
import type { Sql } from "../../src/db/open.ts";

const THEMES = [["invoices", "Late invoice chasing", "up"], [
  "dentists",
  "Dental practices",
  "flat",
]];
const OPPORTUNITIES: [string, string, string, string, string[], string][] = [
  // external_id, theme, title, description, key_features, target_audience
  [
    "s1",
    "invoices",
    "Chase late invoices for freelance designers",
    "Automatic reminders for unpaid invoices",
    ["Reminder schedule", "Stripe sync"],
    "Freelance designers",
  ],
  [
    "s2",
    "invoices",
    "Late invoice reminders for agencies",
    "Send reminders when clients pay invoices late",
    ["Reminder schedule"],
    "Agencies",
  ],
  [
    "s3",
    "invoices",
    "Unpaid invoice collection for freelance photographers",
    "Collect what clients owe",
    ["Collection letters"],
    "Freelance photographers",
  ],
  ["s4", "dentists", "Waiting list for dentists", "Fill empty chairs", ["SMS"], "Dentists"],
  [
    "s5",
    "dentists",
    "Dental appointment reminders",
    "Fewer no-shows for dentists",
    ["SMS"],
    "Dentists",
  ],
];

async function load(sql: Sql): Promise<Record<string, number>> {
  const lines = catalogueLines(
    THEMES.map(([slug, name, direction]) => ({
      slug,
      name,
      mentions_30d: direction === "up" ? 20 : 10,
      mentions_prev_30d: 10,
    })),
    OPPORTUNITIES.map(([external_id, theme, title, description, features, audience], i) => ({
      external_id,
      theme,
      title,
      description,
      key_features: features,
      target_audience: audience,
      competitors: [`Rival ${i}`],
    })),
  );
  await importLines(sql, lines);
  const rows = await sql<{ id: number; external_id: string }[]>`
    select id, external_id from opportunities`;
  return Object.fromEntries(rows.map((r) => [r.external_id, r.id]));
}

async function rest(app: TestApp, path: string, key: string) {
  const res = await app.get(path, key);
  return { status: res.status, body: await res.json() };
}

async function mcp(app: TestApp, key: string, name: string, args: Record<string, unknown>) {
  const res = await mcpPost(app, key, {
    id: 1,
    method: "tools/call",
    params: { name, arguments: restTwinArgs(name, args) },
  });
  assert.equal(res.status, 200);
  const { result } = await res.json();
  return result as { isError?: boolean; structuredContent: Record<string, unknown> };
}

dbTest("similar opportunities: nearest first, 0..1, Pro, 1 call, 404 free", async (db, t) => {
  const app = testApp(db);
  const ids = await load(db.sql);
  const ext = new Map(Object.entries(ids).map(([e, id]) => [id, e]));
  const pro = await makeKey(db.sql, "pro");
  const free = await makeKey(db.sql, "free");

  await t.step(
    "REST: the nearest by shared rare words and theme, each with a similarity",
    async () => {
      const before = await usedOf(db.sql, pro.accountId);
      const { status, body } = await rest(app, `/api/v1/opportunities/${ids.s1}/similar`, pro.key);
      assert.equal(status, 200);
      SimilarListSchema.parse(body);
      assert.equal(await usedOf(db.sql, pro.accountId), before + 1, "1 call");
      const order = body.items.map((i: { id: number }) => ext.get(i.id));
      assert.ok(!order.includes("s1"), "never itself");
      assert.deepEqual(order.slice(0, 2).sort(), ["s2", "s3"], "the invoice ideas first");
      const sims = body.items.map((i: { similarity: number }) => i.similarity);
      assert.ok(sims.every((s: number) => s > 0 && s <= 1));
      assert.deepEqual(sims, [...sims].sort((a: number, b: number) => b - a), "nearest first");
      const last = order.indexOf("s4");
      assert.ok(last === -1 || last === order.length - 1, "the dentists' waiting list is far");
      assert.equal(body.total, body.items.length);
    },
  );
  await t.step("paged like the list", async () => {
    const all = await rest(app, `/api/v1/opportunities/${ids.s1}/similar`, pro.key);
    const page2 = await rest(
      app,
      `/api/v1/opportunities/${ids.s1}/similar?page=2&page_size=1`,
      pro.key,
    );
    assert.deepEqual(page2.body.items, all.body.items.slice(1, 2));
    assert.equal(page2.body.total, all.body.total);
  });
  await t.step("404 for an unknown id, 422 for a bad one: not charged", async () => {
    const before = await usedOf(db.sql, pro.accountId);
    const missing = await rest(app, "/api/v1/opportunities/999999/similar", pro.key);
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error, "not_found");
    const bad = await rest(app, "/api/v1/opportunities/abc/similar", pro.key);
    assert.equal(bad.status, 422);
    const badPage = await rest(app, `/api/v1/opportunities/${ids.s1}/similar?page=0`, pro.key);
    assert.equal(badPage.status, 422);
    const tool = await mcp(app, pro.key, "find_similar_opportunities", { id: 999999 });
    assert.equal(tool.isError, true);
    assert.equal(tool.structuredContent.error, "not_found");
    assert.equal(await usedOf(db.sql, pro.accountId), before);
  });
  await t.step("Free: plan_required on both surfaces, not charged", async () => {
    const res = await rest(app, `/api/v1/opportunities/${ids.s1}/similar`, free.key);
    assert.equal(res.status, 403);
    assert.equal(res.body.error, "plan_required");
    const tool = await mcp(app, free.key, "find_similar_opportunities", { id: ids.s1 });
    assert.equal(tool.structuredContent.error, "plan_required");
    assert.equal(await usedOf(db.sql, free.accountId), 0);
  });
  await t.step("MCP find_similar_opportunities gives the REST answer", async () => {
    const { body } = await rest(app, `/api/v1/opportunities/${ids.s1}/similar`, pro.key);
    const tool = await mcp(app, pro.key, "find_similar_opportunities", { id: ids.s1 });
    assert.equal(tool.isError ?? false, false);
    assert.deepEqual(tool.structuredContent, body);
  });
});

dbTest("idea match: nearest themes and opportunities, Pro, 1 call, 422 free", async (db, t) => {
  const app = testApp(db);
  const ids = await load(db.sql);
  const pro = await makeKey(db.sql, "pro");
  const free = await makeKey(db.sql, "free");
  const idea = "An app that helps freelance designers chase their late invoices";
  const path = `/api/v1/ideas/match?text=${encodeURIComponent(idea)}`;

  await t.step(
    "REST: themes with their trend, opportunities with evidence and rivals",
    async () => {
      const before = await usedOf(db.sql, pro.accountId);
      const { status, body } = await rest(app, path, pro.key);
      assert.equal(status, 200);
      IdeaMatchSchema.parse(body);
      assert.equal(await usedOf(db.sql, pro.accountId), before + 1);
      assert.equal(body.opportunities[0].id, ids.s1);
      assert.deepEqual(body.opportunities[0].competitors, ["Rival 0"]);
      assert.equal(typeof body.opportunities[0].evidence_count, "number");
      assert.equal(body.themes[0].slug, "invoices");
      assert.equal(body.themes[0].trend_direction, "up");
      assert.ok(body.terms.includes("invoic") && !body.terms.includes("the"));
      for (const list of [body.themes, body.opportunities]) {
        const sims = list.map((i: { similarity: number }) => i.similarity);
        assert.ok(sims.every((s: number) => s > 0 && s <= 1));
        assert.deepEqual(sims, [...sims].sort((a: number, b: number) => b - a));
      }
      const limited = await rest(app, `${path}&limit=1`, pro.key);
      assert.equal(limited.body.opportunities.length, 1);
      assert.equal(limited.body.themes.length, 1);
    },
  );
  await t.step("blank, missing or over-long text is a 422, not charged", async () => {
    const before = await usedOf(db.sql, pro.accountId);
    for (const query of ["?text=%20%20%20", "", "?text=", `?text=${"a".repeat(1001)}`]) {
      const res = await rest(app, `/api/v1/ideas/match${query}`, pro.key);
      assert.equal(res.status, 422, query);
      assert.equal(res.body.error, "invalid_parameter");
      assert.equal(res.body.details[0].param, "text");
    }
    const tool = await mcp(app, pro.key, "match_idea", { text: "   " });
    assert.equal(tool.isError, true);
    assert.equal(tool.structuredContent.error, "invalid_parameter");
    assert.equal(await usedOf(db.sql, pro.accountId), before);
  });
  await t.step("Free: plan_required, not charged", async () => {
    assert.equal((await rest(app, path, free.key)).status, 403);
    const tool = await mcp(app, free.key, "match_idea", { text: idea });
    assert.equal(tool.structuredContent.error, "plan_required");
    assert.equal(await usedOf(db.sql, free.accountId), 0);
  });
  await t.step("MCP match_idea gives the REST answer", async () => {
    const { body } = await rest(app, path, pro.key);
    const tool = await mcp(app, pro.key, "match_idea", { text: idea });
    assert.deepEqual(tool.structuredContent, body);
  });
});

dbTest("q as a question: REST and MCP give the same answer and match", async (db) => {
  const app = testApp(db);
  await load(db.sql);
  const pro = await makeKey(db.sql, "pro");
  for (const q of ["invoicing for the photographers", "late invoices zebra -agencies"]) {
    const { status, body } = await rest(
      app,
      `/api/v1/opportunities?q=${encodeURIComponent(q)}`,
      pro.key,
    );
    assert.equal(status, 200);
    const tool = await mcp(app, pro.key, "query_opportunities", { q });
    assert.deepEqual(tool.structuredContent, body, q);
    assert.equal(body.match, q.includes("zebra") ? "any" : "all");
    assert.ok(body.total > 0);
  }
});
