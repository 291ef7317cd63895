/**
 * The learned reading of a question's theme (src/catalog/meaning/theme_words.ts): its examples come
 * from the catalogue's own texts on both engines, and the trained model reads a question in words
 * the catalogue never uses.
 */
import assert from "node:assert/strict";
import {
  readThemeWords,
  scoreThemeWords,
  trainThemeWords,
} from "../../src/catalog/meaning/theme_words.ts";
import { importLines } from "../../src/ingest/import.ts";
import type { Sql } from "../../src/db/open.ts";
import { dbTest } from "../helpers/db.ts";
import { catalogueLines } from "../helpers/catalogue_lines.ts";

// Sentences written for both themes: texts of two themes, left out.
const SHARED = "Nobody owns this problem yet. Nobody owns the fix.";
const ROWS: [string, string, string, string][] = [
  ["i1", "invoices", "Chase late invoices", `Designers wait weeks for payments. ${SHARED}`],
  ["i2", "invoices", "Send polite payment reminders", `Agencies collect unpaid bills. ${SHARED}`],
  ["i3", "invoices", "Collect overdue payments", `Unpaid invoices pile up. ${SHARED}`],
  ["p1", "photos", "Edit product photos", `Sellers retouch pictures. ${SHARED}`],
  ["p2", "photos", "Remove image backgrounds", `Shops want clean product images. ${SHARED}`],
  ["p3", "photos", "Create lifestyle product photos", `Pages convert with pictures. ${SHARED}`],
];

function lines(): string[] {
  return catalogueLines(
    ["invoices", "photos"],
    ROWS.map(([external_id, theme, title, description]) => ({
      external_id,
      theme,
      title,
      description,
    })),
  );
}

function unit(bytes: Uint8Array): Float32Array {
  const v = new Float32Array(new Int8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  const n = Math.hypot(...v) || 1;
  return v.map((x) => x / n);
}

async function vectors(sql: Sql, words: string[]): Promise<Float32Array[]> {
  const rows = await sql<{ v: Uint8Array }[]>`
    select v from word_vectors
    where word in (select jsonb_array_elements_text(${JSON.stringify(words)}::text::jsonb))`;
  return rows.map((r) => unit(r.v));
}

function holds(examples: { v: Float32Array }[], vector: Float32Array): boolean {
  return examples.some((e) => e.v.every((x, i) => Math.abs(x - vector[i]) < 1e-6));
}

dbTest("readThemeWords counts each theme's own texts only", async ({ sql }) => {
  await importLines(sql, lines());
  const themes = await sql<{ id: number; slug: string }[]>`select id, slug from themes`;
  const read = await readThemeWords(sql, { rows: 50, generic: [], unit });
  assert.deepEqual(read.themes, themes.map((t) => t.id).sort((a, b) => a - b));
  for (const e of read.examples) assert.equal(Math.max(...e.target), 1, `${[...e.target]}`);
  // "product" (in five texts of photos) is an example; "nobody" and "owns" (only in the
  // sentences of both themes) are not.
  const [product, nobody, owns] = await Promise.all(
    ["product", "nobody", "owns"].map(async (w) => (await vectors(sql, [w]))[0]),
  );
  assert.ok(holds(read.examples, product));
  assert.ok(!holds(read.examples, nobody));
  assert.ok(!holds(read.examples, owns));
});

dbTest("the trained model reads a question in other words", async ({ sql }) => {
  await importLines(sql, lines());
  const [invoices] = await sql<{ id: number }[]>`select id from themes where slug = 'invoices'`;
  const read = await readThemeWords(sql, { rows: 50, generic: [], unit });
  const model = await trainThemeWords(read.themes, read.examples);
  // None of these words is in the catalogue.
  const scores = scoreThemeWords(model, await vectors(sql, ["owed", "money", "clients"]));
  const [first] = [...scores].sort((a, b) => b[1] - a[1]);
  assert.equal(first[0], invoices.id);
  const none = scoreThemeWords(await trainThemeWords([], []), await vectors(sql, ["owed"]));
  assert.equal(none.size, 0);
  // The same examples again (a new data version, another database): the model trained once.
  const again = await readThemeWords(sql, { rows: 50, generic: [], unit });
  assert.equal(await trainThemeWords(again.themes, again.examples), model);
  // Half the weight of one example: another model.
  const changed = again.examples.map((e, i) => i === 0 ? { ...e, weight: e.weight / 2 } : e);
  const other = await trainThemeWords(again.themes, changed);
  assert.notEqual(other, model);
  assert.notDeepEqual(other.weights, model.weights);
});
