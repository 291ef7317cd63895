import assert from "node:assert/strict";
import { ImportError, importFile, importLines } from "../../src/ingest/import.ts";
import { slugify } from "../../src/ingest/records.ts";
import { ContentWriter } from "../../src/ingest/writer.ts";
import type { Sql } from "../../src/db/open.ts";
import { dbTest } from "../helpers/db.ts";

const GOOD = new URL("../fixtures/import/good.jsonl", import.meta.url).pathname;

async function goodLines(): Promise<string[]> {
  return (await Deno.readTextFile(GOOD)).split("\n");
}

/** Everything an import can touch, to compare a database before and after. */
async function snapshot(sql: Sql): Promise<unknown> {
  return {
    categories: await sql`select * from categories order by id`,
    themes: await sql`select * from themes order by id`,
    opportunities: await sql`select * from opportunities order by id`,
    evidence: await sql`select * from evidence_quotes order by id`,
    blog: await sql`select * from blog_posts order by id`,
    version: await sql`select version, changed_at from data_version`,
  };
}

async function version(sql: Sql): Promise<number> {
  const [{ v }] = await sql<{ v: number }[]>`select version::int as v from data_version`;
  return v;
}

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

const OPPORTUNITY = {
  type: "opportunity",
  external_id: "bad-1",
  theme: "flaky-ci",
  platform: "reddit",
  channel_name: "webdev",
  title: "A bad line",
  recommendation: "Build",
  score: 50,
  pain_point_intensity: 5,
  willingness_to_pay_score: 5,
  tech_difficulty: 5,
  sustainability_score: 5,
  is_online_deliverable: true,
  created_at: "2026-05-01T00:00:00Z",
};

function without(record: Record<string, unknown>, key: string): Record<string, unknown> {
  const copy = { ...record };
  delete copy[key];
  return copy;
}

const BAD_LINES: [string, string, RegExp][] = [
  ["invalid JSON", '{"type":"category","slug":', /^Invalid JSON/],
  ["not an object", "[1, 2]", /^Expected a JSON object$/],
  ["unknown type", JSON.stringify({ type: "author", slug: "x" }), /^Unknown type "author"/],
  ["missing field", JSON.stringify(without(OPPORTUNITY, "score")), /^Field "score" is missing$/],
  [
    "out-of-range score",
    JSON.stringify({ ...OPPORTUNITY, score: 101 }),
    /^Field "score" must be at most 100$/,
  ],
  [
    "out-of-range sub-score",
    JSON.stringify({ ...OPPORTUNITY, tech_difficulty: -1 }),
    /^Field "tech_difficulty" must be at least 0$/,
  ],
  [
    "bad recommendation",
    JSON.stringify({ ...OPPORTUNITY, recommendation: "Maybe" }),
    /^Field "recommendation" must be one of Build, Validate, Skip$/,
  ],
  [
    "bad date in evidence",
    JSON.stringify({
      ...OPPORTUNITY,
      evidence: [{ quote: "q", platform: "reddit", posted_at: "yesterday" }],
    }),
    /^Field "evidence\[0\]\.posted_at" must be an ISO 8601 date-time/,
  ],
  [
    "bad slug",
    JSON.stringify({ type: "category", slug: "Not A Slug", name: "X" }),
    /^Field "slug" must be a slug/,
  ],
  [
    "unknown theme ref",
    JSON.stringify({ ...OPPORTUNITY, theme: "no-such-theme" }),
    /^Unknown theme "no-such-theme"$/,
  ],
  [
    "unknown category ref",
    JSON.stringify({
      type: "theme",
      slug: "orphan",
      category: "no-such-category",
      name: "Orphan",
      mentions_30d: 1,
      mentions_prev_30d: 1,
    }),
    /^Unknown category "no-such-category"$/,
  ],
  [
    "unknown related_opportunity",
    JSON.stringify({
      type: "blog_post",
      slug: "orphan-post",
      title: "Orphan",
      body_md: "x",
      related_opportunity: "no-such-opportunity",
      published_at: null,
    }),
    /^Unknown related_opportunity "no-such-opportunity"$/,
  ],
  // What PostgreSQL would refuse is refused first, with the line and the field.
  [
    "NUL in a title",
    JSON.stringify({ ...OPPORTUNITY, title: "a\u0000b" }),
    /^Field "title" must not contain control characters$/,
  ],
  [
    "tab in a one-line field",
    JSON.stringify({ ...OPPORTUNITY, channel_name: "web\tdev" }),
    /^Field "channel_name" must not contain control characters$/,
  ],
  [
    "escape character in a multi-line field",
    JSON.stringify({ ...OPPORTUNITY, description: "red \u001b[31m text" }),
    /^Field "description" must not contain control characters other than tab and line breaks$/,
  ],
  [
    "NUL in an evidence quote",
    JSON.stringify({
      ...OPPORTUNITY,
      evidence: [{ quote: "\u0000", platform: "reddit", posted_at: "2026-05-01T00:00:00Z" }],
    }),
    /^Field "evidence\[0\]\.quote" must not contain control characters/,
  ],
  [
    "lone surrogate",
    // JSON.stringify writes a lone surrogate as the escape \ud800, as other tools do.
    JSON.stringify({ ...OPPORTUNITY, description: "half \ud800 a pair" }),
    /^Field "description" must not contain unpaired surrogates$/,
  ],
  [
    "lone surrogate in a list item",
    JSON.stringify({ ...OPPORTUNITY, risks: ["fine", "x\udc00"] }),
    /^Field "risks\[1\]" must not contain unpaired surrogates$/,
  ],
  [
    "year 0000",
    JSON.stringify({ ...OPPORTUNITY, created_at: "0000-01-01T00:00:00Z" }),
    /^Field "created_at" must be in year 0001 or later$/,
  ],
  [
    "offset beyond what PostgreSQL stores",
    JSON.stringify({
      ...OPPORTUNITY,
      evidence: [{ quote: "q", platform: "reddit", posted_at: "2026-05-01T00:00:00+23:59" }],
    }),
    /^Field "evidence\[0\]\.posted_at" must have a UTC offset between -15:59 and \+15:59$/,
  ],
  [
    "javascript: cover image",
    JSON.stringify({
      type: "blog_post",
      slug: "xss",
      title: "XSS",
      body_md: "x",
      cover_image_url: "javascript:alert(8)",
    }),
    /^Field "cover_image_url" must be an absolute http or https URL$/,
  ],
  [
    "relative cover image",
    JSON.stringify({
      type: "blog_post",
      slug: "rel",
      title: "Relative",
      body_md: "x",
      cover_image_url: "/images/cover.png",
    }),
    /^Field "cover_image_url" must be an absolute http or https URL$/,
  ],
  [
    "data: evidence source",
    JSON.stringify({
      ...OPPORTUNITY,
      evidence: [{
        quote: "q",
        platform: "reddit",
        source_url: "data:text/html,<script>alert(1)</script>",
        posted_at: "2026-05-01T00:00:00Z",
      }],
    }),
    /^Field "evidence\[0\]\.source_url" must be an absolute http or https URL$/,
  ],
];

dbTest("importLines refuses a bad line, naming it, and writes nothing", async ({ sql }, t) => {
  // Some content already stored, to prove that it survives a refused import untouched.
  await importLines(sql, (await goodLines()).slice(0, 2));
  const before = await snapshot(sql);
  const good = await goodLines();
  for (const [name, line, reason] of BAD_LINES) {
    await t.step(name, async () => {
      // Good lines first (they reference each other), then the bad one as line 12.
      const lines = [...good.slice(0, 11), line, ...good.slice(11)];
      const error = await importLines(sql, lines).then(
        () => assert.fail("the import was accepted"),
        (e) => e,
      );
      assert.ok(error instanceof ImportError, String(error));
      assert.equal(error.line, 12);
      assert.match(error.message, /^Line 12: /);
      assert.match(error.reason, reason);
      assert.deepEqual(await snapshot(sql), before, "nothing was written");
    });
  }
});

dbTest("importLines checks references against earlier lines only", async ({ sql }) => {
  const error = await importLines(sql, [
    JSON.stringify({ ...OPPORTUNITY, theme: "later" }),
    JSON.stringify({ type: "category", slug: "c", name: "C" }),
    JSON.stringify({
      type: "theme",
      slug: "later",
      category: "c",
      name: "Later",
      mentions_30d: 1,
      mentions_prev_30d: 1,
    }),
  ]).catch((e) => e);
  assert.ok(error instanceof ImportError);
  assert.equal(error.line, 1);
  const [{ n }] = await sql`select count(*)::int as n from categories`;
  assert.equal(n, 0);
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

dbTest("importLines names the lines of a batch the database refuses", async ({ sql }) => {
  // A rule the record format does not know stands in for any refusal of the database.
  await sql`alter table categories add constraint test_refused check (name <> 'Refused')`;
  const error = await importLines(sql, [
    JSON.stringify({ type: "category", slug: "a", name: "A" }),
    "",
    JSON.stringify({ type: "category", slug: "b", name: "Refused" }),
    JSON.stringify({ type: "category", slug: "c", name: "C" }),
  ]).catch((e) => e);
  assert.ok(error instanceof ImportError, String(error));
  assert.equal(error.line, 1);
  assert.equal(error.lastLine, 4);
  assert.match(
    error.message,
    /^Lines 1-4: The database refused a record of these lines: .*test_refused/,
  );
  const [{ n }] = await sql`select count(*)::int as n from categories`;
  assert.equal(n, 0);
});

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
