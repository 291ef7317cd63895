/**
 * The band arithmetic of the sub-score orders (src/catalog/lists/sub_band.ts) and of the score
 * order (src/catalog/lists/score_band.ts): checked against lists held in memory, where a band's
 * read is the list's rows between its pairs, so a band that is wrong either returns other rows or
 * is read twice. (tests/catalog/list_sweep_test.ts checks the same through PostgreSQL.)
 */
import assert from "node:assert/strict";
import { bucketSpan, offsetBand } from "../../src/catalog/lists/score_band.ts";
import {
  type Pair,
  type PairBand,
  pairBandedPage,
  type PairCounts,
  pairCursorFloor,
  pairOffsetBand,
} from "../../src/catalog/lists/sub_band.ts";
import { encodeCursor } from "../../src/catalog/cursor.ts";
import { opportunityScope } from "../../src/catalog/lists/opportunity_cursor.ts";
import { type OpportunityQuery, OpportunityQuerySchema } from "../../src/catalog/schemas.ts";
import { random } from "../helpers/sweep_values.ts";

/** Counts of pairs (key, score, n), given in the order's order. */
function countsOf(buckets: [number, number, number][]): PairCounts {
  return {
    total: buckets.reduce((sum, [, , n]) => sum + n, 0),
    keys: buckets.map(([k]) => k),
    scores: buckets.map(([, s]) => s),
    counts: buckets.map(([, , n]) => n),
  };
}

Deno.test("bucketSpan finds the first and last bucket of rows, the skip and the end", () => {
  const counts = [3, 1, 4];
  assert.deepEqual(bucketSpan(counts, 8, 0, 3), { first: 0, last: 0, skip: 0, expected: 3 });
  assert.deepEqual(bucketSpan(counts, 8, 2, 3), { first: 0, last: 2, skip: 2, expected: 3 });
  assert.deepEqual(bucketSpan(counts, 8, 3, 1), { first: 1, last: 1, skip: 0, expected: 1 });
  assert.deepEqual(bucketSpan(counts, 8, 5, 21), { first: 2, last: 2, skip: 1, expected: 3 });
  assert.equal(bucketSpan(counts, 8, 8, 1), "empty");
  assert.equal(bucketSpan(counts, 9, 7, 2), undefined, "counts short of the total");
});

Deno.test("offsetBand gives the scores of a page's first and last rows", () => {
  const counts = { total: 8, scores: [90, 70, 40], counts: [3, 1, 4] };
  assert.deepEqual(offsetBand(counts, 2, 3), { lo: 40, hi: 90, skip: 2, expected: 3 });
  assert.deepEqual(offsetBand(counts, 3, 2), { lo: 40, hi: 70, skip: 0, expected: 2 });
  assert.equal(offsetBand(counts, 8, 2), "empty");
});

Deno.test("pairOffsetBand gives the pairs of a page's first and last rows", () => {
  // The difficulty's order: key -1 (difficulty 1) before key -4.
  const counts = countsOf([[-1, 80, 2], [-1, 30, 3], [-4, 90, 5]]);
  assert.deepEqual(pairOffsetBand(counts, 0, 2), {
    lo: [-1, 80],
    hi: [-1, 80],
    skip: 0,
    expected: 2,
  });
  assert.deepEqual(pairOffsetBand(counts, 1, 3), {
    lo: [-1, 30],
    hi: [-1, 80],
    skip: 1,
    expected: 3,
  });
  assert.deepEqual(pairOffsetBand(counts, 4, 21), {
    lo: [-4, 90],
    hi: [-1, 30],
    skip: 2,
    expected: 6,
  });
  assert.equal(pairOffsetBand(counts, 10, 1), "empty");
  assert.equal(pairOffsetBand({ ...counts, total: 11 }, 9, 2), undefined);
});

Deno.test("pairCursorFloor counts only the pairs after the cursor's", () => {
  const counts = countsOf([[7, 80, 2], [7, 30, 3], [5, 90, 5], [2, 10, 1]]);
  // The cursor's own pair (7, 80) may be spent: 3 rows reach (7, 30), 4 reach (5, 90).
  assert.deepEqual(pairCursorFloor(counts, [7, 80], 3), [7, 30]);
  assert.deepEqual(pairCursorFloor(counts, [7, 80], 4), [5, 90]);
  // A cursor between pairs (its pair has no rows of the filter now).
  assert.deepEqual(pairCursorFloor(counts, [6, 50], 5), [5, 90]);
  assert.deepEqual(pairCursorFloor(counts, [6, 50], 6), [2, 10]);
  assert.equal(pairCursorFloor(counts, [5, 90], 2), undefined, "the list ends first");
});

/** A row of an in-memory list: its order key, score and position (the rest of the order). */
type Row = { key: number; score: number; at: number };

/** Whether `r` lies within `band`'s pairs (inclusive), as pairBandFilter's row comparisons. */
function within(r: Row, band: PairBand): boolean {
  const cmp = (p: Pair) => r.key === p[0] ? r.score - p[1] : r.key - p[0];
  return (!band.hi || cmp(band.hi) <= 0) && (!band.lo || cmp(band.lo) >= 0);
}

Deno.test("pairBandedPage reads every page and cursor page in one read of its band", async () => {
  const next = random(7);
  for (let round = 0; round < 40; round++) {
    const sort = (["sustainability", "tech_difficulty"] as const)[round % 2];
    // Few keys and scores, so that pages start and end inside pairs.
    const rows: Row[] = Array.from({ length: Math.floor(next() * 120) }, () => ({
      key: (sort === "tech_difficulty" ? -1 : 1) * Math.floor(next() * 4),
      score: 40 + Math.floor(next() * 5),
      at: Math.floor(next() * 1e6),
    })).sort((a, b) => b.key - a.key || b.score - a.score || b.at - a.at);
    const buckets = new Map<string, [number, number, number]>();
    for (const r of rows) {
      const b = buckets.get(`${r.key}:${r.score}`) ?? [r.key, r.score, 0];
      b[2]++;
      buckets.set(`${r.key}:${r.score}`, b);
    }
    const counts = countsOf([...buckets.values()]);
    const size = 1 + Math.floor(next() * 12);
    for (let from = 0; from <= rows.length + size; from += size) {
      let reads = 0;
      let cursorAt = -1;
      const read = (band?: PairBand) => {
        reads++;
        const after = rows.slice(cursorAt + 1);
        const inBand = band ? after.filter((r) => within(r, band)) : after;
        return Promise.resolve(inBand.slice(band?.skip ?? 0).slice(0, size + 1));
      };
      const base = { sort, page_size: size };
      const page = from / size + 1;
      const query = OpportunityQuerySchema.parse({ ...base, page }) as OpportunityQuery & {
        sort: typeof sort;
      };
      const found = await pairBandedPage(query, counts, read);
      const label = `round ${round}, ${sort}, size ${size}, page ${page}`;
      assert.deepEqual(found, rows.slice(from, from + size + 1), label);
      assert.equal(reads, from < rows.length ? 1 : 0, `reads of ${label}`);
      // The page after it by cursor: the cursor holds the sub-score's value, not the key.
      if (from + size >= rows.length) continue;
      cursorAt = from + size - 1;
      const last = rows[cursorAt];
      const sub = sort === "tech_difficulty" ? -last.key : last.key;
      const cursor = encodeCursor(opportunityScope(query), [sub, last.score, "1", 1]);
      reads = 0;
      const more = await pairBandedPage({ ...query, cursor }, counts, read);
      assert.deepEqual(more, rows.slice(from + size, from + 2 * size + 1), `${label} +1`);
      assert.equal(reads, 1, `reads of ${label} +1`);
    }
  }
});
