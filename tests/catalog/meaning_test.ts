/**
 * Questions read by meaning (src/catalog/meaning/): the sentence encoder loaded once for the file,
 * the catalogue's vectors embedded and stored, a question in other words answered by its theme,
 * framing words read back as filters the items obey, words that changed nothing named, and the
 * vectors of a new import used by the next question. On both engines.
 */
import assert from "node:assert/strict";
import { createContent } from "../../src/catalog/content.ts";
import { readDataVersion } from "../../src/catalog/common.ts";
import { type OpportunityList, OpportunityQuerySchema } from "../../src/catalog/schemas.ts";
import {
  type Encoder,
  loadSentenceEncoder,
  readyEncoder,
  startEncoder,
  stopEncoder,
} from "../../src/catalog/meaning/encoder.ts";
import { meaningSettled, syncMeaning } from "../../src/catalog/meaning/vectors.ts";
import { importLines } from "../../src/ingest/import.ts";
import type { Sql } from "../../src/db/open.ts";
import { dbTest, type TestDb } from "../helpers/db.ts";
import { catalogueLines, type OpportunitySpec } from "../helpers/catalogue_lines.ts";

const THEMES = [
  {
    slug: "invoices",
    name: "Late invoice chasing",
    summary: "Freelancers and agencies wait weeks for clients to pay what they owe",
    mentions_30d: 50,
    mentions_prev_30d: 100,
  },
  {
    slug: "photos",
    name: "Product photo editing",
    summary: "Online shops spend hours retouching pictures of what they sell",
    mentions_30d: 200,
    mentions_prev_30d: 100,
  },
];

// The photo ideas score higher and hold "time" and "clients": by words alone they answer
// "clients who never pay me on time" first.
const ROWS: OpportunitySpec[] = [
  ["i1", "invoices", "Chase late invoices", "Designers wait weeks for payments", 50, 2, 8],
  ["i2", "invoices", "Send polite payment reminders", "Agencies collect unpaid bills", 45, 6, 8],
  ["i3", "invoices", "Collect overdue money", "Unpaid invoices pile up", 40, 3, 4],
  ["p1", "photos", "Save time editing photos for clients", "Etsy sellers edit images", 90, 3, 9],
  ["p2", "photos", "Remove image backgrounds in no time", "Clean product images", 85, 7, 9],
  ["p3", "photos", "Create lifestyle shots", "Product pages convert with photos", 80, 2, 3],
].map(([external_id, theme, title, description, score, tech, pay]) => ({
  external_id: external_id as string,
  theme: theme as string,
  title: title as string,
  description: description as string,
  score,
  tech_difficulty: tech,
  willingness_to_pay_score: pay,
}));

let model: Promise<Encoder> | undefined;

/**
 * `dbTest` with the sentence encoder started: the model is loaded once for the whole file (about
 * a second), and the encoder stopped at the test's end, its background embedding settled, so that
 * no later test reads questions by meaning.
 */
function meaningTest(name: string, fn: (db: TestDb, t: Deno.TestContext) => Promise<void>): void {
  dbTest(name, async (db, t) => {
    model ??= loadSentenceEncoder();
    const loaded = await model;
    assert.ok(
      await startEncoder({ load: () => Promise.resolve(loaded) }),
      "the sentence encoder loads from its npm package",
    );
    try {
      await fn(db, t);
    } finally {
      stopEncoder();
      await meaningSettled(db.sql).catch(() => {});
    }
  });
}

async function setUp(sql: Sql): Promise<void> {
  await importLines(sql, catalogueLines(THEMES, ROWS));
  await syncMeaning(sql, readyEncoder()!);
}

async function ask(sql: Sql, params: Record<string, unknown>): Promise<OpportunityList> {
  const content = createContent(sql, { publicBaseUrl: "x" }, { maxEntries: 0 });
  return await content.listOpportunities(
    await readDataVersion(sql),
    OpportunityQuerySchema.parse(params),
  );
}

async function externalIds(sql: Sql, answer: OpportunityList): Promise<string[]> {
  const rows = await sql<{ id: number; external_id: string }[]>`
    select id, external_id from opportunities`;
  const of = new Map(rows.map((r) => [r.id, r.external_id]));
  return answer.items.map((i) => of.get(i.id)!);
}

meaningTest("a question in other words reaches its theme by meaning", async ({ sql }) => {
  await setUp(sql);
  const [{ n }] = await sql<{ n: number }[]>`select count(*)::int as n from meaning_vectors`;
  // Two themes, one category, six titles.
  assert.equal(n, 9);
  const answer = await ask(sql, { q: "clients who never pay me on time" });
  const ids = await externalIds(sql, answer);
  assert.equal(answer.read_as?.by_meaning, true);
  assert.deepEqual(answer.read_as?.meant_themes.slice(0, 1), ["invoices"]);
  assert.deepEqual(ids.slice(0, 3).sort(), ["i1", "i2", "i3"]);
  // Each item carries its relevance; the invoice ideas above the photo ideas.
  const rel = answer.items.map((i) => i.relevance ?? -1);
  assert.ok(rel[0] > rel[rel.length - 1], `relevance ${rel}`);
  assert.deepEqual(answer.ignored_terms, []);
});

meaningTest("a question that is a theme's name alone is answered by its words", async ({ sql }) => {
  await setUp(sql);
  // The named theme leaves no text to embed (the model cannot embed an empty one).
  const answer = await ask(sql, { q: "late invoice chasing" });
  assert.ok(answer.items.length > 0);
  assert.ok((await externalIds(sql, answer)).every((id) => id.startsWith("i")));
});

meaningTest("framing words become read_as filters that the items obey", async ({ sql }, t) => {
  await setUp(sql);
  await t.step("low effort, willingness to pay: bounds; 'ideas' changed nothing", async () => {
    const answer = await ask(sql, { q: "low effort ideas with high willingness to pay" });
    assert.deepEqual(answer.read_as?.filters, {
      max_tech_difficulty: 4,
      min_willingness_to_pay: 7,
    });
    assert.ok(answer.items.length > 0);
    for (const item of answer.items) {
      assert.ok(item.tech_difficulty <= 4 && item.willingness_to_pay_score >= 7, item.title);
    }
    assert.deepEqual(answer.ignored_terms, ["ideas", "with"]);
    assert.equal(answer.confidence, null);
  });
  await t.step("a parameter passed wins over the words", async () => {
    const answer = await ask(sql, { q: "low effort ideas", max_tech_difficulty: 7 });
    assert.ok(answer.items.some((i) => i.tech_difficulty === 7));
  });
  await t.step("'growing': only themes whose mentions go up (photos)", async () => {
    const answer = await ask(sql, { q: "what is growing in product photos" });
    assert.equal(answer.read_as?.filters.trend, "up");
    assert.ok(answer.items.length > 0);
    assert.deepEqual(
      (await externalIds(sql, answer)).filter((id) => id.startsWith("i")),
      [],
    );
  });
  await t.step("a framing word never drives the suggestions", async () => {
    const answer = await ask(sql, { q: "what could I build for dentists" });
    assert.deepEqual(answer.ignored_terms, ["what could I build"]);
    assert.equal(answer.read_as?.subject, "for dentists");
  });
});

meaningTest("the vectors of a new import are used by the next question", async ({ sql }) => {
  await setUp(sql);
  await importLines(
    sql,
    catalogueLines(
      [...THEMES, {
        slug: "no-shows",
        name: "Restaurant no-show deposits",
        summary: "Diners book a table and never turn up",
      }],
      [...ROWS, {
        external_id: "n1",
        theme: "no-shows",
        title: "Take a card deposit when a table is booked",
        description: "Restaurants lose covers",
        score: 10,
      }],
    ),
  );
  const q = "guests reserve a table for dinner then don't arrive";
  // The first question finds the new theme without a vector: it starts their embedding.
  await ask(sql, { q });
  await meaningSettled(sql);
  const answer = await ask(sql, { q });
  assert.deepEqual((await externalIds(sql, answer)).slice(0, 1), ["n1"]);
  assert.ok(answer.read_as?.meant_themes.includes("no-shows"), JSON.stringify(answer.read_as));
});
