/**
 * The similarity scale of idea match and similar opportunities: an idea the catalogue does not
 * hold stays well below 0.5, an opportunity's own words score 1.0 against it, a duplicate is 1.0,
 * `unmatched_terms` names the idea's words nothing holds, and any text a client can send is
 * answered 200 (REST and MCP alike).
 */
import assert from "node:assert/strict";
import { importLines } from "../../src/ingest/import.ts";
import { IdeaMatchSchema, SimilarListSchema } from "../../src/catalog/similar/similar_schemas.ts";
import { dbTest } from "../helpers/db.ts";
import { catalogueLines } from "../helpers/catalogue_lines.ts";
import { makeKey, mcpPost, restTwinArgs, type TestApp, testApp } from "../helpers/app.ts";
import type { Sql } from "../../src/db/open.ts";

// external_id, theme, title, description
const OPPORTUNITIES: [string, string, string, string][] = [
  [
    "i1",
    "invoices",
    "Chase late invoices for freelance designers",
    "Freelance designers wait weeks for clients to pay. Automatic reminders for unpaid invoices.",
  ],
  [
    "i2",
    "invoices",
    "Late invoice reminders for small agencies",
    "Send reminders when clients pay invoices late, with a payment link in every reminder.",
  ],
  [
    "i3",
    "invoices",
    "Unpaid invoice collection for freelance photographers",
    "Photographers collect what clients owe without awkward calls.",
  ],
  [
    "d1",
    "dentists",
    "Waiting list for dental practices",
    "Dental practices fill empty chairs from a waiting list by text message.",
  ],
  [
    "d2",
    "dentists",
    "Dental appointment reminders",
    "Fewer no-shows for dental practices: reminders a day before each appointment.",
  ],
  [
    "t1",
    "tests",
    "Quarantine flaky tests for backend developers",
    "Backend developers lose hours to flaky tests that fail at random in continuous integration.",
  ],
  [
    "t2",
    "tests",
    "Find slow tests in a large test suite",
    "Developers want to know which tests slow the build and why.",
  ],
];

async function load(sql: Sql, extra: typeof OPPORTUNITIES = []): Promise<Record<string, number>> {
  const themes = ["invoices", "dentists", "tests"];
  const lines = catalogueLines(
    themes.map((slug) => ({ slug, mentions_30d: 10, mentions_prev_30d: 10 })),
    [...OPPORTUNITIES, ...extra].map(([external_id, theme, title, description]) => ({
      external_id,
      theme,
      title,
      description,
      key_features: ["Reminders"],
      target_audience: "Owners",
      competitors: [],
    })),
  );
  await importLines(sql, lines);
  const rows = await sql<{ id: number; external_id: string }[]>`
    select id, external_id from opportunities`;
  return Object.fromEntries(rows.map((r) => [r.external_id, r.id]));
}

async function match(app: TestApp, key: string, text: string) {
  const res = await app.get(`/api/v1/ideas/match?text=${encodeURIComponent(text)}`, key);
  const body = await res.json();
  return { status: res.status, body };
}

interface Item {
  id: number;
  similarity: number;
}

dbTest("idea match: one calibrated scale, 1.0 for the same idea", async (db, t) => {
  const app = testApp(db);
  const ids = await load(db.sql);
  const { key } = await makeKey(db.sql, "pro");

  await t.step("an idea the catalogue does not hold stays well below 0.5", async () => {
    // It shares "reminders" and "clients" with the catalogue, nothing of what it is about.
    const { status, body } = await match(
      app,
      key,
      "Reminders that tell sailboat owners when their clients should rebook hull cleanings",
    );
    assert.equal(status, 200);
    IdeaMatchSchema.parse(body);
    assert.ok(body.opportunities.length > 0, "it shares words with some opportunities");
    for (const list of [body.opportunities, body.themes]) {
      for (const item of list as Item[]) assert.ok(item.similarity < 0.4, `${item.similarity}`);
    }
    // The answer says so, and what to ask instead, with how to ask for it.
    assert.equal(body.confidence, body.opportunities[0].similarity);
    assert.ok(body.suggestions.length > 0);
    for (const s of body.suggestions) {
      assert.deepEqual(s.ask, s.kind === "theme" ? { theme: s.slug } : { category: s.slug });
    }
  });
  await t.step("an opportunity's own title and description score 1.0 against it", async () => {
    const [, , title, description] = OPPORTUNITIES[0];
    const { body } = await match(app, key, `${title}. ${description}`);
    assert.equal(body.opportunities[0].id, ids.i1);
    assert.equal(body.opportunities[0].similarity, 1);
    assert.equal(body.confidence, 1);
    assert.deepEqual(body.suggestions, []);
    assert.ok(body.opportunities.slice(1).every((o: Item) => o.similarity < 0.9));
  });
  await t.step(
    "words an opportunity holds only in its description are not the same idea",
    async () => {
      // "payment link" is in one description and in no title.
      const { body } = await match(app, key, "payment link");
      assert.equal(body.opportunities[0].id, ids.i2);
      const top = body.opportunities[0].similarity;
      assert.ok(top >= 0.5 && top < 0.9, `${top}`);
    },
  );
  await t.step("an idea in other words of one opportunity: above 0.5, below 1", async () => {
    const { body } = await match(
      app,
      key,
      "An app that helps freelance designers chase their late invoices",
    );
    assert.equal(body.opportunities[0].id, ids.i1);
    const top = body.opportunities[0].similarity;
    assert.ok(top >= 0.5 && top < 1, `${top}`);
    assert.equal(body.themes[0].slug, "invoices");
  });
});

dbTest("idea match: unmatched_terms names the words nothing holds", async (db, t) => {
  const app = testApp(db);
  await load(db.sql);
  const { key } = await makeKey(db.sql, "pro");

  await t.step(
    "the idea's own words, in its order, stop words and held words left out",
    async () => {
      const { body } = await match(
        app,
        key,
        "Freelance designers chase late invoices from the Sailboat brokers, brokers again",
      );
      assert.deepEqual(body.unmatched_terms, ["sailboat", "brokers"]);
      assert.ok(!body.terms.includes("sailboat"));
      assert.ok(body.terms.includes("invoic"));
    },
  );
  await t.step("none when every significant word is held", async () => {
    const { body } = await match(app, key, "late invoices for the designers");
    assert.deepEqual(body.unmatched_terms, []);
  });
  await t.step("MCP match_idea answers the same", async () => {
    const text = "Sailboat brokers chase late invoices";
    const rest = await match(app, key, text);
    const res = await mcpPost(app, key, {
      id: 1,
      method: "tools/call",
      params: { name: "match_idea", arguments: restTwinArgs("match_idea", { text }) },
    });
    const { result } = await res.json();
    assert.deepEqual(result.structuredContent, rest.body);
    assert.deepEqual(rest.body.unmatched_terms, ["sailboat", "brokers"]);
  });
});

dbTest("similar opportunities: the same scale, 1.0 for a duplicate", async (db) => {
  const app = testApp(db);
  const [, , title, description] = OPPORTUNITIES[0];
  const ids = await load(db.sql, [["i9", "invoices", title, description]]);
  const { key } = await makeKey(db.sql, "pro");
  const res = await app.get(`/api/v1/opportunities/${ids.i1}/similar`, key);
  assert.equal(res.status, 200);
  const body = SimilarListSchema.parse(await res.json());
  assert.equal(body.items[0].id, ids.i9);
  assert.equal(body.items[0].similarity, 1);
  assert.equal(body.confidence, 1, "the best similarity");
  const others = body.items.slice(1);
  assert.ok(others.every((o) => o.similarity < 0.9));
  const far = others.filter((o) => [ids.t1, ids.t2, ids.d1].includes(o.id));
  assert.ok(far.every((o) => o.similarity < 0.4), JSON.stringify(far));
});

dbTest("idea match answers 200 to long and odd ideas", async (db) => {
  const app = testApp(db);
  await load(db.sql);
  const { key } = await makeKey(db.sql, "pro");
  const words = OPPORTUNITIES.flatMap(([, , title, description]) => `${title} ${description}`)
    .join(" ");
  const odd = [
    words.slice(0, 1000),
    "invoice ".repeat(125),
    "x".repeat(1000),
    "the and of to a",
    "?!?! ... --- ***",
    "a & b | !c :* <-> 'quoted' \"phrase\" \\ back\\slash",
    "'); drop table opportunities; --",
    "café crème brûlée für Zahnärzte",
    "2026 1234 42",
    "🦷🦷 dentists 🦷",
    "tests:* & flaky | (late <-> invoice)",
    "ÆØÅ ß ĳ ﬁ invoices",
  ];
  for (const text of odd) {
    const { status, body } = await match(app, key, text);
    assert.equal(status, 200, `${text}: ${JSON.stringify(body)}`);
    IdeaMatchSchema.parse(body);
    for (const item of body.opportunities as Item[]) {
      assert.ok(item.similarity >= 0 && item.similarity <= 1);
    }
  }
});
