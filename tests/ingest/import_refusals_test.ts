/**
 * The JSONL import refusing what it cannot store (docs/import.md): each bad line named, nothing
 * written, references checked against earlier lines only, a batch the database refuses named.
 */
import assert from "node:assert/strict";
import { ImportError, importLines } from "../../src/ingest/import.ts";
import { dbTest } from "../helpers/db.ts";
import { goodLines, OPPORTUNITY, snapshot } from "../helpers/imports.ts";

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
