/**
 * Questions in other words (src/catalog/meaning/expansion.ts, sql/0021_word_vectors.sql): the word
 * vectors are loaded by the migration, a question that shares no telling word with a theme finds
 * it, and the lift stays below the question's own words. On both engines.
 */
import assert from "node:assert/strict";
import { createContent } from "../../src/catalog/content.ts";
import { readDataVersion } from "../../src/catalog/common.ts";
import { OpportunityQuerySchema } from "../../src/catalog/schemas.ts";
import { SHARE, themeBoosts, themeLift, warmReading } from "../../src/catalog/meaning/expansion.ts";
import { importLines } from "../../src/ingest/import.ts";
import type { Sql } from "../../src/db/open.ts";
import { dbTest } from "../helpers/db.ts";
import { catalogueLines } from "../helpers/catalogue_lines.ts";

// external_id, theme, title, description, score: the photo ideas score higher and hold "time"
// in their titles, so the words alone rank them first for "clients who never pay me on time".
const ROWS: [string, string, string, string, number][] = [
  ["i1", "invoices", "Chase late invoices", "Designers wait weeks for payments from clients", 50],
  ["i2", "invoices", "Send polite reminders", "Agencies lose hours collecting unpaid bills", 45],
  ["i3", "invoices", "Collect overdue money owed", "Unpaid invoices from clients pile up", 40],
  [
    "p1",
    "photos",
    "Save time editing product photos",
    "Etsy sellers edit pictures for clients",
    90,
  ],
  ["p2", "photos", "Remove image backgrounds in no time", "Shops want clean product images", 85],
  ["p3", "photos", "Create lifestyle shots", "Product pages for clients convert with photos", 80],
];

function lines(extra: typeof ROWS = []): string[] {
  return catalogueLines(
    ["invoices", "photos"],
    [...ROWS, ...extra].map(([external_id, theme, title, description, score]) => ({
      external_id,
      theme,
      title,
      description,
      score,
    })),
  );
}

async function ask(sql: Sql, q: string): Promise<string[]> {
  const content = createContent(sql, { publicBaseUrl: "x" }, { maxEntries: 0 });
  const answer = await content.listOpportunities(
    await readDataVersion(sql),
    OpportunityQuerySchema.parse({ q }),
  );
  const ids = answer.items.map((i) => i.id);
  const rows = await sql<{ id: number; external_id: string }[]>`
    select id, external_id from opportunities`;
  const external = new Map(rows.map((r) => [r.id, r.external_id]));
  return ids.map((id) => external.get(id)!);
}

dbTest("sql/0021_word_vectors.sql loads 100-byte word vectors", async ({ sql }) => {
  const [row] = await sql<{ words: number; odd: number }[]>`
    select count(*)::int as words,
      count(*) filter (where octet_length(v) <> 100)::int as odd from word_vectors`;
  assert.ok(row.words >= 20000, `${row.words} words`);
  assert.equal(row.odd, 0);
  const found = await sql<{ word: string }[]>`
    select word from word_vectors where word in ('owed', 'unpaid', 'invoices')`;
  assert.equal(found.length, 3);
});

dbTest("themeLift reads the theme of a question in other words", async ({ sql }) => {
  await importLines(sql, lines());
  const [invoices] = await sql<{ id: number }[]>`select id from themes where slug = 'invoices'`;
  const lift = await themeLift(sql, "clients who never pay me on time");
  assert.equal(lift.themes[0]?.[0], invoices.id);
  assert.equal(lift.themes[0]?.[1], 1);
  // No word it knows: no theme.
  assert.deepEqual(await themeLift(sql, "zzqx qqzx"), { themes: [] });
});

dbTest("GET q in other words ranks the theme's ideas first", async ({ sql }) => {
  await importLines(sql, lines());
  const ids = await ask(sql, "clients who never pay me on time");
  assert.ok(ids[0]?.startsWith("i"), `first ${ids.join(",")}`);
});

dbTest("the lift never outranks the question's own words", async ({ sql }, t) => {
  await importLines(
    sql,
    lines([
      ["p4", "photos", "Clients never pay on time for photos", "A photo studio's worry", 10],
    ]),
  );
  await t.step("a row holding every word answers alone (match all)", async () => {
    assert.deepEqual(await ask(sql, "clients who never pay me on time"), ["p4"]);
  });
  await t.step("a row's lift is at most SHARE of the question's weight", async () => {
    const rows = await sql<{ id: number; theme_id: number }[]>`
      select id, theme_id from opportunities`;
    const boosts = await themeBoosts(
      sql,
      rows.map((r) => r.id),
      { themes: rows.map((r) => [r.theme_id, 1]) },
      10,
    );
    assert.equal(boosts.size, rows.length);
    for (const b of boosts.values()) assert.ok(b <= SHARE * 10 && b < 10);
  });
});

dbTest("themeLift answers with the last reading while the next is read", async ({ sql }) => {
  await importLines(sql, lines());
  const [invoices] = await sql<{ id: number }[]>`select id from themes where slug = 'invoices'`;
  const q = "clients who never pay me on time";
  assert.equal((await themeLift(sql, q)).themes[0]?.[0], invoices.id);
  // The invoices theme loses its rows: a new reading has no words of it.
  await sql`delete from opportunities where theme_id = ${invoices.id}`;
  const now = Date.now;
  const later = now() + 11 * 60_000;
  Date.now = () => later;
  try {
    // Past the reading's age: the last one answers at once, and the next one is read meanwhile.
    assert.equal((await themeLift(sql, q)).themes[0]?.[0], invoices.id);
    let fresh = false;
    for (let i = 0; i < 100 && !fresh; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      fresh = !(await themeLift(sql, q)).themes.some(([t]) => t === invoices.id);
    }
    assert.ok(fresh, "the next reading replaced the last");
  } finally {
    Date.now = now;
  }
});

dbTest(
  "a server's question does not start the first reading: its warm-up does",
  async ({ sql }) => {
    await importLines(sql, lines());
    const [invoices] = await sql<{ id: number }[]>`select id from themes where slug = 'invoices'`;
    const q = "clients who never pay me on time";
    // A question that does not wait goes without the reading, and leaves it unstarted.
    assert.deepEqual(await themeLift(sql, q, { wait: false }), { themes: [] });
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.deepEqual(await themeLift(sql, q, { wait: false }), { themes: [] });
    await warmReading(sql);
    assert.equal((await themeLift(sql, q, { wait: false })).themes[0]?.[0], invoices.id);
  },
);
