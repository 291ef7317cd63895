/**
 * Cursors of a question's list (src/catalog/questions/search.ts with
 * src/catalog/lists/opportunity_cursor.ts): `q` in relevance order ranks its first candidates and
 * continues in score order, and a best match ranks the candidates of each word; next_cursor walks
 * either exactly as the page numbers do, a position among the candidates first, then the keys of
 * the last row read. A few candidates stand in for the thousand of production, so that every walk
 * crosses into the rest.
 */
import assert from "node:assert/strict";
import { readDataVersion } from "../../src/catalog/common.ts";
import { OpportunityQuerySchema } from "../../src/catalog/schemas.ts";
import { type Memo, searchOpportunities } from "../../src/catalog/questions/search.ts";
import { checkCursor } from "../../src/catalog/lists/opportunity_cursor.ts";
import { importLines } from "../../src/ingest/import.ts";
import type { Sql } from "../../src/db/open.ts";
import { InvalidCursorError } from "../../src/platform/errors.ts";
import { dbTest } from "../helpers/db.ts";
import { oneThemeLines } from "../helpers/imports.ts";

const ROWS = 37;

function lines(): string[] {
  const words = ["invoice reminders", "invoice portal", "quokka tracker"];
  // Every row holds "invoice" or "quokka", never "kubernetes"; scores tie in threes.
  return oneThemeLines(Array.from({ length: ROWS }, (_, i) => ({
    external_id: `o${i}`,
    title: `${words[i % 3]} number ${i}`,
    description: i % 5 === 0 ? "for freelance designers" : "for agencies",
    score: 40 + Math.floor(i / 3),
    day: `2026-05-${String(1 + (i % 20)).padStart(2, "0")}`,
  }))).map((r) => JSON.stringify(r));
}

function memo(): Memo {
  const kept = new Map<string, Promise<unknown>>();
  return <T>(key: string, compute: () => Promise<T>) => {
    if (!kept.has(key)) kept.set(key, compute());
    return kept.get(key) as Promise<T>;
  };
}

async function page(sql: Sql, params: Record<string, unknown>, keep: Memo) {
  const query = OpportunityQuerySchema.parse(params);
  checkCursor(query);
  return await searchOpportunities(sql, query, { memo: keep, candidates: 7, publicBaseUrl: "" });
}

/** Every id of a question's list, by page numbers and by cursors. */
async function walks(sql: Sql, params: Record<string, unknown>) {
  const keep = memo();
  const byNumber: number[] = [];
  for (let n = 1; n < 50; n++) {
    const { rows } = await page(sql, { ...params, page: n, page_size: 5 }, keep);
    if (rows.length === 0) break;
    byNumber.push(...rows.map((r) => r.id));
  }
  const byCursor: number[] = [];
  let cursor: string | null = null;
  let pages = 0;
  let total = 0;
  let match = "";
  do {
    const answer = await page(
      sql,
      { ...params, page_size: 5, ...(cursor ? { cursor } : {}) },
      keep,
    );
    byCursor.push(...answer.rows.map((r) => r.id));
    ({ total, match } = answer);
    cursor = answer.next_cursor;
    pages++;
  } while (cursor && pages < 50);
  return { byNumber, byCursor, total, match };
}

dbTest("question lists: next_cursor walks the ranked candidates, then the rest", async (db, t) => {
  await importLines(db.sql, lines());
  await t.step("relevance (q, no sort): every match once, in the order of the pages", async () => {
    const { byNumber, byCursor, total, match } = await walks(db.sql, { q: "invoice" });
    assert.equal(match, "all");
    assert.equal(total, 25);
    assert.equal(new Set(byCursor).size, total, "no item twice, none missed");
    assert.deepEqual(byCursor, byNumber);
  });
  await t.step("a question of common and rare words: the same walk", async () => {
    const { byNumber, byCursor, total } = await walks(db.sql, {
      q: "invoice for freelance designers",
    });
    assert.ok(total > 0);
    assert.equal(new Set(byCursor).size, total);
    assert.deepEqual(byCursor, byNumber);
  });
  await t.step("best match (match any): the same walk over every row of any word", async () => {
    const { byNumber, byCursor, total, match } = await walks(db.sql, {
      q: "invoice quokka kubernetes",
    });
    assert.equal(match, "any");
    assert.equal(total, ROWS);
    assert.equal(new Set(byCursor).size, total);
    assert.deepEqual(byCursor, byNumber);
  });
  await t.step("a cursor of another question or order is refused as another list", async () => {
    const first = await page(db.sql, { q: "invoice", page_size: 5 }, memo());
    assert.ok(first.next_cursor);
    for (const other of [{ q: "quokka" }, { q: "invoice", sort: "score" }]) {
      assert.throws(
        () => checkCursor(OpportunityQuerySchema.parse({ ...other, cursor: first.next_cursor })),
        (e) => e instanceof InvalidCursorError && e.reason === "other_list",
      );
    }
    assert.ok(await readDataVersion(db.sql) > 0);
  });
});
