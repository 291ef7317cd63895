/**
 * The summary of the sub-scores (opportunity_counts_by_scores, sql/0020_sub_scores.sql) held in
 * memory as columns, once per data version: the exact count of a list with sub-score bounds is
 * then a pass over typed arrays (about 1 ms for the 217,000 rows of a million opportunities)
 * instead of a range sum in PostgreSQL (16-50 ms each, which every cold list with other bounds
 * paid again). Used when the list has no channel, category or theme, which the summary does not
 * hold; the summary is left to PostgreSQL when it outgrows MAX_ROWS.
 */
import type { Sql } from "../db/open.ts";
import type { CountFilter } from "./counts.ts";
import type { ScoreCounts } from "./score_band.ts";
import { hasSubScoreFilter } from "./sub_scores.ts";

/** Summary rows held at most (about 12 bytes each); past it, counts stay in PostgreSQL. */
export const MAX_ROWS = 2_000_000;

export interface ScoresCube {
  rows: number;
  online: Uint8Array;
  pain: Uint8Array;
  pay: Uint8Array;
  difficulty: Uint8Array;
  sustainability: Uint8Array;
  score: Uint8Array;
  /** Index into `verdicts`. */
  verdict: Uint8Array;
  /** Index into `platforms`. */
  platform: Uint16Array;
  n: Float64Array;
  verdicts: string[];
  /** Lowercased by PostgreSQL, as the platform filter compares it. */
  platforms: string[];
}

/**
 * Whether the count of `filter` can come from the cube: it has sub-score bounds, no channel,
 * category or theme, and a platform of printable ASCII, which JavaScript lowercases as PostgreSQL
 * does.
 */
export function countsFromCube(filter: CountFilter): boolean {
  return hasSubScoreFilter(filter) && !filter.channel && !filter.category && !filter.theme &&
    (filter.platform === undefined || /^[\x20-\x7e]*$/.test(filter.platform));
}

type SummaryRow = [boolean, number, number, number, number, number, string, string, number];

/** Reads the summary into a cube; undefined when it has more than MAX_ROWS rows. */
export async function loadScoresCube(
  sql: Sql,
  maxRows = MAX_ROWS,
): Promise<ScoresCube | undefined> {
  // Rows as arrays, not objects: a quarter of a million of them at a million opportunities.
  const rows = await sql`
    select is_online_deliverable, pain_point_intensity, willingness_to_pay_score, tech_difficulty,
      sustainability_score, score, recommendation, lower(platform), n::float8
    from opportunity_counts_by_scores where n > 0
    limit ${maxRows + 1}`.values() as unknown as SummaryRow[];
  if (rows.length > maxRows) return undefined;
  const count = rows.length;
  const cube: ScoresCube = {
    rows: count,
    online: new Uint8Array(count),
    pain: new Uint8Array(count),
    pay: new Uint8Array(count),
    difficulty: new Uint8Array(count),
    sustainability: new Uint8Array(count),
    score: new Uint8Array(count),
    verdict: new Uint8Array(count),
    platform: new Uint16Array(count),
    n: new Float64Array(count),
    verdicts: [],
    platforms: [],
  };
  const verdicts = new Map<string, number>();
  const platforms = new Map<string, number>();
  const indexOf = (map: Map<string, number>, list: string[], value: string) => {
    let i = map.get(value);
    if (i === undefined) {
      i = list.push(value) - 1;
      map.set(value, i);
    }
    return i;
  };
  rows.forEach(
    ([online, pain, pay, difficulty, sustainability, score, verdict, platform, n], i) => {
      cube.online[i] = online ? 1 : 0;
      cube.pain[i] = pain;
      cube.pay[i] = pay;
      cube.difficulty[i] = difficulty;
      cube.sustainability[i] = sustainability;
      cube.score[i] = score;
      cube.verdict[i] = indexOf(verdicts, cube.verdicts, verdict);
      cube.platform[i] = indexOf(platforms, cube.platforms, platform);
      cube.n[i] = n;
    },
  );
  if (cube.verdicts.length > 256 || cube.platforms.length > 65_536) return undefined;
  return cube;
}

/** `filter`'s counts per score, highest first (as scoreCountsFromSummary answers them). */
export function scoreCountsOfCube(cube: ScoresCube, filter: CountFilter): ScoreCounts {
  const none = { total: 0, scores: [], counts: [] };
  const platform = filter.platform === undefined
    ? -1
    : cube.platforms.indexOf(filter.platform.toLowerCase());
  if (platform < 0 && filter.platform !== undefined) return none;
  const verdict = filter.recommendation ? cube.verdicts.indexOf(filter.recommendation) : -1;
  if (verdict < 0 && filter.recommendation) return none;
  const online = filter.online_only ? 1 : 0;
  const minScore = filter.min_score;
  const minPain = filter.min_pain_point_intensity ?? 0;
  const minPay = filter.min_willingness_to_pay ?? 0;
  const maxDifficulty = filter.max_tech_difficulty ?? 10;
  const minSustainability = filter.min_sustainability ?? 0;
  const byScore = new Float64Array(101);
  for (let i = 0; i < cube.rows; i++) {
    if (
      cube.score[i] < minScore || cube.pain[i] < minPain || cube.pay[i] < minPay ||
      cube.difficulty[i] > maxDifficulty || cube.sustainability[i] < minSustainability ||
      cube.online[i] < online || (platform >= 0 && cube.platform[i] !== platform) ||
      (verdict >= 0 && cube.verdict[i] !== verdict)
    ) continue;
    byScore[cube.score[i]] += cube.n[i];
  }
  const scores: number[] = [];
  const counts: number[] = [];
  for (let s = 100; s >= 0; s--) {
    if (byScore[s] > 0) {
      scores.push(s);
      counts.push(byScore[s]);
    }
  }
  return { total: counts.reduce((sum, n) => sum + n, 0), scores, counts };
}
