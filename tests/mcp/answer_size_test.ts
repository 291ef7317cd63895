/**
 * Every tool's default answer fits an agent's context: at most 8,192 bytes on the wire (the
 * whole `tools/call` result, text and structured content together), with and without a
 * question, in both protocol eras, on the demo data and on a catalogue whose texts are at their
 * longest (src/catalog/compact.ts). `detail: "full"` still gives every field.
 */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { callToolIn, makeKey, type TestApp, testApp, usedOf } from "../helpers/app.ts";
import { importLines } from "../../src/ingest/import.ts";
import { ANSWER_BUDGET } from "../../src/catalog/compact.ts";

/** The `result` of a tools/call in one era, and its size in bytes as sent. */
async function call(
  app: TestApp,
  key: string,
  era: "2025" | "2026",
  name: string,
  args: Record<string, unknown>,
): Promise<{ bytes: number; result: Record<string, unknown> }> {
  const result = await callToolIn(app, key, era, name, args);
  return { bytes: new TextEncoder().encode(JSON.stringify(result)).length, result };
}

/** The calls of every catalogue tool, with a question where the tool takes one. */
async function cases(sql: TestApp["sql"]): Promise<[string, Record<string, unknown>][]> {
  const [{ opp, theme, post }] = await sql<{ opp: number; theme: number; post: string }[]>`
    select (select min(id) from opportunities) as opp, (select min(id) from themes) as theme,
      (select min(slug) from blog_posts where published_at <= now()) as post`;
  return [
    ["get_overview", {}],
    ["get_opportunity", { id: opp }],
    ["list_blog_posts", {}],
    ["list_blog_posts", { q: "invoices" }],
    ["get_blog_post", { slug: post }],
    ["query_opportunities", {}],
    ["query_opportunities", { q: "how do freelancers chase late invoices" }],
    ["query_opportunities", { q: "invoice" }],
    ["find_similar_opportunities", { id: opp }],
    ["match_idea", { text: "An app that helps freelance designers chase late invoices" }],
    ["list_trending_themes", {}],
    ["list_trending_themes", { status: "rising" }],
    ["get_theme", { id: theme }],
    ["get_theme_history", { id: theme }],
    ["get_usage", {}],
    ["search", { query: "invoice" }],
    ["fetch", { id: `opportunity:${opp}` }],
    ["fetch", { id: `article:${post}` }],
    ["list_watches", {}],
  ];
}

/** Asserts every case within the budget in both eras; returns the sizes for a message. */
async function assertWithin(app: TestApp, key: string): Promise<Record<string, number>> {
  const sizes: Record<string, number> = {};
  for (const [name, args] of await cases(app.sql)) {
    for (const era of ["2025", "2026"] as const) {
      const { bytes, result } = await call(app, key, era, name, args);
      assert.ok(!result.isError, `${name} ${JSON.stringify(args)}: ${JSON.stringify(result)}`);
      const label = `${name} ${JSON.stringify(args)} ${era}`;
      assert.ok(bytes <= ANSWER_BUDGET, `${label}: ${bytes} bytes (${ANSWER_BUDGET} max)`);
      sizes[label] = bytes;
    }
  }
  return sizes;
}

dbTest("every tool's default answer is at most 8,192 bytes on the demo data", async (db, t) => {
  const app = testApp(db);
  const { key, accountId } = await makeKey(db.sql, "business");
  await t.step("both eras, with and without a question", async () => {
    await assertWithin(app, key);
  });
  await t.step("detail full gives every field", async () => {
    const full = await call(app, key, "2025", "query_opportunities", { detail: "full" });
    const body = full.result.structuredContent as { items: Record<string, unknown>[] };
    assert.equal(body.items.length, 10);
    assert.ok("monetization_model" in body.items[0]);
    assert.ok(full.bytes > ANSWER_BUDGET, "the full page is the large one");
    const compact = await call(app, key, "2025", "query_opportunities", {});
    const items = (compact.result.structuredContent as typeof body).items;
    assert.equal(items.length, 10);
    assert.deepEqual(Object.keys(items[0]), [
      "id",
      "title",
      "recommendation",
      "score",
      "target_audience",
      "url",
    ]);
    const { total, remaining } = compact.result.structuredContent as Record<string, number>;
    assert.equal(remaining, total - 10);
    const text = (compact.result.content as { text: string }[])[0].text;
    assert.deepEqual(JSON.parse(text), compact.result.structuredContent);
  });
  await t.step("a bad detail is refused and not charged", async () => {
    const before = await usedOf(db.sql, accountId);
    const { result } = await call(app, key, "2025", "get_overview", { detail: "everything" });
    assert.equal(result.isError, true);
    const body = result.structuredContent as { error: string; details: { param: string }[] };
    assert.equal(body.error, "invalid_parameter");
    assert.equal(body.details[0].param, "detail");
    assert.equal(await usedOf(db.sql, accountId), before);
  });
}, { seed: {} });

/** A prose text of `length` characters (words, so that the search can index it). */
function prose(length: number, seed: string): string {
  const words = `${seed} invoice reminder freelancer designer payment client late chase `;
  return words.repeat(Math.ceil(length / words.length)).slice(0, length - 1) + ".";
}

/** A catalogue with every text at its longest: 12 opportunities, 156 weeks of mentions. */
function longestLines(): string[] {
  const t = (n: number, s: string) => prose(n, s);
  const records: Record<string, unknown>[] = [
    { type: "category", slug: "c-long", name: t(500, "cat"), description: t(50_000, "cat") },
    {
      type: "theme",
      slug: "t-long",
      category: "c-long",
      name: t(500, "theme"),
      summary: t(50_000, "theme"),
      mentions_30d: 900,
      mentions_prev_30d: 100,
    },
  ];
  const monday = new Date(Date.UTC(2023, 10, 6));
  for (let week = 0; week < 156; week++) {
    const date = new Date(monday.getTime() + week * 7 * 86_400_000).toISOString().slice(0, 10);
    records.push({ type: "theme_mentions", theme: "t-long", date, mentions: week + 1 });
  }
  for (let i = 0; i < 12; i++) {
    const seed = `o${i}`;
    records.push({
      type: "opportunity",
      external_id: `long-${i}`,
      theme: "t-long",
      platform: "reddit",
      channel_name: t(500, seed),
      title: t(500, `${seed} title`),
      recommendation: "Build",
      score: 90 - i,
      pain_point_intensity: 8,
      willingness_to_pay_score: 8,
      tech_difficulty: 3,
      sustainability_score: 7,
      target_audience: t(50_000, seed),
      monetization_model: t(50_000, seed),
      is_online_deliverable: true,
      created_at: "2026-11-01T00:00:00Z",
      description: t(50_000, seed),
      market_size_estimate: t(50_000, seed),
      key_features: [t(50_000, seed), t(50_000, seed)],
      competitors: [t(50_000, seed)],
      differentiation: t(50_000, seed),
      risks: [t(50_000, seed)],
      evidence: Array.from({ length: 6 }, (_, k) => ({
        quote: t(50_000, `${seed}q${k}`),
        platform: "reddit",
        channel_name: t(500, seed),
        source_url: `https://www.reddit.com/r/x/comments/${i}${k}/`,
        posted_at: "2026-10-01T00:00:00Z",
      })),
    });
  }
  records.push({
    type: "blog_post",
    slug: "a-long-post",
    title: t(500, "post"),
    excerpt: t(50_000, "post"),
    body_md: t(1_000_000, "post"),
    tags: Array.from({ length: 20 }, (_, k) => t(500, `tag${k}`)),
    published_at: "2026-10-01T00:00:00Z",
  });
  return records.map((r) => JSON.stringify(r));
}

dbTest(
  "every tool's default answer is at most 8,192 bytes with texts at their longest",
  async (db) => {
    await importLines(db.sql, longestLines());
    const app = testApp(db);
    const { key } = await makeKey(db.sql, "business");
    await assertWithin(app, key);
    const { result } = await call(app, key, "2025", "get_opportunity", {
      id: (await db.sql<{ id: number }[]>`select min(id) as id from opportunities`)[0].id,
    });
    const body = result.structuredContent as Record<string, unknown>;
    assert.equal(body.truncated, true);
    assert.ok((body.description as string).endsWith("…"));
    assert.ok(String(body.url).includes("/opportunities/"), "urls are never cut");
  },
);
