/**
 * The JSONL import (docs/import.md): good files stored with derived and scrubbed fields, imports
 * that change nothing the second time, references, batches, slugs and the bulk writer.
 */
import assert from "node:assert/strict";
import { importFile, importLines } from "../../src/ingest/import.ts";
import { slugify } from "../../src/ingest/records.ts";
import { ContentWriter } from "../../src/ingest/writer.ts";
import type { Sql } from "../../src/db/open.ts";
import { dbTest } from "../helpers/db.ts";
import { GOOD, goodLines, OPPORTUNITY, snapshot, version } from "../helpers/imports.ts";

dbTest("importFile stores a good file with derived and scrubbed fields", async ({ sql }) => {
  const before = await version(sql);
  const summary = await importFile(sql, GOOD);
  assert.deepEqual(summary, {
    lines: 11,
    categories: 2,
    themes: 3,
    opportunities: 3,
    blog_posts: 2,
    evidence_quotes: 3,
    changed: true,
  });
  assert.equal(await version(sql), before + 1);

  const themes = await sql<{ slug: string; trend_direction: string; trend_change: number }[]>`
    select slug, trend_direction, trend_change from themes order by slug`;
  assert.deepEqual(themes.map((t) => [t.slug, t.trend_direction, t.trend_change]), [
    ["flaky-ci", "flat", 0],
    ["late-invoices", "up", 30],
    ["legacy-bookkeeping", "down", -50],
  ]);
  const [theme] = await sql`
    select c.slug from themes t join categories c on c.id = t.category_id
    where t.slug = 'legacy-bookkeeping'`;
  assert.equal(theme.slug, "finance-ops");

  const [o1] = await sql`select * from opportunities where external_id = 'fx-1'`;
  assert.equal(o1.slug, "a-lightweight-tool-that-helps-freelance-designers-chase-late-invoices");
  assert.equal(o1.score, 82);
  assert.equal(o1.recommendation, "Build");
  assert.equal(o1.merged_from_count, 2);
  assert.equal(o1.evidence_count, 2, "defaults to the number of quotes");
  assert.deepEqual(o1.key_features, ["Reminder sequences", "Stripe payment links"]);
  assert.deepEqual(o1.competitors, ["FreshBooks", "Bonsai"]);
  assert.equal(new Date(o1.created_at).toISOString(), "2026-05-01T10:00:00.000Z");
  assert.match(o1.description, /Ask \[user\], who wrote/);
  assert.doesNotMatch(o1.description, /invoice_hater/);

  const [o3] = await sql`select * from opportunities where external_id = 'fx-3'`;
  assert.equal(o3.slug, "resume-of-desktop-ledgers-exported-to-the-cloud-in-one-click");
  assert.equal(o3.evidence_count, 7, "an explicit count wins");
  assert.equal(o3.is_online_deliverable, false);
  assert.equal(o3.description, "");

  const quotes = await sql<{ quote: string; source_url: string | null; posted_at: Date }[]>`
    select e.quote, e.source_url, e.posted_at from evidence_quotes e
    join opportunities o on o.id = e.opportunity_id where o.external_id = 'fx-1' order by e.id`;
  assert.equal(quotes.length, 2);
  assert.match(quotes[0].quote, /\[user\]/);
  assert.doesNotMatch(quotes[0].quote, /lena_designs/);
  assert.equal(quotes[1].source_url, null);
  assert.equal(new Date(quotes[1].posted_at).toISOString(), "2026-04-20T07:00:00.000Z");

  const posts = await sql`
    select b.slug, b.excerpt, b.published_at, b.updated_at, o.external_id
    from blog_posts b left join opportunities o on o.id = b.related_opportunity_id
    order by b.slug`;
  assert.equal(posts[0].slug, "chasing-late-invoices");
  assert.equal(posts[0].external_id, "fx-1");
  assert.equal(posts[0].excerpt, "What 300 threads taught us; thanks to [user]");
  assert.equal(posts[0].updated_at, null);
  assert.equal(posts[1].slug, "draft-flaky-ci");
  assert.equal(posts[1].published_at, null);
  assert.equal(posts[1].external_id, null);
});

dbTest("importLines twice changes nothing the second time", async ({ sql }, t) => {
  await importLines(sql, await goodLines());
  const first = await snapshot(sql);
  const again = await importLines(sql, await goodLines());
  assert.equal(again.changed, false);
  assert.deepEqual(await snapshot(sql), first, "same rows, ids, updated_at and data_version");

  await t.step("a changed record is updated in place and bumps the version", async () => {
    const v = await version(sql);
    const [before] = await sql`select id, updated_at from opportunities where external_id = 'fx-2'`;
    const lines = (await goodLines()).map((l) =>
      l.includes('"fx-2"') ? l.replace('"score":61', '"score":66') : l
    );
    const summary = await importLines(sql, lines);
    assert.equal(summary.changed, true);
    assert.equal(await version(sql), v + 1);
    const [after] = await sql`
      select id, score, updated_at from opportunities where external_id = 'fx-2'`;
    assert.equal(after.id, before.id);
    assert.equal(after.score, 66);
    assert.ok(after.updated_at > before.updated_at);
    const [{ n }] = await sql`select count(*)::int as n from opportunities`;
    assert.equal(n, 3);
  });

  await t.step("evidence is replaced by the file's list", async () => {
    const lines = (await goodLines()).map((l) =>
      l.includes('"fx-2"')
        ? l.replace("Our CI is red half the time for no reason", "Retries hide real failures")
        : l
    );
    await importLines(sql, lines);
    const quotes = await sql`
      select e.quote from evidence_quotes e join opportunities o on o.id = e.opportunity_id
      where o.external_id = 'fx-2'`;
    assert.deepEqual(quotes.map((q) => q.quote), ["Retries hide real failures"]);
    const [{ n }] = await sql`select count(*)::int as n from evidence_quotes`;
    assert.equal(n, 3, "the quotes of other opportunities stay");
  });
});

dbTest("importLines may reference records already in the database", async ({ sql }) => {
  await importFile(sql, GOOD);
  const summary = await importLines(sql, [
    JSON.stringify({
      type: "theme",
      slug: "dunning",
      category: "finance-ops",
      name: "Dunning",
      mentions_30d: 0,
      mentions_prev_30d: 0,
    }),
    JSON.stringify({
      type: "blog_post",
      slug: "flaky-ci-postmortem",
      title: "Flaky CI",
      body_md: "## Body",
      related_opportunity: "fx-2",
      published_at: "2026-06-01T00:00:00Z",
    }),
  ]);
  assert.equal(summary.themes, 1);
  const [post] = await sql`
    select o.external_id from blog_posts b join opportunities o on o.id = b.related_opportunity_id
    where b.slug = 'flaky-ci-postmortem'`;
  assert.equal(post.external_id, "fx-2");
});

dbTest("importLines writes big files in batches with progress", async ({ sql }) => {
  const lines = (await goodLines()).slice(0, 5);
  const count = 12_345;
  for (let i = 0; i < count; i++) {
    lines.push(JSON.stringify({
      ...OPPORTUNITY,
      external_id: `bulk-${i}`,
      title: `Bulk idea number ${i}`,
      score: i % 101,
      evidence: [{ quote: `Quote ${i}`, platform: "reddit", posted_at: "2026-05-01T00:00:00Z" }],
    }));
    // The same opportunity twice in one batch (one upsert cannot touch a row twice).
    if (i === 10) lines.push(JSON.stringify({ ...OPPORTUNITY, external_id: "bulk-5", score: 98 }));
  }
  // And again in a later batch, without evidence this time.
  lines.push(JSON.stringify({ ...OPPORTUNITY, external_id: "bulk-7", score: 99 }));
  const progress: number[] = [];
  const summary = await importLines(sql, lines, { onProgress: (n) => progress.push(n) });
  assert.equal(summary.opportunities, count + 2);
  assert.deepEqual(progress, [5000, 10000]);
  const [{ n, e }] = await sql`
    select (select count(*)::int from opportunities) as n,
      (select count(*)::int from evidence_quotes) as e`;
  assert.equal(n, count);
  assert.equal(e, count - 2, "bulk-5 and bulk-7 were imported again without evidence");
  const scores = await sql`
    select score from opportunities where external_id in ('bulk-5', 'bulk-7') order by 1`;
  assert.deepEqual(scores.map((r) => r.score), [98, 99]);
});

Deno.test("slugify makes short ASCII slugs", () => {
  assert.equal(slugify("Hello, World!"), "hello-world");
  assert.equal(slugify("Crème brûlée -- for   DevOps"), "creme-brulee-for-devops");
  assert.equal(slugify("日本語"), "opportunity");
  const long = slugify("word ".repeat(40));
  assert.ok(long.length <= 80 && !long.endsWith("-"), long);
});

dbTest("ContentWriter.deferIndexes builds the indexes again at the end", async ({ sql }) => {
  const indexes = (db: Sql = sql) =>
    db<{ indexdef: string }[]>`
      select indexdef from pg_indexes
      where schemaname = current_schema() and tablename = 'opportunities' order by indexname`
      .then((rows) => rows.map((r) => r.indexdef));
  const before = await indexes();
  assert.ok(before.some((d) => d.includes("USING gin (search)")));
  const records = (await goodLines()).filter((l) => l.trim()).map((l) => JSON.parse(l));
  await sql.begin(async (tx) => {
    const writer = await ContentWriter.open(tx as unknown as Sql);
    await writer.deferIndexes({ uniqueExternalIds: true });
    // On tx: the embedded database serves no other connection during a transaction.
    const during = await indexes(tx as unknown as Sql);
    assert.ok(during.length < before.length, "dropped while loading");
    for (const record of records) writer.add(record);
    assert.equal(await writer.finish(), true);
  });
  assert.deepEqual(await indexes(), before);
  const [{ n }] = await sql`select count(*)::int as n from evidence_quotes`;
  assert.equal(n, 3);
  const again = await importLines(sql, await goodLines());
  assert.equal(again.changed, false, "the bulk path stored what the import path would");
});

dbTest(
  "importLines keeps line breaks and tabs in multi-line text and https URLs",
  async ({ sql }) => {
    const good = await goodLines();
    await importLines(sql, [
      ...good,
      JSON.stringify({
        ...OPPORTUNITY,
        description: "First line\n\tindented\r\nlast",
        evidence: [{
          quote: "a quote",
          platform: "reddit",
          source_url: "https://www.reddit.com/r/webdev/comments/abc",
          posted_at: "2026-05-01T00:00:00+14:00",
        }],
      }),
    ]);
    const [row] = await sql`select description from opportunities where external_id = 'bad-1'`;
    assert.equal(row.description, "First line\n\tindented\r\nlast");
  },
);

dbTest(
  "importLines stores the longest one-line fields in 4-byte characters (index rows fit)",
  async ({
    sql,
  }) => {
    await importFile(sql, GOOD);
    // 500 characters of 4 bytes that do not compress: every index on these columns (the count
    // index of sql/0010 among them) must stay under PostgreSQL's 2,704-byte index row.
    let seed = 7;
    const wide = () =>
      Array.from({ length: 500 }, () => {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        return String.fromCodePoint(0x10000 + (seed % 0x30000));
      }).join("");
    const platform = wide();
    const summary = await importLines(sql, [
      JSON.stringify({ ...OPPORTUNITY, external_id: "wide-1", platform, channel_name: wide() }),
    ]);
    assert.equal(summary.changed, true);
    const [row] = await sql`select platform from opportunities where external_id = 'wide-1'`;
    assert.equal(row.platform, platform);
  },
);
