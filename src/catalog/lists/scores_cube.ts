/**
 * Counts of lists with sub-score bounds from summaries held in memory as typed columns, once per
 * data version: the sub-scores' summary (opportunity_counts_by_scores, sql/0020_sub_scores.sql)
 * for lists without a category or theme, and each theme's rows grouped the same way for lists
 * with one. A count is then a pass over typed arrays (about 1 ms for the 217,000 summary rows of
 * a million opportunities) instead of a range sum in PostgreSQL (16-50 ms) or, with a category or
 * theme, a count in opportunities (65-120 ms), which every cold list with other bounds paid
 * again. A channel's rows are grouped the same way, with their theme, once per version and
 * channel, for lists with a channel (their count in opportunities took 30-300 ms). The same cubes
 * count any list per (sub-score, score) pair, bounds or not, for the band of a page in a sub-score
 * order (sub_band.ts). Any cube larger than MAX_ROWS leaves the count to PostgreSQL and the
 * sub-score order without a band.
 */
import type { Sql } from "../../db/open.ts";
import type { VersionedCache } from "../cache.ts";
import type { CountFilter } from "./counts.ts";
import type { SubScoreSort } from "../schemas.ts";
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
  /** Each row's theme (in a channel's cube only, for a category or theme beside the channel). */
  theme?: Uint32Array;
}

type SummaryRow = [
  boolean,
  number,
  number,
  number,
  number,
  number,
  string,
  string,
  number,
  theme?: number,
];

/**
 * Whether the count of `filter` can come from cubes: it has sub-score bounds (without them the
 * other summaries count it) and a platform of printable ASCII, which JavaScript lowercases as
 * PostgreSQL does.
 */
export function countsFromCube(filter: CountFilter): boolean {
  return hasSubScoreFilter(filter) && cubesCount(filter);
}

/** Whether cubes can count `filter` at all: a platform of printable ASCII. */
function cubesCount(filter: CountFilter): boolean {
  return filter.platform === undefined || /^[\x20-\x7e]*$/.test(filter.platform);
}

/**
 * Where cubes, the themes and the channels are kept per data version: a VersionedCache
 * (cache.ts) without a time-out or a size bound, as a value is exact for its version and its
 * keys come from the catalogue; or, without an answer cache, a shelf that computes afresh.
 */
export type Shelf = Pick<VersionedCache, "get">;

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
  const held = await cubesOf(sql, filter, version, shelf);
  return held && scoreCountsOfCubes(held.cubes, filter, held.themes);
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
  const held = await cubesOf(sql, filter, options.version, options.shelf);
  return held && pairCountsOf(held.cubes, filter, sort, held.themes);
}

/**
 * The cubes that hold `filter`'s rows: a channel's, the sub-scores' summary, or the themes of its
 * category or theme; with a channel and a category or theme, the themes its rows must have.
 * Undefined when a cube is too large to hold. The shelf's keys come from the catalogue (every
 * theme in one entry, every channel in another), never from what a caller writes: a name that
 * names nothing finds no cube and adds nothing.
 */
async function cubesOf(
  sql: Sql,
  filter: CountFilter,
  version: number,
  shelf: Shelf,
): Promise<{ cubes: ScoresCube[]; themes?: Set<number> } | undefined> {
  const cube = (key: string, load: () => Promise<ScoresCube | undefined>) =>
    shelf.get(version, key, load) as Promise<ScoresCube | undefined>;
  // The shelf's memory budget may keep nothing (undefined): then PostgreSQL counts.
  const themeIds = async () => {
    const themes = await shelf.get(version, "themes", () => readThemes(sql)) as
      | ThemeRef[]
      | undefined;
    return themes?.filter((t) =>
      (!filter.category || t.category === filter.category) &&
      (!filter.theme || t.slug === filter.theme)
    ).map((t) => t.id);
  };
  if (filter.channel) {
    const channels = await shelf.get(version, "channels", () => readChannels(sql)) as
      | Set<string>
      | undefined;
    if (!channels) return undefined;
    if (!channels.has(filter.channel)) return { cubes: [] };
    const held = await cube(
      `channel:${filter.channel}`,
      () => loadChannelCube(sql, filter.channel!),
    );
    if (!held) return undefined;
    if (!(filter.category || filter.theme)) return { cubes: [held] };
    const ids = await themeIds();
    return ids && { cubes: [held], themes: new Set(ids) };
  }
  if (!filter.category && !filter.theme) {
    const summary = await cube("summary", () => loadScoresCube(sql));
    return summary && { cubes: [summary] };
  }
  const ids = await themeIds();
  if (!ids) return undefined;
  const cubes = await Promise.all(
    ids.map((id) => cube(`theme:${id}`, () => loadThemeCube(sql, id))),
  );
  return cubes.every((c) => c !== undefined) ? { cubes } : undefined;
}

/** A theme as the category and theme filters find it. */
export interface ThemeRef {
  id: number;
  slug: string;
  /** Its category's slug. */
  category: string;
}

/** The channels that have rows. */
async function readChannels(sql: Sql): Promise<Set<string>> {
  const rows = await sql<{ channel: string }[]>`
    select channel_name as channel from opportunity_counts group by 1 having sum(n) > 0`;
  return new Set(rows.map((r) => r.channel));
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

/** Channel `name`'s opportunities grouped as the summary is, and by theme; undefined past `maxRows`. */
export async function loadChannelCube(
  sql: Sql,
  name: string,
  maxRows = MAX_ROWS,
): Promise<ScoresCube | undefined> {
  // The channel index does not cover these columns (it cannot carry the platform beside a
  // channel name within an index row's size limit), so the rows are read from the table: up to
  // 2 s for the largest channel when cold at a million rows, once per version and channel. That
  // one read may pass the statement time-out, which is for what a caller's filters cost each
  // time; counting each bounded filter of a channel in the table instead paid it again and again
  // (503s under load).
  const rows = await sql.begin(async (tx) => {
    await tx`select set_config('statement_timeout', ${CUBE_TIMEOUT}, true)`;
    return await tx`
      select is_online_deliverable, pain_point_intensity, willingness_to_pay_score,
        tech_difficulty, sustainability_score, score, recommendation, lower(platform),
        count(*)::float8, theme_id
      from opportunities where channel_name = ${name}
      group by 1, 2, 3, 4, 5, 6, 7, 8, 10
      limit ${maxRows + 1}`.values() as unknown as SummaryRow[];
  });
  return rows.length > maxRows ? undefined : cubeOf(rows);
}

/** The statement time-out of a channel's cube (see loadChannelCube). */
const CUBE_TIMEOUT = "20s";

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
    theme: rows.length > 0 && rows[0].length > 9 ? new Uint32Array(count) : undefined,
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
    ([online, pain, pay, difficulty, sustainability, score, verdict, platform, n, theme], i) => {
      cube.online[i] = online ? 1 : 0;
      cube.pain[i] = pain;
      cube.pay[i] = pay;
      cube.difficulty[i] = difficulty;
      cube.sustainability[i] = sustainability;
      cube.score[i] = score;
      cube.verdict[i] = indexOf(verdicts, cube.verdicts, verdict);
      cube.platform[i] = indexOf(platforms, cube.platforms, platform);
      cube.n[i] = n;
      if (cube.theme) cube.theme[i] = theme!;
    },
  );
  return cube.verdicts.length > 256 || cube.platforms.length > 65_536 ? undefined : cube;
}

/**
 * `filter`'s counts per score over `cubes`, highest first: the cubes hold its channel, category
 * or theme, or rows of `themes` only are counted.
 */
export function scoreCountsOfCubes(
  cubes: ScoresCube[],
  filter: CountFilter,
  themes?: Set<number>,
): ScoreCounts {
  const byScore = new Float64Array(101);
  for (const cube of cubes) addCounts(cube, filter, byScore, undefined, themes);
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
  themes?: Set<number>,
): PairCounts {
  const byPair = new Float64Array(11 * 101);
  const column = CUBE_COLUMNS[sort];
  for (const cube of cubes) addCounts(cube, filter, byPair, cube[column], themes);
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
 * sub-score column) at `sub * 101 + score`; with `themes`, only rows of those themes.
 */
function addCounts(
  cube: ScoresCube,
  filter: CountFilter,
  into: Float64Array,
  sub?: Uint8Array,
  themes?: Set<number>,
): void {
  if (themes && !cube.theme) throw new Error("themes asked of a cube without them");
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
      (verdict >= 0 && cube.verdict[i] !== verdict) || (themes && !themes.has(cube.theme![i]))
    ) continue;
    into[sub ? sub[i] * 101 + cube.score[i] : cube.score[i]] += cube.n[i];
  }
}
