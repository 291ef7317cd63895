/**
 * The catalogue's side of reading by meaning (sql/0023_meaning_vectors.sql): the sentence
 * vectors of every theme (its name and summary), every category (name and description) and the
 * titles of each theme's TITLES best-scored online opportunities (they say its jobs and
 * audiences in the catalogue's own words).
 *
 * - Written by `syncMeaning` when the catalogue changes: an import or a seed that has an encoder
 *   runs it at its end, and a server runs it at its start and whenever a question finds texts
 *   without vectors at a new data version (in the background: that question is answered with
 *   the vectors there are, the next one with all of them). Only texts without a vector are
 *   embedded; vectors of texts no longer there are deleted.
 * - Read into memory once per data version and database (about 2 KB a vector: 1,300 vectors,
 *   2.7 MB, for 40 themes).
 */
import type { Sql } from "../../db/open.ts";
import { HeldPerBudget, type MemoryBudget } from "../../platform/memory.ts";
import { type Encoder, readyEncoder } from "./encoder.ts";

/** Titles embedded per theme: its best-scored online opportunities' distinct titles. */
export const TITLES = 30;

/** The catalogue's vectors at one data version. */
export interface MeaningVectors {
  version: number;
  themes: Map<number, ThemeVectors>;
  categories: Map<number, Float32Array>;
  /** Each theme's slug, by id. */
  slugs: Map<number, string>;
  /** Texts that had no vector when read (a sync was due). */
  missing: number;
  bytes: number;
}

/** A theme's vectors: its own text's, its titles' and their mean (unit length). */
export interface ThemeVectors {
  vector: Float32Array;
  titles: Float32Array[];
  centroid?: Float32Array;
}

/** The mean of unit vectors, scaled to length 1. */
function centroidOf(vectors: Float32Array[]): Float32Array | undefined {
  if (vectors.length === 0) return undefined;
  const c = new Float32Array(vectors[0].length);
  for (const v of vectors) for (let i = 0; i < c.length; i++) c[i] += v[i];
  let n = 0;
  for (const x of c) n += x * x;
  n = Math.sqrt(n) || 1;
  return c.map((x) => x / n);
}

interface Wanted {
  kind: "theme" | "category" | "title";
  ref: number;
  hash: string;
  text: string;
  stored: boolean;
}

/** Every text the catalogue wants a vector for, and whether one is stored. */
function wanted(sql: Sql) {
  return sql<Wanted[]>`
    with texts as (
      select 'theme' as kind, t.id as ref, t.name || '. ' || t.summary as text from themes t
      union all
      select 'category', c.id, c.name || '. ' || c.description from categories c
      union all
      select distinct 'title', t.id, o.title from themes t cross join lateral (
        select o.title from opportunities o
        where o.theme_id = t.id and o.is_online_deliverable
        order by o.score desc, o.created_at desc, o.id desc limit ${TITLES * 3}) o
    ),
    ranked as (
      -- The first TITLES distinct titles of each theme (a title can repeat across rows).
      select x.*, md5(x.text) as hash,
        row_number() over (partition by x.kind, x.ref order by x.text) as n
      from texts x
    )
    select r.kind, r.ref, r.hash, r.text,
      exists (select 1 from meaning_vectors m
        where m.kind = r.kind and m.ref = r.ref and m.hash = r.hash) as stored
    from ranked r where r.kind <> 'title' or r.n <= ${TITLES}`;
}

function toBytes(v: Float32Array): Uint8Array {
  return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
}

function toVector(bytes: Uint8Array): Float32Array {
  const copy = new Uint8Array(bytes);
  return new Float32Array(copy.buffer, 0, copy.byteLength / 4);
}

/**
 * Embeds the catalogue's texts that have no vector yet and deletes the vectors of texts gone
 * (see the module comment). Returns how many were embedded. `onProgress` hears of each batch.
 */
export async function syncMeaning(
  sql: Sql,
  encoder: Encoder,
  options: { onProgress?: (done: number, total: number) => void } = {},
): Promise<number> {
  const all = await wanted(sql);
  const missing = all.filter((w) => !w.stored);
  const CHUNK = 128;
  for (let i = 0; i < missing.length; i += CHUNK) {
    const chunk = missing.slice(i, i + CHUNK);
    const vectors = await encoder.embed(chunk.map((w) => w.text));
    const rows = chunk.map((w, k) => ({
      kind: w.kind,
      ref: w.ref,
      hash: w.hash,
      v: toBytes(vectors[k]),
    }));
    await sql`insert into meaning_vectors ${sql(rows)} on conflict do nothing`;
    options.onProgress?.(Math.min(i + CHUNK, missing.length), missing.length);
  }
  const keep = all.map((w) => `${w.kind}:${w.ref}:${w.hash}`);
  await sql`
    delete from meaning_vectors m where m.kind || ':' || m.ref || ':' || m.hash not in (
      select jsonb_array_elements_text(${JSON.stringify(keep)}::text::jsonb))`;
  return missing.length;
}

/** Reads the stored vectors (see the module comment). */
export async function readMeaning(sql: Sql, version: number): Promise<MeaningVectors> {
  const [rows, [{ missing }], named] = await Promise.all([
    sql<{ kind: string; ref: number; v: Uint8Array }[]>`
      select kind, ref, v from meaning_vectors order by kind, ref, hash`,
    sql<{ missing: number }[]>`
      select ((select count(*) from themes) + (select count(*) from categories)
        - (select count(*) from meaning_vectors where kind <> 'title'))::int as missing`,
    sql<{ id: number; slug: string }[]>`select id, slug from themes`,
  ]);
  const themes = new Map<number, ThemeVectors>();
  const categories = new Map<number, Float32Array>();
  const themeOf = (ref: number) => {
    const found = themes.get(ref) ?? { vector: new Float32Array(), titles: [] };
    themes.set(ref, found);
    return found;
  };
  for (const row of rows) {
    const v = toVector(row.v);
    if (row.kind === "category") categories.set(row.ref, v);
    else if (row.kind === "theme") themeOf(row.ref).vector = v;
    else themeOf(row.ref).titles.push(v);
  }
  // A theme with titles but no vector of its own (its text changed since) is left out.
  for (const [id, theme] of themes) {
    if (theme.vector.length === 0) themes.delete(id);
    else theme.centroid = centroidOf(theme.titles);
  }
  const bytes = rows.reduce((sum, r) => sum + r.v.byteLength, 0);
  const slugs = new Map(named.map((t) => [t.id, t.slug]));
  return { version, themes, categories, slugs, missing: Math.max(0, missing), bytes };
}

const held = new HeldPerBudget<
  Sql,
  { version: number; value: Promise<MeaningVectors | undefined> }
>();
const syncing = new WeakMap<Sql, Promise<number>>();

/**
 * syncMeaning on `sql`, one at a time: a server's start and a question that finds texts without a
 * vector share the run already going rather than embed the same texts twice. The vectors held
 * for `sql` are read again after it.
 */
export function syncMeaningOnce(sql: Sql, encoder: Encoder): Promise<number> {
  const running = syncing.get(sql);
  if (running) return running;
  const run = syncMeaning(sql, encoder).finally(() => {
    syncing.delete(sql);
    held.delete(sql);
  });
  syncing.set(sql, run);
  return run;
}

/**
 * The vectors at `version` on `sql`, read once per version; undefined when the encoder is not
 * ready or none are stored. When some are missing, a sync starts in the background (on
 * `primary`, where writes go) and the vectors are read again at its end.
 */
export function meaningAt(
  sql: Sql,
  version: number,
  options: {
    primary?: Sql;
    onError?: (error: unknown) => void;
    /** Claimed at the vectors' size once read; refused, questions are read by their words. */
    budget?: MemoryBudget;
  } = {},
): Promise<MeaningVectors | undefined> {
  const encoder = readyEncoder();
  if (!encoder) return Promise.resolve(undefined);
  const kept = held.get(sql, options.budget);
  if (kept && kept.version === version) return kept.value;
  const value = readMeaning(sql, version).then((read) => {
    if (read.missing > 0) {
      syncMeaningOnce(options.primary ?? sql, encoder)
        .then(() => held.delete(sql), options.onError);
    }
    if (read.themes.size === 0) return undefined;
    // Each vector with its Map entry and array slot; the theme centroids beside them.
    const bytes = read.bytes * 1.25 + (read.themes.size + read.categories.size) * 2048;
    return !options.budget || options.budget.claim("meaning_vectors", bytes) ? read : undefined;
  }, (error) => {
    held.delete(sql);
    options.onError?.(error);
    return undefined;
  });
  held.set(sql, options.budget, { version, value });
  return value;
}

/** Waits for a sync running on `sql` (tests, and a server's stop). */
export async function meaningSettled(sql: Sql): Promise<void> {
  await syncing.get(sql);
}
