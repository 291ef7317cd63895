/**
 * How well an answer to a question addresses it (confidence.ts): each item's relevance, the
 * answer's confidence (its best candidate's relevance, the same on every page and in every
 * order), the question's words nothing holds and, below 0.5, what to ask instead
 * (suggestions.ts). A question of framing words only has nothing to judge: confidence null.
 */
import type { Sql } from "../db/open.ts";
import type { ListRow } from "./list_items.ts";
import { type NamedTerm, questionTerms, relevances, unmatchedTerms } from "./confidence.ts";
import { suggestionsFor } from "./suggestions.ts";
import type { Suggestion } from "./schemas.ts";
import type { Named } from "./subject.ts";

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
}

const UNJUDGED: Judged = { confidence: null, unmatched_terms: [], suggestions: [] };

/** Judges the answer whose page is `page` and whose ranked candidates `ranked` gives. */
export async function judgeAnswer(
  judging: Judging,
  page: ListRow[],
  ranked: () => Promise<ListRow[]>,
): Promise<Judged> {
  if (judging.framed) return UNJUDGED;
  const { sql, named } = judging;
  const answer = await judging.memo(`judged:${judging.key}`, async () => {
    const terms = await questionTerms(sql, judging.words);
    let namedTerm: NamedTerm | undefined;
    if (named) {
      const weight = (await questionTerms(sql, named.phrase)).reduce((s, t) => s + t.weight, 0);
      namedTerm = { themeIds: named.themeIds, weight: weight || 1 };
    }
    const top = (await ranked()).slice(0, JUDGED).map((row) => row.id);
    const scored = await relevances(sql, top, terms, namedTerm);
    const best = top.map((id) => ({ id, relevance: scored.get(id) ?? 0 }))
      .sort((a, b) => b.relevance - a.relevance);
    const confidence = best[0]?.relevance ?? 0;
    return {
      terms,
      namedTerm,
      scored: [...scored.entries()],
      confidence,
      unmatched_terms: unmatchedTerms(terms),
      suggestions: confidence < CONFIDENT && (terms.length > 0 || namedTerm)
        ? await suggestionsFor(sql, terms, best)
        : [],
    };
  });
  // No significant word (stop words, or only exclusions): nothing to judge either.
  if (answer.terms.length === 0 && !answer.namedTerm) return UNJUDGED;
  const relevance = new Map(answer.scored);
  const missing = page.map((row) => row.id).filter((id) => !relevance.has(id));
  if (missing.length > 0) {
    const more = await relevances(sql, missing, answer.terms, answer.namedTerm);
    for (const id of missing) relevance.set(id, more.get(id) ?? 0);
  }
  return {
    relevance,
    confidence: answer.confidence,
    unmatched_terms: answer.unmatched_terms,
    suggestions: answer.suggestions,
  };
}
