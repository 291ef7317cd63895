/**
 * `q` read as a question (sql/0013_search_english.sql, src/catalog/questions/search.ts): English
 * stems, prefixes on stems, short words whole, stop words optional outside quotes and counted
 * inside them, best match with `match`, relevance by default with q (title above description,
 * rare words above common ones, ties by score), exclusions under best match, the blog alike,
 * and search_terms kept in step with writes. Through the cached content operations that REST
 * and MCP both call, on both engines.
 */
import assert from "node:assert/strict";
import { createContent } from "../../src/catalog/content.ts";
import { readDataVersion } from "../../src/catalog/common.ts";
import { BlogQuerySchema, OpportunityQuerySchema } from "../../src/catalog/schemas.ts";
import { importLines } from "../../src/ingest/import.ts";
import type { Sql } from "../../src/db/open.ts";
import { dbTest } from "../helpers/db.ts";
import { oneThemeLines } from "../helpers/imports.ts";

const TEXTS: [string, string, string, number, string][] = [
  // external_id, title, description, score, created_at
  ["u1", "Chase late invoices for freelance designers", "Reminders get designers paid", 70, "01"],
  [
    "u2",
    "Invoicing tool for agencies",
    "Send invoices and track payments of freelancers",
    90,
    "02",
  ],
  ["u3", "Freelance designers portfolio builder", "Show work to clients", 80, "03"],
  ["u4", "Invoiced payments dashboard", "Made for accountants", 60, "04"],
  ["u5", "Quokka email triage for designers", "A rare feature", 50, "05"],
  ["u6", "AI waiting list for dentists", "Fill the chairs with patients", 40, "06"],
];

function lines(): string[] {
  return [
    ...oneThemeLines(
      TEXTS.map(([external_id, title, description, score, day]) => ({
        external_id,
        title,
        description,
        score,
        day: `2026-05-${day}`,
      })),
    ),
    ...[
      ["chasing", "Chasing invoices", "What freelancers do", "2026-05-01"],
      ["quokka", "The quokka report", "Rare animals of the market", "2026-05-02"],
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

interface Answer {
  ids: string[];
  total: number;
  match: string;
}

async function setup(sql: Sql) {
  await importLines(sql, lines());
  const byId = new Map(
    (await sql<{ id: number; external_id: string }[]>`select id, external_id from opportunities`)
      .map((r) => [r.id, r.external_id]),
  );
  const content = createContent(sql, { publicBaseUrl: "x" }, { maxEntries: 0 });
  const ask = async (params: Record<string, unknown>): Promise<Answer> => {
    const list = await content.listOpportunities(
      await readDataVersion(sql),
      OpportunityQuerySchema.parse(params),
    );
    return { ids: list.items.map((i) => byId.get(i.id)!), total: list.total, match: list.match };
  };
  const blog = async (q: string) => {
    const list = await content.listBlogPosts(
      await readDataVersion(sql),
      BlogQuerySchema.parse({ q }),
    );
    return { slugs: list.items.map((i) => i.slug), total: list.total, match: list.match };
  };
  return { ask, blog };
}

const sorted = (ids: string[]) => [...ids].sort();

dbTest("q: English stems, prefixes on stems, whole short words", async (db, t) => {
  const { ask } = await setup(db.sql);
  await t.step("invoicing, invoices and invoiced find each other", async () => {
    for (const q of ["invoicing", "invoices", "invoiced", "invoice"]) {
      assert.deepEqual(sorted((await ask({ q })).ids), ["u1", "u2", "u4"], q);
    }
  });
  await t.step("freelance finds freelancers, and the other way", async () => {
    assert.deepEqual(sorted((await ask({ q: "freelance" })).ids), ["u1", "u2", "u3"]);
    assert.deepEqual(sorted((await ask({ q: "freelancers" })).ids), ["u1", "u2", "u3"]);
  });
  await t.step("a word still matches as a prefix: invoi finds invoices", async () => {
    assert.deepEqual(sorted((await ask({ q: "invoi" })).ids), ["u1", "u2", "u4"]);
    assert.deepEqual(sorted((await ask({ q: "dentis" })).ids), ["u6"]);
  });
  await t.step("words of one or two letters match whole words: ai is not email", async () => {
    const answer = await ask({ q: "ai" });
    assert.deepEqual(answer.ids, ["u6"]);
    assert.equal(answer.match, "all");
  });
});

dbTest("q: stop words need not match, except inside quotes", async (db, t) => {
  const { ask } = await setup(db.sql);
  await t.step("for, with, the, to, a are not required", async () => {
    const answer = await ask({ q: "an invoicing tool with the agencies to a" });
    assert.deepEqual(answer, { ids: ["u2"], total: 1, match: "all" });
  });
  await t.step("a question with stop words finds what its words find", async () => {
    assert.deepEqual(
      (await ask({ q: "tool for chasing late invoices of the freelance designers" })).ids[0],
      "u1",
    );
  });
  await t.step("inside a phrase a stop word counts", async () => {
    assert.deepEqual((await ask({ q: '"list for dentists"' })).ids, ["u6"]);
    const without = await ask({ q: '"waiting list dentists"' });
    assert.deepEqual(without, { ids: [], total: 0, match: "all" }, "the phrase needs its for");
  });
  await t.step("a q of stop words only still means its words", async () => {
    assert.deepEqual((await ask({ q: "the" })).ids, ["u6"]);
  });
});

dbTest("q: best match, relevance and exclusions", async (db, t) => {
  const { ask } = await setup(db.sql);
  await t.step("every word together: match all, total exact", async () => {
    assert.deepEqual(await ask({ q: "freelance designers" }), {
      ids: ["u1", "u3"],
      total: 2,
      match: "all",
    });
  });
  await t.step("no row has every word: the rows with the most words, match any", async () => {
    const answer = await ask({ q: "chase late invoices for freelance designers portfolio" });
    assert.equal(answer.match, "any");
    // u1: chase late invoices freelance designers (5); u3: freelance designers portfolio (3);
    // u2: invoices freelancers (2); u4 invoiced, u5 designers (1).
    assert.deepEqual(answer.ids, ["u1", "u3", "u2", "u4", "u5"]);
    assert.equal(answer.total, 5);
  });
  await t.step("best match never answers an empty page while some word matches", async () => {
    const answer = await ask({ q: "quokka invoices" });
    assert.equal(answer.match, "any");
    assert.equal(answer.total, 4);
    assert.equal(answer.ids[0], "u5", "one word each: the rare word first");
    assert.deepEqual(sorted(answer.ids), ["u1", "u2", "u4", "u5"]);
    assert.deepEqual(await ask({ q: "zebra unicorn" }), { ids: [], total: 0, match: "all" });
  });
  await t.step("exclusions still exclude under best match", async () => {
    const answer = await ask({ q: "quokka invoices -agencies" });
    assert.equal(answer.match, "any");
    assert.deepEqual(sorted(answer.ids), ["u1", "u4", "u5"]);
    assert.equal(answer.total, 3);
    const phrase = await ask({ q: 'quokka invoices -"late invoices"' });
    assert.deepEqual(sorted(phrase.ids), ["u2", "u4", "u5"]);
  });
  await t.step("best match pages, with the same total on every page", async () => {
    const q = "chase late invoices for freelance designers portfolio";
    const pages = [];
    for (let page = 1; page <= 3; page++) {
      const answer = await ask({ q, page, page_size: 2 });
      assert.equal(answer.total, 5);
      pages.push(...answer.ids);
    }
    assert.deepEqual(pages, ["u1", "u3", "u2", "u4", "u5"]);
  });
  await t.step("with q and no sort: relevance, the title above the description", async () => {
    // u1 has designers in its title and description, u3 and u5 in their titles only (tie:
    // by score, u3 80 before u5 50).
    assert.deepEqual((await ask({ q: "designers" })).ids, ["u1", "u3", "u5"]);
    assert.deepEqual((await ask({ q: "designers", sort: "relevance" })).ids, ["u1", "u3", "u5"]);
    assert.deepEqual((await ask({ q: "designers", sort: "score" })).ids, ["u3", "u1", "u5"]);
    assert.deepEqual((await ask({ q: "designers", sort: "newest" })).ids, ["u5", "u3", "u1"]);
    // Freelancers only in u2's description: last, though its score is the best (u1 and u3
    // tie, by score).
    assert.deepEqual((await ask({ q: "freelancers" })).ids, ["u3", "u1", "u2"]);
  });
  await t.step("without q the order stays score", async () => {
    assert.deepEqual((await ask({})).ids, ["u2", "u3", "u1", "u4", "u5", "u6"]);
    assert.equal((await ask({})).match, "all");
  });
});

dbTest("blog q: stems and best match with match", async (db) => {
  const { blog } = await setup(db.sql);
  assert.deepEqual(await blog("chase invoice"), { slugs: ["chasing"], total: 1, match: "all" });
  assert.deepEqual(await blog("invoices of rare quokkas"), {
    slugs: ["quokka", "chasing"],
    total: 2,
    match: "any",
  });
  assert.deepEqual(await blog("quokka -animals"), { slugs: [], total: 0, match: "all" });
  assert.deepEqual(await blog("invoices quokka -animals"), {
    slugs: ["chasing"],
    total: 1,
    match: "any",
  });
});

dbTest("search_terms counts the documents of every lexeme, in step with writes", async (db) => {
  const { ask } = await setup(db.sql);
  const docs = async (term: string) =>
    (await db.sql<{ docs: number }[]>`select docs from search_terms where term = ${term}`)[0]
      ?.docs ?? 0;
  assert.equal(await docs(""), 6, "the row count");
  assert.equal(await docs("invoic"), 3);
  assert.equal(await docs("quokka"), 1);
  // An import that changes u5's words moves the counts by its lexemes only.
  const changed = lines().map((line) =>
    line.replace("Quokka email triage", "Invoice email triage")
  );
  await importLines(db.sql, changed);
  assert.equal(await docs("quokka"), 0);
  assert.equal(await docs("invoic"), 4);
  assert.equal(await docs(""), 6);
  assert.deepEqual(sorted((await ask({ q: "invoices" })).ids), ["u1", "u2", "u4", "u5"]);
});
