/**
 * The score band of a page in the score order, from the exact count of each score that the
 * summary tables give (src/catalog/lists/counts.ts). A list in the score order is a run of score
 * buckets, highest first; once the count of every bucket is known, the buckets a page falls in
 * are known too, and so is how many of its rows lie in the buckets above it. The page query then
 * reads only those buckets (`score between lo and hi`) and skips only the rows of the page's first
 * bucket before it (the offset within that bucket), instead of every row before the page.
 *
 * Why it matters at 1,000,000 rows: without the band, a filter that follows the score (a Skip
 * rarely scores 60) or a filter the chosen index does not hold made PostgreSQL walk the sort
 * order from the top and check each row, reading tens of thousands of rows for one page (77,000
 * table pages for page 21 of platform=hackernews&recommendation=Skip). With the band the walk
 * starts at the page's first bucket and stops after its last, whatever the filters or the depth.
 */
import type postgres from "postgres";
import type { Sql } from "../../db/open.ts";
import { cursorKeys } from "./opportunity_cursor.ts";
import type { OpportunityQuery } from "../schemas.ts";

/** How many rows of a filter have each score: `scores` highest first, `counts` beside them. */
export interface ScoreCounts {
  total: number;
  scores: number[];
  counts: number[];
}

/** Where a page of the score order lies: its buckets and the rows to skip in the first. */
export interface ScoreBand {
  /** The lowest score of the page's rows (and of the one row after it, for next_cursor). */
  lo: number;
  /** The highest score of the page's rows. */
  hi: number;
  /** The rows of the filter in bucket `hi` that come before the page. */
  skip: number;
  /** How many rows the page query must return: the page and the row after it, if any. */
  expected: number;
}

/** Where rows `from` .. `from + rows - 1` lie in a run of buckets: their first and last bucket. */
export interface BucketSpan {
  /** The index of the bucket of row `from`. */
  first: number;
  /** The index of the bucket of the span's last row. */
  last: number;
  /** The rows of bucket `first` that come before row `from`. */
  skip: number;
  /** How many rows the span holds (fewer than asked at the list's end). */
  expected: number;
}

/**
 * The buckets (sized `counts`, in the list's order, adding up to `total`) that hold the rows at
 * positions `from` .. `from + rows - 1` (0-based): "empty" when the list ends before `from`,
 * undefined when the counts do not add up to the total (then nothing is known).
 */
export function bucketSpan(
  counts: number[],
  total: number,
  from: number,
  rows: number,
): BucketSpan | "empty" | undefined {
  if (from >= total) return "empty";
  const last = Math.min(from + rows, total) - 1;
  let before = 0;
  let first = -1;
  let skip = 0;
  for (let i = 0; i < counts.length; i++) {
    const end = before + counts[i];
    if (first < 0 && end > from) {
      first = i;
      skip = from - before;
    }
    if (end > last) return { first, last: i, skip, expected: last - from + 1 };
    before = end;
  }
  return undefined;
}

/**
 * The band of the rows at positions `from` .. `from + rows - 1` (0-based) of the score order,
 * or "empty" when the list ends before `from`.
 */
export function offsetBand(counts: ScoreCounts, from: number, rows: number): ScoreBand | "empty" {
  const span = bucketSpan(counts.counts, counts.total, from, rows);
  if (span === "empty") return span;
  // Unreachable when the counts add up to the total; read everything rather than guess.
  if (!span) return { lo: 0, hi: 100, skip: from, expected: 0 };
  const { first, last, skip, expected } = span;
  return { lo: counts.scores[last], hi: counts.scores[first], skip, expected };
}

/**
 * The lowest score the `rows` rows after a cursor at score `at` can have: the highest score below
 * `at` whose bucket and the buckets between reach `rows` (the cursor's own bucket may be spent,
 * so it is not counted), or 0 when the buckets below do not reach it.
 */
export function cursorFloor(counts: ScoreCounts, at: number, rows: number): number {
  let seen = 0;
  for (let i = 0; i < counts.scores.length; i++) {
    if (counts.scores[i] >= at) continue;
    seen += counts.counts[i];
    if (seen >= rows) return counts.scores[i];
  }
  return 0;
}

/** `and o.score between lo and hi`, the band's condition (nothing for the whole range). */
export function bandFilter(sql: Sql, lo: number, hi: number): postgres.Fragment {
  if (lo <= 0 && hi >= 100) return sql``;
  return sql`and o.score between ${lo}::int and ${hi}::int`;
}

/**
 * A page of the score order (and the row after it) read by `read` within its band: for a page
 * number, the buckets of its rows and the offset into the first; for a cursor, from the cursor
 * down to the lowest bucket its page can reach. The counts come from another statement: when a
 * write between the two made the band miss rows, the page is read again without it.
 */
export async function bandedPage<T>(
  query: OpportunityQuery,
  counts: ScoreCounts,
  read: (band?: ScoreBand) => Promise<T[]>,
): Promise<T[]> {
  const keys = cursorKeys(query);
  if (keys) {
    const lo = cursorFloor(counts, Number(keys[0]), query.page_size + 1);
    if (lo <= 0) return await read();
    const rows = await read({ lo, hi: 100, skip: 0, expected: query.page_size + 1 });
    return rows.length === query.page_size + 1 ? rows : await read();
  }
  const band = offsetBand(counts, (query.page - 1) * query.page_size, query.page_size + 1);
  if (band === "empty") return [];
  const rows = await read(band);
  return rows.length === band.expected ? rows : await read();
}
