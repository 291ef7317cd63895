/**
 * A question in other words: which themes it is about, when its words are not the catalogue's
 * ("clients who never pay me on time" for late invoices). search.ts ranks rows of those themes
 * higher, below the question's own words (see `themeBoosts`).
 *
 * - Word meaning: the vectors of sql/0021_word_vectors.sql (GloVe, generated once by
 *   scripts/word_vectors.ts): two words used alike have a high cosine ("owed" and "unpaid").
 * - A theme's words: the words of its best-scored opportunities (title, description, features,
 *   competitors) found in at least MIN_SHARE of them and concentrated in it (MIN_CONCENTRATION of
 *   their share across themes): the catalogue's own co-occurrences, read again every PROFILE_TTL.
 * - A theme's score: for each significant word of the question, its best cosine with a word of
 *   the theme (below FLOOR counts nothing), averaged over the question's words, plus CENTROID
 *   times the cosine of the question's mean vector with the theme's weighted mean.
 * - A second reading, learned: theme_words.ts's classifier from word vectors to themes, trained on
 *   the same rows. The two readings are put on one scale (standard scores over the themes) and
 *   added, the learned one at LEARNED of the weight.
 */
import type postgres from "postgres";
import type { Sql } from "../../db/open.ts";
import { HeldPerBudget, type MemoryBudget } from "../../platform/memory.ts";
import { findPage, type ListRow } from "../lists/opportunities.ts";
import type { OpportunityQuery } from "../schemas.ts";
import {
  readThemeWords,
  scoreThemeWords,
  type ThemeWordModel,
  trainThemeWords,
} from "./theme_words.ts";

const PROFILE_ROWS = 50;
const PROFILE_TTL_MS = 10 * 60_000;
const PROFILE_RETRY_MS = 60_000;
const MIN_SHARE = 0.05;
const MIN_CONCENTRATION = 0.2;
const FLOOR = 0.2;
const CENTROID = 1;
const LEARNED = 0.5;
/** Themes a question lifts, at most. */
const THEMES = 3;

// Words that say nothing of a subject: PostgreSQL's English stop words are dropped by the
// database; these are the common ones it keeps.
const GENERIC = new Set(
  ("get got have has had are was were been can will would should could do does did don not no " +
    "this these those there here so too very more most much many some any all each every one " +
    "out up about into over after before than then just also still only same other another off " +
    "again make made want need use using way thing things")
    .split(" "),
);

interface Profile {
  theme: number;
  words: Float32Array[];
  centroid: Float32Array;
}

interface Reading {
  profiles: Profile[];
  model: ThemeWordModel;
}

/** Themes the question is about, each with a weight from 0 to 1 (the first has 1). */
export interface ThemeLift {
  themes: [theme: number, weight: number][];
}

function unit(bytes: Uint8Array): Float32Array {
  const v = new Float32Array(new Int8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n) || 1;
  for (let i = 0; i < v.length; i++) v[i] /= n;
  return v;
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/** `values` as standard scores: their distance from the mean in standard deviations. */
function standard(values: number[]): number[] {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const sd = Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / values.length) || 1;
  return values.map((x) => (x - mean) / sd);
}

const NO_READING: Reading = { profiles: [], model: { themes: [], weights: new Float64Array() } };
const profiles = new HeldPerBudget<Sql, { at: number; value: Promise<Reading>; last?: Reading }>();

/** How questions use the reading: its budget, and whether the first question waits for it. */
export interface ReadingOptions {
  /** Claimed at the reading's size once trained; refused, questions go without it. */
  budget?: MemoryBudget;
  /**
   * False (a server): a question never waits for the reading to be read and trained (about a
   * second at a million rows, started by the server's warm-up, `warmReading`) and goes without it
   * meanwhile; it starts the next reading when the last one is older than PROFILE_TTL_MS. Default true (tools and tests: every answer as a warm server gives it).
   */
  wait?: boolean;
}

/**
 * The words of every theme and the learned reading, read again every PROFILE_TTL_MS per
 * database. Only the first question waits for them (unless `wait` is false): later ones are
 * answered with the last reading while the next is read and trained.
 */
function themeProfiles(sql: Sql, options: ReadingOptions = {}): Promise<Reading> {
  const kept = profiles.get(sql, options.budget);
  const waits = options.wait ?? true;
  if (kept && Date.now() - kept.at < PROFILE_TTL_MS) {
    return kept.last
      ? Promise.resolve(kept.last)
      : waits
      ? kept.value
      : Promise.resolve(NO_READING);
  }
  // A server's first reading is started by its warm-up (warmReading), after its first answers:
  // a question does not start it and share the cores with itself (src/platform/first_requests.ts).
  if (!kept && !waits) return Promise.resolve(NO_READING);
  const last = kept?.last;
  // The lift only reorders an answer: when the profiles cannot be read (a statement time-out
  // under load), questions are answered with the last reading or without it, and the next try
  // waits PROFILE_RETRY_MS.
  const value: Promise<Reading> = readBoth(sql).then((read) => {
    const reading = !options.budget || options.budget.claim("question_reading", readingBytes(read))
      ? read
      : NO_READING;
    profiles.set(sql, options.budget, { at: Date.now(), value, last: reading });
    return reading;
  }, () => {
    const retry = Date.now() - PROFILE_TTL_MS + PROFILE_RETRY_MS;
    profiles.set(sql, options.budget, { at: retry, value, last });
    return last ?? NO_READING;
  });
  profiles.set(sql, options.budget, { at: Date.now(), value, last });
  return last ? Promise.resolve(last) : waits ? value : Promise.resolve(NO_READING);
}

/** The bytes a reading holds: its word vectors and centroids, and the learned weights. */
function readingBytes(reading: Reading): number {
  let bytes = reading.model.weights.byteLength;
  for (const p of reading.profiles) {
    bytes += p.centroid.byteLength + 64;
    for (const w of p.words) bytes += w.byteLength + 64;
  }
  return bytes;
}

/** Starts reading and training the reading of `sql` (a server's start), awaited by nobody. */
export function warmReading(sql: Sql, options: ReadingOptions = {}): Promise<void> {
  return themeProfiles(sql, { ...options, wait: true }).then(() => {});
}

async function readBoth(sql: Sql): Promise<Reading> {
  const profiles = await readProfiles(sql);
  // Without the learned reading (its statement timed out), the nearest words still answer.
  const words = await readThemeWords(sql, { rows: PROFILE_ROWS, generic: [...GENERIC], unit })
    .catch(() => ({ themes: [], examples: [] }));
  return { profiles, model: await trainThemeWords(words.themes, words.examples) };
}

async function readProfiles(sql: Sql): Promise<Profile[]> {
  const rows = await sql<{ theme: number; share: number; concentration: number; v: Uint8Array }[]>`
    with picked as (
      select t.id as theme, o.id, lower(o.title || ' ' || o.description || ' ' ||
        array_to_string(o.key_features, ' ') || ' ' || array_to_string(o.competitors, ' ')) as text
      from themes t cross join lateral (
        select o.id, o.title, o.description, o.key_features, o.competitors from opportunities o
        where o.theme_id = t.id and o.is_online_deliverable order by o.score desc, o.created_at desc, o.id desc
        limit ${PROFILE_ROWS}) o
    ),
    sizes as (select theme, count(*)::float8 as n from picked group by theme),
    words as (
      select distinct p.theme, p.id, w.word
      from picked p, regexp_split_to_table(p.text, '[^a-z]+') as w(word)
      where length(w.word) > 1
    ),
    shares as (
      select c.theme, c.word, c.n / s.n as share, sum(c.n / s.n) over (partition by c.word) as total
      from (select theme, word, count(*)::float8 as n from words group by theme, word) c
      join sizes s on s.theme = c.theme
    )
    select c.theme, c.share, c.share / c.total as concentration, v.v
    from shares c join word_vectors v on v.word = c.word
    where c.share >= ${MIN_SHARE} and c.share / c.total >= ${MIN_CONCENTRATION}
      and ts_lexize('english_stem', c.word) <> '{}'
      and c.word not in (select jsonb_array_elements_text(${
    JSON.stringify([...GENERIC])
  }::text::jsonb))`;
  const byTheme = new Map<number, { words: Float32Array[]; sum: Float32Array }>();
  for (const r of rows) {
    const v = unit(r.v);
    const p = byTheme.get(r.theme) ?? { words: [], sum: new Float32Array(v.length) };
    p.words.push(v);
    for (let i = 0; i < v.length; i++) p.sum[i] += r.share * r.concentration * v[i];
    byTheme.set(r.theme, p);
  }
  return [...byTheme].map(([theme, p]) => {
    const n = Math.sqrt(dot(p.sum, p.sum)) || 1;
    return { theme, words: p.words, centroid: p.sum.map((x) => x / n) };
  });
}

/** The themes `q` is about (see the module comment); none when no word of it is known. */
export async function themeLift(
  sql: Sql,
  q: string | undefined,
  options: ReadingOptions = {},
): Promise<ThemeLift> {
  const scored = await themeScores(sql, q, options);
  if (scored.length === 0) return { themes: [] };
  // Weights relative to the first theme, measured from the first theme left out (or the last).
  const base = scored[Math.min(THEMES, scored.length - 1)].score;
  const span = scored[0].score - base;
  if (span <= 0) return { themes: [] };
  return {
    themes: scored.slice(0, THEMES).map((s) => [s.theme, (s.score - base) / span]),
  };
}

/**
 * Every theme's score for `q` by its word vectors (standard scores of the two readings added),
 * best first; none when no word of it is known.
 */
export async function themeScores(
  sql: Sql,
  q: string | undefined,
  options: ReadingOptions = {},
): Promise<{ theme: number; score: number }[]> {
  const words = [...new Set(q?.toLowerCase().match(/[a-z]+/g) ?? [])]
    .filter((w) => w.length > 1 && !GENERIC.has(w));
  if (words.length === 0) return [];
  const found = await sql<{ v: Uint8Array }[]>`
    select v from word_vectors
    where word in (select jsonb_array_elements_text(${JSON.stringify(words)}::text::jsonb))
      and ts_lexize('english_stem', word) <> '{}'`;
  if (found.length === 0) return [];
  const vectors = found.map((r) => unit(r.v));
  const mean = new Float32Array(vectors[0].length);
  for (const v of vectors) for (let i = 0; i < v.length; i++) mean[i] += v[i];
  const norm = Math.sqrt(dot(mean, mean)) || 1;
  const reading = await themeProfiles(sql, options);
  const near = new Map(reading.profiles.map((p) => {
    let sum = 0;
    for (const v of vectors) {
      let best = 0;
      for (const w of p.words) best = Math.max(best, dot(v, w));
      sum += Math.max(0, (best - FLOOR) / (1 - FLOOR));
    }
    return [p.theme, sum / vectors.length + CENTROID * dot(mean, p.centroid) / norm];
  }));
  const learned = scoreThemeWords(reading.model, vectors);
  const themes = [...new Set([...near.keys(), ...learned.keys()])];
  const a = standard(themes.map((t) => near.get(t) ?? 0));
  const b = learned.size ? standard(themes.map((t) => learned.get(t) ?? 0)) : a.map(() => 0);
  return themes.map((theme, i) => ({ theme, score: a[i] + LEARNED * b[i] }))
    .sort((x, y) => y.score - x.score);
}

/**
 * What the lift adds to the relevance of the rows `ids`: `weight` (the question's own words'
 * full relevance) times SHARE times the weight of the row's theme. SHARE < 1: a row that covers
 * the question in its own words ranks above one that only belongs to the right theme.
 */
export const SHARE = 0.5;

export async function themeBoosts(
  sql: Sql,
  ids: number[],
  lift: ThemeLift,
  weight: number,
  options: { share?: number } = {},
): Promise<Map<number, number>> {
  if (ids.length === 0 || lift.themes.length === 0) return new Map();
  const of = new Map(lift.themes);
  const share = options.share ?? SHARE;
  const themes = await themesOf(sql, ids);
  return new Map([...themes].map(([id, theme]) => [id, share * weight * (of.get(theme) ?? 0)]));
}

/** The theme of each of the rows `ids`. */
export async function themesOf(sql: Sql, ids: number[]): Promise<Map<number, number>> {
  if (ids.length === 0) return new Map();
  const rows = await sql<{ id: number; theme_id: number }[]>`
    select o.id, o.theme_id from opportunities o
    where o.id in (select jsonb_array_elements_text(${JSON.stringify(ids)}::text::jsonb)::int)`;
  return new Map(rows.map((r) => [r.id, r.theme_id]));
}

/** Rows of a lifted theme a best-match answer adds to its candidates, at most. */
const LIFTED_ROWS = 30;
/** ...found among the theme's first LIFTED_SCAN rows in score order (a bounded walk). */
const LIFTED_SCAN = 500;

/**
 * The best rows that `match` of each theme lifted by half or more: candidates of a best-match
 * answer (whose candidates are otherwise the best-scored rows of each word, which at a million
 * rows can all belong to other themes). `query` is the list query in score order.
 */
export function liftedRows(
  sql: Sql,
  lift: ThemeLift,
  options: { query: OpportunityQuery; force: boolean; match: (sql: Sql) => postgres.Fragment },
): Promise<ListRow[]> {
  const themes = lift.themes.filter(([, weight]) => weight >= 0.5).map(([theme]) => theme);
  return rowsOfThemes(sql, themes, LIFTED_ROWS, {
    ...options,
    match: (tx, theme) =>
      tx`${options.match(tx)} and o.id in (
        select l.id from opportunities l where l.theme_id = ${theme}
        order by l.score desc, l.created_at desc, l.id desc limit ${LIFTED_SCAN})`,
  });
}

/** Rows of each theme a question means (src/catalog/meaning/reading.ts) joining its answer. */
export const MEANT_ROWS = 30;

/**
 * The best-scored rows of each theme in `themes` that `match` (the list's filters, less the rows
 * that hold the question's words, which the answer has already): the rows a question's meaning
 * adds to its answer. A walk of the theme's sort index, MEANT_ROWS rows each.
 */
export function meantRows(
  sql: Sql,
  themes: number[],
  options: { query: OpportunityQuery; force: boolean; match: (sql: Sql) => postgres.Fragment },
): Promise<ListRow[]> {
  return rowsOfThemes(sql, themes, MEANT_ROWS, {
    ...options,
    match: (tx, theme) => tx`and o.theme_id = ${theme} ${options.match(tx)}`,
  });
}

/** The first `size` rows in the list's order of each theme's `match`, theme after theme. */
async function rowsOfThemes(
  sql: Sql,
  themes: number[],
  size: number,
  options: {
    query: OpportunityQuery;
    force: boolean;
    match: (sql: Sql, theme: number) => postgres.Fragment;
  },
): Promise<ListRow[]> {
  const rows: ListRow[] = [];
  for (const theme of themes) {
    rows.push(
      ...await findPage(
        sql,
        { ...options.query, page_size: size },
        "planner",
        options.force,
        (tx) => options.match(tx, theme),
      ),
    );
  }
  return rows;
}
