/**
 * The meaning of `q` (sql/0003_search.sql): word prefixes, any case and accents, "phrases",
 * -exclusions, OR, punctuation that never fails, and the three sorts with stable paging; the
 * same on the opportunity list and the blog list, on both engines.
 */
import assert from "node:assert/strict";
import { listBlogPosts } from "../../src/catalog/blog_posts.ts";
import { countOpportunities, listOpportunityPage } from "../../src/catalog/lists/opportunities.ts";
import { OpportunityQuerySchema } from "../../src/catalog/schemas.ts";
import { importLines } from "../../src/ingest/import.ts";
import type { Sql } from "../../src/db/open.ts";
import { dbTest } from "../helpers/db.ts";
import { oneThemeLines } from "../helpers/imports.ts";

const TEXTS: [string, string, string, number, string][] = [
  // external_id, title, description, score, created_at
  ["s1", "Invoicing assistant for AI-powered agencies", "Helps café owners", 80, "2026-05-01"],
  ["s2", "Email triage for paid maintainers", "Fewer emails, more time", 70, "2026-05-02"],
  ["s3", "Invoices in one click", "Works with node.js and c++ build tools", 90, "2026-05-03"],
  ["s4", "The quick brown fox", "It jumps over the lazy dog", 60, "2026-05-04"],
  ["s5", "Lazy dog walking app", "A quick fox would walk it too", 60, "2026-05-05"],
  ["s6", "AI CRM for B2B SaaS", "An API-first tool", 50, "2026-05-06"],
];

function lines(): string[] {
  return [
    ...oneThemeLines(
      TEXTS.map(([external_id, title, description, score, day]) => ({
        external_id,
        title,
        description,
        score,
        day,
      })),
    ),
    ...[
      ["cafe-guide", "A café guide for AI founders", "Accents and case", "2026-05-01"],
      ["fox-story", "The quick brown fox", "A story about lazy dogs", "2026-05-02"],
    ].map(([slug, title, excerpt, day]) => ({
      type: "blog_post",
      slug,
      title,
      excerpt,
      body_md: "Body",
      published_at: `${day}T08:00:00Z`,
    })),
  ].map((r) => JSON.stringify(r));
}

async function ids(sql: Sql, params: Record<string, unknown>): Promise<string[]> {
  const query = OpportunityQuerySchema.parse(params);
  const rows = await listOpportunityPage(sql, query);
  const total = await countOpportunities(sql, query);
  assert.ok(total >= rows.length, "the total counts at least the page");
  const byId = new Map(
    (await sql<{ id: number; external_id: string }[]>`select id, external_id from opportunities`)
      .map((r) => [r.id, r.external_id]),
  );
  return rows.map((r) => byId.get(r.id)!);
}

dbTest("q: full-text search with word prefixes, phrases, exclusions and OR", async (db, t) => {
  await importLines(db.sql, lines());
  const match = (q: string) => ids(db.sql, { q, sort: "newest" });

  await t.step("a word matches as a word prefix, in title or description", async () => {
    assert.deepEqual(await match("invoic"), ["s3", "s1"]);
    assert.deepEqual(await match("invoices"), ["s3", "s1"], "English stems: invoic");
    assert.deepEqual(await match("owners"), ["s1"]);
    assert.deepEqual(await match("nvoice"), [], "the middle of a word does not match");
  });
  await t.step("one- and two-letter words match whole words: ai is not email or paid", async () => {
    assert.deepEqual(await match("ai"), ["s6", "s1"]);
    assert.deepEqual(await match("AI"), ["s6", "s1"]);
    assert.deepEqual(await match("c"), ["s3"], "c++ is the word c");
  });
  await t.step("case and accents do not matter", async () => {
    assert.deepEqual(await match("cafe"), ["s1"]);
    assert.deepEqual(await match("CAFÉ"), ["s1"]);
    assert.deepEqual(await match("Invoicing"), ["s3", "s1"]);
  });
  await t.step("every plain word must match", async () => {
    assert.deepEqual(await match("quick fox"), ["s5", "s4"]);
    assert.deepEqual(await match("quick invoices"), []);
  });
  await t.step('"a phrase" matches its words adjacent and in order', async () => {
    assert.deepEqual(await match('"quick brown fox"'), ["s4"]);
    assert.deepEqual(await match('"fox quick"'), []);
    assert.deepEqual(await match('"lazy dog"'), ["s5", "s4"]);
    assert.deepEqual(await match('"quick fox"'), ["s5"]);
  });
  await t.step("-word excludes", async () => {
    assert.deepEqual(await match("lazy -walking"), ["s4"]);
    assert.deepEqual(await match('fox -"brown fox"'), ["s5"]);
  });
  await t.step("a OR b matches either", async () => {
    assert.deepEqual(await match("invoices OR email"), ["s3", "s2", "s1"]);
    assert.deepEqual(await match("crm or triage"), ["s6", "s2"]);
  });
  await t.step("hyphenated and dotted words", async () => {
    assert.deepEqual(await match("AI-powered"), ["s1"]);
    assert.deepEqual(await match("powered"), ["s1"]);
    assert.deepEqual(await match("node.js"), ["s3"]);
    assert.deepEqual(await match("node"), ["s3"]);
    assert.deepEqual(await match("api"), ["s6"]);
  });
  await t.step("punctuation, operators alone and symbols never fail", async () => {
    const cases = [
      "c++",
      "node.js",
      '"unclosed',
      "--",
      "OR",
      "-",
      "🙂",
      "%_\\".repeat(33),
      "'",
      "a & b | !c <-> d",
      "(",
      ":*",
    ];
    for (const q of cases) {
      const query = OpportunityQuerySchema.parse({ q });
      await listOpportunityPage(db.sql, query);
      await countOpportunities(db.sql, query);
    }
    assert.deepEqual(await match("🙂"), [], "no word: nothing matches");
    assert.deepEqual(await match('"lazy dog'), ["s5", "s4"], "an unclosed phrase runs to the end");
  });
  await t.step("a run of dashes, spaced or not, is one exclusion and never fails", async () => {
    assert.deepEqual(await match(`lazy ${"-".repeat(40)}walking`), ["s4"]);
    assert.deepEqual(await match(`lazy ${"- ".repeat(40)}walking`), ["s4"]);
    assert.deepEqual(await match(`lazy -- - walking`), ["s4"]);
    assert.deepEqual(await match(`${"-".repeat(99)}x`), ["s6", "s5", "s4", "s3", "s2", "s1"]);
    assert.deepEqual(await match("-".repeat(100)), [], "no word: nothing matches");
    const ranked = await ids(db.sql, { q: `fox ${"-".repeat(40)}brown`, sort: "relevance" });
    assert.deepEqual(ranked, ["s5"]);
  });
  await t.step(
    "apps and app find each other: English stems (sql/0013_search_english.sql)",
    async () => {
      assert.deepEqual(await match("app"), ["s5"]);
      assert.deepEqual(await match("apps"), ["s5"]);
    },
  );
});

dbTest("sort: score, newest and relevance, each with stable paging", async (db, t) => {
  await importLines(db.sql, lines());
  const all = async (params: Record<string, unknown>) => {
    const pages: string[] = [];
    for (let page = 1; page <= 4; page++) {
      pages.push(...await ids(db.sql, { ...params, page, page_size: 2 }));
    }
    return pages;
  };
  await t.step("score: best first, then newest, then id (the default)", async () => {
    assert.deepEqual(await all({}), ["s3", "s1", "s2", "s5", "s4", "s6"]);
    assert.deepEqual(await all({ sort: "score" }), await all({}));
  });
  await t.step("newest: created_at, then id", async () => {
    assert.deepEqual(await all({ sort: "newest" }), ["s6", "s5", "s4", "s3", "s2", "s1"]);
  });
  await t.step("relevance: the better match first, ties by score", async () => {
    // s5 has "lazy dog" in its title, s4 in its description: equal density, s4/s5 tie on
    // score and s5 is newer.
    assert.deepEqual(await all({ q: "lazy dog", sort: "relevance" }), ["s5", "s4"]);
    // Both words in s4's title, against one each in s5's title and description.
    const ranked = await all({ q: "quick OR fox OR brown", sort: "relevance" });
    assert.equal(ranked[0], "s4");
    assert.deepEqual([...ranked].sort(), ["s4", "s5"]);
  });
  await t.step("relevance needs q: 422 on the sort parameter", () => {
    const result = OpportunityQuerySchema.safeParse({ sort: "relevance" });
    assert.equal(result.success, false);
    assert.deepEqual(result.error?.issues[0].path, ["sort"]);
    assert.equal(OpportunityQuerySchema.safeParse({ sort: "oldest" }).success, false);
  });
});

dbTest("blog q has the meaning of the opportunity list's q", async (db) => {
  await importLines(db.sql, lines());
  const slugs = async (q: string) =>
    (await listBlogPosts(db.sql, { q, page: 1, page_size: 20 }, { publicBaseUrl: "x" })).items
      .map((i) => i.slug);
  assert.deepEqual(await slugs("cafe"), ["cafe-guide"]);
  assert.deepEqual(await slugs("ai"), ["cafe-guide"]);
  assert.deepEqual(await slugs('"brown fox" -cafe'), ["fox-story"]);
  assert.deepEqual(await slugs("dog"), ["fox-story"], "a prefix: dog finds dogs");
  assert.deepEqual(await slugs("founders OR story"), ["fox-story", "cafe-guide"]);
  assert.deepEqual(await slugs("%_\\"), []);
  assert.deepEqual(await slugs(`fox ${"- ".repeat(45)}brown`), [], "one exclusion");
  assert.deepEqual(await slugs(`guide ${"-".repeat(60)}fox`), ["cafe-guide"]);
});
