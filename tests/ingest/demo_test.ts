import assert from "node:assert/strict";
import { ANCHOR, type DemoRecord } from "../../src/ingest/demo.ts";
import { generateDemoRecords, isContentEmpty, seedDemo } from "../../src/ingest/seed.ts";
import type { BlogPostRecord, OpportunityRecord, ThemeRecord } from "../../src/ingest/records.ts";
import { dbTest } from "../helpers/db.ts";

function ofType<T extends DemoRecord["type"]>(records: DemoRecord[], type: T) {
  return records.filter((r) => r.type === type) as Extract<DemoRecord, { type: T }>[];
}

Deno.test("generateDemoRecords is deterministic for a seed", () => {
  const a = [...generateDemoRecords()];
  const b = [...generateDemoRecords()];
  assert.deepEqual(a, b);
  const other = [...generateDemoRecords({ seed: 7 })];
  assert.notDeepEqual(ofType(other, "opportunity"), ofType(a, "opportunity"));
  // Opportunity i depends on the seed and i only: a bigger run starts with the same ones.
  const small = ofType([...generateDemoRecords({ opportunities: 50 })], "opportunity");
  assert.deepEqual(small, ofType(a, "opportunity").slice(0, 50));
});

Deno.test("generateDemoRecords has the sizes and spread of the demo data", async (t) => {
  const records = [...generateDemoRecords()];
  const categories = ofType(records, "category");
  const themes = ofType(records, "theme") as ThemeRecord[];
  const opportunities = ofType(records, "opportunity") as OpportunityRecord[];
  const posts = ofType(records, "blog_post") as BlogPostRecord[];

  await t.step("categories and themes with every trend", () => {
    assert.ok(categories.length >= 8, `${categories.length} categories`);
    assert.equal(themes.length, 40);
    const slugs = new Set(categories.map((c) => c.slug));
    assert.ok(themes.every((th) => slugs.has(th.category)));
    const up = themes.filter((th) => th.mentions_30d * 10 >= th.mentions_prev_30d * 11);
    const down = themes.filter((th) => th.mentions_30d * 10 <= th.mentions_prev_30d * 9);
    assert.ok(up.length >= 5, `${up.length} rising`);
    assert.ok(down.length >= 5, `${down.length} falling`);
    assert.ok(themes.length - up.length - down.length >= 5, "flat themes");
  });

  await t.step("opportunities across platforms and channels", () => {
    assert.equal(opportunities.length, 2000);
    assert.equal(new Set(opportunities.map((o) => o.external_id)).size, 2000);
    assert.ok(new Set(opportunities.map((o) => o.platform)).size >= 5);
    assert.ok(new Set(opportunities.map((o) => o.channel_name)).size >= 30);
    const themeSlugs = new Set(themes.map((th) => th.slug));
    assert.ok(opportunities.every((o) => themeSlugs.has(o.theme)));
  });

  await t.step("scores are spread and agree with sub-scores and verdicts", () => {
    const scores = opportunities.map((o) => o.score);
    const mean = scores.reduce((a, b) => a + b, 0) / scores.length;
    assert.ok(mean > 45 && mean < 65, `mean ${mean}`);
    assert.ok(scores.some((s) => s >= 85) && scores.some((s) => s <= 25));
    const middle = scores.filter((s) => s >= 40 && s <= 70).length;
    assert.ok(middle > scores.length / 2, "bell-shaped: most scores in the middle");
    const avg = (rec: string, f: (o: OpportunityRecord) => number) => {
      const xs = opportunities.filter((o) => o.recommendation === rec).map(f);
      return xs.reduce((a, b) => a + b, 0) / xs.length;
    };
    assert.ok(avg("Build", (o) => o.score) > avg("Validate", (o) => o.score));
    assert.ok(avg("Validate", (o) => o.score) > avg("Skip", (o) => o.score));
    assert.ok(
      avg("Build", (o) => o.pain_point_intensity) > avg("Skip", (o) => o.pain_point_intensity),
    );
    for (const rec of ["Build", "Validate", "Skip"]) {
      assert.ok(opportunities.some((o) => o.recommendation === rec), rec);
    }
    for (const o of opportunities) {
      for (const s of [o.pain_point_intensity, o.willingness_to_pay_score, o.tech_difficulty]) {
        assert.ok(Number.isInteger(s) && s >= 0 && s <= 10);
      }
    }
  });

  await t.step("dates, delivery and evidence", () => {
    const online = opportunities.filter((o) => o.is_online_deliverable).length / 2000;
    assert.ok(online > 0.8 && online < 0.9, `online ${online}`);
    for (const o of opportunities) {
      const created = Date.parse(o.created_at);
      assert.ok(created <= ANCHOR && created > ANCHOR - 181 * 86_400_000, o.created_at);
      const n = o.evidence?.length ?? 0;
      assert.ok(n >= 1 && n <= 5, `${n} quotes`);
      assert.ok((o.key_features?.length ?? 0) >= 3 && (o.risks?.length ?? 0) >= 2);
    }
    const quotes = opportunities.flatMap((o) => o.evidence ?? []).map((e) => e.quote);
    assert.ok(quotes.some((q) => /\bu\/\w/.test(q)), "some quotes name a user");
    assert.ok(quotes.some((q) => /@\w+\.\w/.test(q)), "some quotes hold an e-mail");
    assert.ok(quotes.some((q) => /\+1 415 555/.test(q)), "some quotes hold a phone number");
  });

  await t.step("common and rare words for search", () => {
    const share = (word: string) =>
      opportunities.filter((o) => `${o.title} ${o.description}`.toLowerCase().includes(word))
        .length / opportunities.length;
    assert.ok(share("automatically") > 0.1);
    assert.ok(share("small") > 0.1);
    assert.ok(share("quokka") > 0 && share("quokka") < 0.01);
  });

  await t.step("blog posts: published, a draft and a scheduled one", () => {
    const published = posts.filter((p) => p.published_at && Date.parse(p.published_at) <= ANCHOR);
    assert.ok(published.length >= 12, `${published.length} published`);
    assert.equal(posts.filter((p) => p.published_at === null).length, 1);
    assert.equal(posts.filter((p) => p.published_at?.startsWith("2099")).length, 1);
    const ids = new Set(opportunities.map((o) => o.external_id));
    const related = posts.filter((p) => p.related_opportunity);
    assert.ok(related.length >= 5);
    assert.ok(related.every((p) => ids.has(p.related_opportunity!)));
    for (const p of published) {
      assert.match(p.body_md, /^## /m, p.slug);
      assert.match(p.body_md, /^- |^1\. /m, p.slug);
      assert.match(p.body_md, /^\|---/m, p.slug);
      assert.match(p.body_md, /\]\((https?:\/\/|\/)/, p.slug);
    }
  });
});

dbTest("seedDemo fills an empty database with the demo data", async ({ sql }) => {
  assert.equal(await isContentEmpty(sql), true);
  const progress: number[] = [];
  const summary = await seedDemo(sql, { onProgress: (done) => progress.push(done) });
  assert.equal(await isContentEmpty(sql), false);
  assert.equal(summary.opportunities, 2000);
  assert.equal(progress.at(-1), 2000);
  const [counts] = await sql`
    select (select count(*)::int from categories) as categories,
      (select count(*)::int from themes) as themes,
      (select count(*)::int from opportunities) as opportunities,
      (select count(*)::int from evidence_quotes) as evidence,
      (select count(distinct platform)::int from opportunities) as platforms,
      (select count(distinct channel_name)::int from opportunities) as channels,
      (select count(*)::int from blog_posts where published_at <= now()) as published,
      (select count(*)::int from blog_posts where published_at is null) as drafts,
      (select count(*)::int from blog_posts where published_at > now()) as scheduled,
      (select count(*)::int from blog_posts where related_opportunity_id is not null) as related`;
  assert.ok(counts.categories >= 8);
  assert.equal(counts.themes, 40);
  assert.equal(counts.opportunities, 2000);
  assert.equal(counts.evidence, summary.evidence_quotes);
  assert.ok(counts.platforms >= 5 && counts.channels >= 30);
  assert.ok(counts.published >= 12);
  assert.equal(counts.drafts, 1);
  assert.equal(counts.scheduled, 1);
  assert.ok(counts.related >= 5);
  const trends = await sql`select distinct trend_direction from themes order by 1`;
  assert.deepEqual(trends.map((r) => r.trend_direction), ["down", "flat", "up"]);

  const leaks = await sql`
    select quote from evidence_quotes
    where quote ~ '@' or quote ~ '(^|[^\\w])/?u/\\w' or quote ~ '555[ -]?\\d{4}'`;
  assert.deepEqual(
    leaks.map((r) => r.quote),
    [],
    "scrubbed evidence holds no handle, e-mail or phone number",
  );
  const [{ users }] = await sql`
    select count(*)::int as users from evidence_quotes where quote like '%[user]%'`;
  assert.ok(users > 0, "handles became [user]");

  const [{ version }] = await sql`select version::int from data_version`;
  const again = await seedDemo(sql);
  assert.equal(again.changed, false, "a second seed changes nothing");
  const [after] = await sql`select version::int from data_version`;
  assert.equal(after.version, version);
});
