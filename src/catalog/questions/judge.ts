/**
 * How well an answer to a question addresses it: each item's relevance, the answer's confidence
 * (its best candidate's relevance, the same on every page and in every order), the question's
 * words nothing holds, the words that changed nothing and, below 0.5, what to ask instead
 * (suggestions.ts). A question of framing words only has nothing to judge: confidence null.
 *
 * - Read by meaning (src/catalog/meaning/): an item's relevance is the probability that it
 *   answers the question, from its words and its theme's nearness (meaning/calibration.ts).
 * - Read by its words only (the encoder not ready): the share of the question's weight the item
 *   holds, on the similarity scale of confidence.ts.
 */
import type { Sql } from "../../db/open.ts";
import type { ListRow } from "../lists/list_items.ts";
import {
  type NamedTerm,
  type QuestionTerm,
  questionTerms,
  relevances,
  unmatchedTerms,
} from "./confidence.ts";
import { suggestionsByMeaning, suggestionsFor } from "./suggestions.ts";
import type { Suggestion } from "../schemas.ts";
import type { Named } from "./subject.ts";
import type { Meaning } from "../meaning/reading.ts";
import { calibrated, type Evidence } from "../meaning/calibration.ts";
import { themesOf } from "../meaning/expansion.ts";

/** The best candidates whose relevance makes the confidence. */
const JUDGED = 50;

/** Below it, an answer does not address its question. */
export const CONFIDENT = 0.5;

/** What an answer says of its own quality. */
export interface Judged {
  /** Each item's relevance by id; absent when there is nothing to judge. */
  relevance?: Map<number, number>;
  confidence: number | null;
  unmatched_terms: string[];
  suggestions: Suggestion[];
  ignored_terms: string[];
}

/** A question as judged: its significant words (exclusions out) and what it names. */
export interface Judging {
  sql: Sql;
  memo: <T>(key: string, compute: () => Promise<T>) => Promise<T>;
  /** The key of the question's reading and filters. */
  key: string;
  words: string;
  /** Only framing words: nothing to judge. */
  framed: boolean;
  named?: Named;
  /** What the subject means, when the encoder read it. */
  meaning?: Meaning;
  /** Framing words that changed nothing. */
  ignored: string[];
  /** The subject as read (q syntax). */
  subject: string;
  /** The public base URL (suggestions carry their pages). */
  base: string;
}

/**
 * The words of the subject that reached no reader: without the encoder, those that are not
 * significant (stop words); with it, none (it reads every word).
 */
function unread(judging: Judging, terms: QuestionTerm[]): string[] {
  if (judging.meaning) return [];
  const read = new Set(terms.map((t) => t.word.toLowerCase()));
  // A word is read when any of its parts is ("no-shows": "shows").
  return judging.subject.split(/\s+/)
    .filter((w) => w && !w.startsWith("-"))
    .map((w) => w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "").toLowerCase())
    .filter((w) =>
      w && !/^or$/i.test(w) && !w.split(/[^\p{L}\p{N}]+/u).some((part) => read.has(part))
    );
}

let recorder: ((id: number, evidence: Evidence) => void) | undefined;

/**
 * Hears the evidence of every item judged by meaning (the calibration of
 * bench/questions/meaning.ts).
 */
export function recordEvidence(listener: typeof recorder): void {
  recorder = listener;
}

/** Each item's relevance (see the module comment). */
async function relevanceOf(
  judging: Judging,
  ids: number[],
  terms: QuestionTerm[],
  namedTerm: NamedTerm | undefined,
): Promise<Map<number, number>> {
  const { sql, meaning } = judging;
  const lexical = await relevances(sql, ids, terms, namedTerm);
  if (!meaning) return lexical;
  const themes = await themesOf(sql, ids);
  const nearness = new Map(meaning.themes);
  const first = meaning.themes[0]?.[1] ?? 0;
  const margin = first - (meaning.themes[1]?.[1] ?? first);
  const weight = terms.reduce((s, t) => s + t.weight, 0) || 1;
  const unmatched = terms.filter((t) => t.df === 0).reduce((s, t) => s + t.weight, 0) / weight;
  return new Map(ids.map((id) => {
    const near = nearness.get(themes.get(id) ?? -1) ?? 0;
    const evidence = { lexical: lexical.get(id) ?? 0, near, gap: near - first, unmatched, margin };
    recorder?.(id, evidence);
    return [id, calibrated(evidence)];
  }));
}

const UNJUDGED = { confidence: null, unmatched_terms: [], suggestions: [] };

/** Judges the answer whose page is `page` and whose ranked candidates `ranked` gives. */
export async function judgeAnswer(
  judging: Judging,
  page: ListRow[],
  ranked: () => Promise<ListRow[]>,
): Promise<Judged> {
  if (judging.framed) {
    return { ...UNJUDGED, ignored_terms: [...judging.ignored, ...unread(judging, [])] };
  }
  const { sql, named } = judging;
  const answer = await judging.memo(`judged:${judging.key}`, async () => {
    const terms = await questionTerms(sql, judging.words);
    let namedTerm: NamedTerm | undefined;
    if (named) {
      const weight = (await questionTerms(sql, named.phrase)).reduce((s, t) => s + t.weight, 0);
      namedTerm = { themeIds: named.themeIds, weight: weight || 1 };
    }
    const top = (await ranked()).slice(0, JUDGED).map((row) => row.id);
    const scored = await relevanceOf(judging, top, terms, namedTerm);
    const best = top.map((id) => ({ id, relevance: scored.get(id) ?? 0 }))
      .sort((a, b) => b.relevance - a.relevance);
    // Read by meaning, the relevance is calibrated on the first answer: the confidence is the
    // first ranked candidate's (by words, the best of the first JUDGED).
    const confidence = judging.meaning ? scored.get(top[0]) ?? 0 : best[0]?.relevance ?? 0;
    const unsure = confidence < CONFIDENT && (terms.length > 0 || namedTerm || judging.meaning);
    return {
      terms,
      namedTerm,
      scored: [...scored.entries()],
      confidence,
      unmatched_terms: unmatchedTerms(terms),
      ignored_terms: [...judging.ignored, ...unread(judging, terms)],
      suggestions: !unsure
        ? []
        : judging.meaning
        ? await suggestionsByMeaning(sql, judging.meaning, judging.base)
        : await suggestionsFor(sql, terms, { best, base: judging.base }),
    };
  });
  // No significant word (stop words, or only exclusions) and no meaning: nothing to judge.
  if (answer.terms.length === 0 && !answer.namedTerm && !judging.meaning) {
    return { ...UNJUDGED, ignored_terms: answer.ignored_terms };
  }
  const relevance = new Map(answer.scored);
  const missing = page.map((row) => row.id).filter((id) => !relevance.has(id));
  if (missing.length > 0) {
    const more = await relevanceOf(judging, missing, answer.terms, answer.namedTerm);
    for (const id of missing) relevance.set(id, more.get(id) ?? 0);
  }
  return {
    relevance,
    confidence: answer.confidence,
    unmatched_terms: answer.unmatched_terms,
    suggestions: answer.suggestions,
    ignored_terms: answer.ignored_terms,
  };
}
