/**
 * Counts of lists with sub-score bounds from summaries held in memory as typed columns, once per
 * data version: the sub-scores' summary (opportunity_counts_by_scores, sql/0020_sub_scores.sql)
 * for lists without a category or theme, and each theme's rows grouped the same way for lists
 * with one. A count is then a pass over typed arrays (about 1 ms for the 217,000 summary rows of
 * a million opportunities) instead of a range sum in PostgreSQL (16-50 ms) or, with a category or
 * theme, a count in opportunities (65-120 ms), which every cold list with other bounds paid
 * again. The same cubes count any list without a channel per (sub-score, score) pair, bounds or
 * not, for the band of a page in a sub-score order (sub_band.ts). A channel beside a bound is
 * counted in PostgreSQL (its index narrows it), and so is any summary larger than MAX_ROWS; a
 * sub-score order with a channel has no band. A cube of a channel's rows was tried and undone:
 * the channel index cannot carry the platform beside a channel name (an index row's size limit),
 * so its rows are read from the table, and cold that took up to 2 s, past the statement time-out.
 */
import type { Sql } from "../db/open.ts";
import type { CountFilter } from "./counts.ts";
import type { SubScoreSort } from "./schemas.ts";
import type { ScoreCounts } from "./score_band.ts";
import type { PairCounts } from "./sub_band.ts";
import { hasSubScoreFilter } from "./sub_scores.ts";

/** Rows held at most in one cube (about 12 bytes each); past it, counts stay in PostgreSQL. */
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

type SummaryRow = [boolean, number, number, number, number, number, string, string, number];

/**
 * Whether the count of `filter` can come from cubes: it has sub-score bounds (without them the
 * other summaries count it), no channel, and a platform of printable ASCII, which JavaScript
 * lowercases as PostgreSQL does.
 */
export function countsFromCube(filter: CountFilter): boolean {
  return hasSubScoreFilter(filter) && cubesCount(filter);
}

/** Whether cubes can count `filter` at all: no channel, a platform of printable ASCII. */
function cubesCount(filter: CountFilter): boolean {
  return !filter.channel &&
    (filter.platform === undefined || /^[\x20-\x7e]*$/.test(filter.platform));
}

/**
 * Values kept per data version, each computed once (a failed one is not kept); a call with an
 * older version than the newest seen (a request that raced an import) computes without keeping.
 * Unlike the answer cache there is no time-out: a value is exact for its version. Without
 * `keep`, every call computes afresh.
 */
export class VersionShelf<T> {
  #version = -1;
  #values = new Map<string, Promise<T>>();
  constructor(readonly keep: boolean) {}

  /** Values kept now (for tests and metrics). */
  get size(): number {
    return this.#values.size;
  }

  get(version: number, key: string, compute: () => Promise<T>): Promise<T> {
    if (!this.keep || version < this.#version) return compute();
    if (version > this.#version) {
      this.#version = version;
      this.#values.clear();
    }
    let value = this.#values.get(key);
    if (!value) {
      const computed = compute();
      value = computed;
      this.#values.set(key, computed);
      computed.catch(() => {
        if (this.#values.get(key) === computed) this.#values.delete(key);
      });
    }
    return value;
  }
}

type Shelf = VersionShelf<ScoresCube | ThemeRef[] | undefined>;

/**
 * `filter`'s counts per score from cubes (as scoreCountsFromSummary answers them), or undefined
 * when they cannot answer it: no bound, a channel, a cube too large.
 */
export async function countsOfCubes(
  sql: Sql,
  filter: CountFilter,
  version: number,
  shelf: Shelf,
): Promise<ScoreCounts | undefined> {
  if (!countsFromCube(filter)) return undefined;
  const cubes = await cubesOf(sql, filter, version, shelf);
  return cubes && scoreCountsOfCubes(cubes, filter);
}

/**
 * `filter`'s counts per (sub-score, score) pair in the order `sort` (sub_band.ts), bounds or
 * not, or undefined when cubes cannot answer it: a channel, a cube too large.
 */
export async function pairCountsOfCubes(
  sql: Sql,
  filter: CountFilter,
  sort: SubScoreSort,
  options: { version: number; shelf: Shelf },
): Promise<PairCounts | undefined> {
  if (!cubesCount(filter)) return undefined;
  const cubes = await cubesOf(sql, filter, options.version, options.shelf);
  return cubes && pairCountsOf(cubes, filter, sort);
}

/**
 * The cubes that hold `filter`'s rows: the sub-scores' summary, or the themes of its category
 * or theme; undefined when one is too large to hold.
 */
async function cubesOf(
  sql: Sql,
  filter: CountFilter,
  version: number,
  shelf: Shelf,
): Promise<ScoresCube[] | undefined> {
  const cube = (key: string, load: () => Promise<ScoresCube | undefined>) =>
    shelf.get(version, key, load) as Promise<ScoresCube | undefined>;
  if (!filter.category && !filter.theme) {
    const summary = await cube("summary", () => loadScoresCube(sql));
    return summary && [summary];
  }
  // Every theme in one entry, so that the shelf's keys come from the catalogue, never from what
  // a caller writes: a slug that names nothing finds no theme and adds nothing.
  const themes = await shelf.get(version, "themes", () => readThemes(sql)) as ThemeRef[];
  const ids = themes.filter((t) =>
    (!filter.category || t.category === filter.category) &&
    (!filter.theme || t.slug === filter.theme)
  ).map((t) => t.id);
  const cubes = await Promise.all(
    ids.map((id) => cube(`theme:${id}`, () => loadThemeCube(sql, id))),
  );
  return cubes.every((c) => c !== undefined) ? cubes : undefined;
}

/** A theme as the category and theme filters find it. */
export interface ThemeRef {
  id: number;
  slug: string;
  /** Its category's slug. */
  category: string;
}

async function readThemes(sql: Sql): Promise<ThemeRef[]> {
  return await sql<ThemeRef[]>`
    select t.id, t.slug, g.slug as category from themes t join categories g on g.id = t.category_id
    order by t.id`;
}

/** Reads the sub-scores' summary into a cube; undefined when it has more than `maxRows` rows. */
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
  return rows.length > maxRows ? undefined : cubeOf(rows);
}

/** Theme `id`'s opportunities grouped as the sub-scores' summary is; undefined past `maxRows`. */
export async function loadThemeCube(
  sql: Sql,
  id: number,
  maxRows = MAX_ROWS,
): Promise<ScoresCube | undefined> {
  const rows = await sql`
    select is_online_deliverable, pain_point_intensity, willingness_to_pay_score, tech_difficulty,
      sustainability_score, score, recommendation, lower(platform), count(*)::float8
    from opportunities where theme_id = ${id}
    group by 1, 2, 3, 4, 5, 6, 7, 8
    limit ${maxRows + 1}`.values() as unknown as SummaryRow[];
  return rows.length > maxRows ? undefined : cubeOf(rows);
}

function cubeOf(rows: SummaryRow[]): ScoresCube | undefined {
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
  return cube.verdicts.length > 256 || cube.platforms.length > 65_536 ? undefined : cube;
}

/** `filter`'s counts per score over `cubes`, highest first (ignoring channel, category, theme). */
export function scoreCountsOfCubes(cubes: ScoresCube[], filter: CountFilter): ScoreCounts {
  const byScore = new Float64Array(101);
  for (const cube of cubes) addCounts(cube, filter, byScore);
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

/**
 * `filter`'s counts per (key, score) pair of the order `sort` over `cubes`, in the order's order:
 * the key is the sub-score (the difficulty negated, lowest difficulty first), then the score
 * highest first. Sub-scores are 0-10 and scores 0-100 (sql/0001_init.sql checks both).
 */
export function pairCountsOf(
  cubes: ScoresCube[],
  filter: CountFilter,
  sort: SubScoreSort,
): PairCounts {
  const byPair = new Float64Array(11 * 101);
  const column = CUBE_COLUMNS[sort];
  for (const cube of cubes) addCounts(cube, filter, byPair, cube[column]);
  const keys: number[] = [];
  const scores: number[] = [];
  const counts: number[] = [];
  const negate = sort === "tech_difficulty";
  for (let k = 0; k <= 10; k++) {
    const sub = negate ? k : 10 - k;
    for (let s = 100; s >= 0; s--) {
      const n = byPair[sub * 101 + s];
      if (n > 0) {
        keys.push(negate && sub > 0 ? -sub : sub);
        scores.push(s);
        counts.push(n);
      }
    }
  }
  return { total: counts.reduce((sum, n) => sum + n, 0), keys, scores, counts };
}

/** The cube's column of each sub-score order. */
const CUBE_COLUMNS = {
  pain_point_intensity: "pain",
  willingness_to_pay: "pay",
  tech_difficulty: "difficulty",
  sustainability: "sustainability",
} as const satisfies Record<SubScoreSort, keyof ScoresCube>;

/**
 * Adds the rows of `cube` that `filter` keeps into `into`: at their score, or with `sub` (a
 * sub-score column) at `sub * 101 + score`.
 */
function addCounts(
  cube: ScoresCube,
  filter: CountFilter,
  into: Float64Array,
  sub?: Uint8Array,
): void {
  const platform = filter.platform === undefined
    ? -1
    : cube.platforms.indexOf(filter.platform.toLowerCase());
  if (platform < 0 && filter.platform !== undefined) return;
  const verdict = filter.recommendation ? cube.verdicts.indexOf(filter.recommendation) : -1;
  if (verdict < 0 && filter.recommendation) return;
  const online = filter.online_only ? 1 : 0;
  const minScore = filter.min_score;
  const minPain = filter.min_pain_point_intensity ?? 0;
  const minPay = filter.min_willingness_to_pay ?? 0;
  const maxDifficulty = filter.max_tech_difficulty ?? 10;
  const minSustainability = filter.min_sustainability ?? 0;
  for (let i = 0; i < cube.rows; i++) {
    if (
      cube.score[i] < minScore || cube.pain[i] < minPain || cube.pay[i] < minPay ||
      cube.difficulty[i] > maxDifficulty || cube.sustainability[i] < minSustainability ||
      cube.online[i] < online || (platform >= 0 && cube.platform[i] !== platform) ||
      (verdict >= 0 && cube.verdict[i] !== verdict)
    ) continue;
    into[sub ? sub[i] * 101 + cube.score[i] : cube.score[i]] += cube.n[i];
  }
}
