/**
 * How well an answer to `q` addresses it (src/catalog/questions/judge.ts, confidence.ts,
 * suggestions.ts) and how a question is read (framing.ts, subject.ts), on the demo data (2,000
 * opportunities), on both engines:
 * - calibration: questions made from the data's words
 *   (bench/questions/relevance_questions.ts) answer with a confidence of 0.5 or more, questions
 *   on what it does not cover
 *   (tests/helpers/outside_questions.ts) below 0.5, with their unmatched words and suggestions;
 * - the fields: relevance on each item with q only, confidence null without q;
 * - framing words do not drive the answer, a named category ranks its opportunities first.
 */
import assert from "node:assert/strict";
import { createContent } from "../../src/catalog/content.ts";
import { readDataVersion } from "../../src/catalog/common.ts";
import { type OpportunityList, OpportunityQuerySchema } from "../../src/catalog/schemas.ts";
import { generateDemoRecords } from "../../src/ingest/seed.ts";
import { relevanceQuestions } from "../../bench/questions/relevance_questions.ts";
import { OUTSIDE_QUESTIONS } from "../helpers/outside_questions.ts";
import { dbTest } from "../helpers/db.ts";
import { readSubject } from "../../src/catalog/questions/subject.ts";
import type { Sql } from "../../src/db/open.ts";

const OPPORTUNITIES = 2000;
const INSIDE = 120;

/** The content operations on a test's database (seeded with OPPORTUNITIES demo rows). */
async function setup(sql: Sql, forcePlans: boolean) {
  const content = createContent(sql, { publicBaseUrl: "x", forcePlans }, { maxEntries: 0 });
  const version = await readDataVersion(sql);
  const themeOf = new Map(
    (await sql<{ id: number; category: string }[]>`
      select o.id, c.slug as category from opportunities o
      join themes t on t.id = o.theme_id join categories c on c.id = t.category_id`)
      .map((r) => [r.id, r.category]),
  );
  const ask = (params: Record<string, unknown>): Promise<OpportunityList> =>
    content.listOpportunities(version, OpportunityQuerySchema.parse(params));
  return { ask, categoryOf: (id: number) => themeOf.get(id) };
}

dbTest("confidence: calibrated on questions inside and outside the catalogue", async (db, t) => {
  const { ask } = await setup(db.sql, db.engine === "postgres");

  await t.step("questions from the data's words: 0.5 or more", async () => {
    const questions = relevanceQuestions(generateDemoRecords({ opportunities: OPPORTUNITIES }), {
      count: INSIDE,
    });
    const low: string[] = [];
    for (const { q } of questions) {
      const answer = await ask({ q, page_size: 5 });
      if ((answer.confidence ?? 0) < 0.5) low.push(`${q}: ${answer.confidence}`);
      assert.equal(answer.suggestions.length, 0, q);
    }
    console.log(`inside: ${questions.length - low.length} of ${questions.length} at 0.5 or more`);
    assert.deepEqual(low, []);
  });

  await t.step("questions on what it does not cover: below 0.5, with suggestions", async () => {
    const high: string[] = [];
    for (const q of OUTSIDE_QUESTIONS) {
      const answer = await ask({ q, page_size: 5 });
      if (answer.confidence === null || answer.confidence >= 0.5) {
        high.push(`${q}: ${answer.confidence}`);
      }
      assert.ok(answer.unmatched_terms.length > 0, `${q}: some word is unmatched`);
      assert.ok(answer.suggestions.length > 0, `${q}: suggestions`);
      for (const item of answer.items) assert.ok(item.relevance! < 0.5, q);
    }
    console.log(
      `outside: ${OUTSIDE_QUESTIONS.length - high.length} of ${OUTSIDE_QUESTIONS.length} below 0.5`,
    );
    assert.deepEqual(high, []);
  });

  await t.step("the issue's examples: nothing on dentists, no podcasts", async () => {
    const dentists = await ask({ q: "SaaS opportunities for dentists" });
    assert.ok(dentists.confidence! < 0.5);
    assert.deepEqual(dentists.unmatched_terms, ["dentists"]);
    const podcast = await ask({ q: "podcast editing is too slow" });
    assert.ok(podcast.confidence! < 0.5);
    assert.deepEqual(podcast.unmatched_terms, ["podcast"]);
    // The nearest theme is suggested, with how to ask for it.
    const photos = podcast.suggestions.find((s) => s.slug === "product-photos");
    assert.deepEqual(photos?.ask, { theme: "product-photos" });
    assert.ok(podcast.suggestions.some((s) => s.kind === "category" && s.ask.category === s.slug));
    for (const s of podcast.suggestions) {
      assert.deepEqual(s.ask, s.kind === "theme" ? { theme: s.slug } : { category: s.slug });
    }
    // Asked again so, the answer is that theme's opportunities, all of them.
    const within = await ask({ ...photos!.ask, page_size: 100 });
    const [{ n }] = await db.sql<{ n: number }[]>`
      select count(*)::int as n from opportunities o join themes t on t.id = o.theme_id
      where t.slug = 'product-photos' and o.is_online_deliverable`;
    assert.ok(n > 0);
    assert.equal(within.total, n);
    const ids = within.items.map((i) => i.id);
    const inTheme = await db.sql<{ id: number }[]>`
      select o.id from opportunities o join themes t on t.id = o.theme_id
      where t.slug = 'product-photos' and o.id in ${db.sql(ids)}`;
    assert.equal(inTheme.length, ids.length);
  });
}, { seed: { opportunities: OPPORTUNITIES } });

dbTest("confidence: the fields with and without q", async (db, t) => {
  const { ask } = await setup(db.sql, db.engine === "postgres");

  await t.step("without q: no relevance, confidence null", async () => {
    const list = await ask({ page_size: 3 });
    assert.equal(list.confidence, null);
    assert.deepEqual(list.unmatched_terms, []);
    assert.deepEqual(list.suggestions, []);
    for (const item of list.items) assert.equal("relevance" in item, false);
  });

  await t.step("with q: each item's relevance, the best is the confidence", async () => {
    const list = await ask({ q: "chase late invoices for freelance designers", page_size: 5 });
    assert.equal(list.items.length, 5);
    for (const item of list.items) assert.ok(item.relevance! >= 0 && item.relevance! <= 1);
    assert.equal(list.confidence, Math.max(...list.items.map((i) => i.relevance!)));
    assert.equal(list.confidence, 1);
    // The same confidence on every page and in every order.
    const next = await ask({ q: "chase late invoices for freelance designers", page: 2 });
    const byScore = await ask({ q: "chase late invoices for freelance designers", sort: "score" });
    assert.equal(next.confidence, list.confidence);
    assert.equal(byScore.confidence, list.confidence);
  });
}, { seed: { opportunities: OPPORTUNITIES } });

dbTest("framing words do not drive the answer; a named category comes first", async (db, t) => {
  const { ask, categoryOf } = await setup(db.sql, db.engine === "postgres");

  await t.step("what is growing in developer tools this quarter: developer tools", async () => {
    const list = await ask({ q: "what is growing in developer tools this quarter" });
    assert.ok(list.items.length > 0);
    for (const item of list.items) {
      assert.equal(categoryOf(item.id), "developer-tools", item.title);
      assert.doesNotMatch(item.title, /quarter/i);
    }
    assert.ok(list.confidence! >= 0.5);
  });

  await t.step("a category named with other words: its rows that hold them", async () => {
    // Spreadsheets are in four categories' titles; no title says "e-commerce".
    const list = await ask({ q: "e-commerce without a spreadsheet" });
    assert.ok(list.items.length > 0);
    for (const item of list.items) {
      assert.equal(categoryOf(item.id), "ecommerce", item.title);
      assert.match(item.title, /spreadsheet/i);
    }
    assert.ok(list.confidence! >= 0.5);
    const all = await ask({ q: "without a spreadsheet", page_size: 100 });
    assert.ok(all.items.some((i) => categoryOf(i.id) !== "ecommerce"), "others have them too");
  });

  await t.step(
    "a name is its words, not their stem: product and production name nothing",
    async () => {
      const read = (q: string) => readSubject(db.sql, q, (_key, compute) => compute());
      // "productivity", "product" and "production" share the stem "product".
      for (const q of ["keep product quantities the same on every site", "production secrets"]) {
        assert.equal((await read(q))?.named, undefined, q);
      }
      assert.equal((await read("productivity for remote teams"))?.named?.slug, "productivity");
      assert.equal((await read("flaky tests in developer tools"))?.named?.slug, "developer-tools");
    },
  );

  await t.step("framing words alone: the list as without q, not rows holding them", async () => {
    // "low effort" is a filter read from words (read_as.filters): the list with it.
    for (
      const [q, filters] of [
        ["startup ideas this quarter", {}],
        ["low effort side project ideas", { max_tech_difficulty: 4 }],
      ] as const
    ) {
      const plain = await ask({ page_size: 20, ...filters });
      const list = await ask({ q, page_size: 20 });
      assert.deepEqual(list.items.map((i) => i.id), plain.items.map((i) => i.id), q);
      assert.equal(list.total, plain.total, q);
      assert.equal(list.confidence, null, q);
      assert.deepEqual(list.read_as?.filters, filters, q);
    }
  });

  await t.step("framing words around a subject: the subject's answer", async () => {
    const bare = await ask({ q: "quarantine flaky tests" });
    const framed = await ask({ q: "startup ideas to quarantine flaky tests this quarter" });
    assert.deepEqual(framed.items.map((i) => i.id), bare.items.map((i) => i.id));
    assert.equal(framed.total, bare.total);
  });
}, { seed: { opportunities: OPPORTUNITIES } });
