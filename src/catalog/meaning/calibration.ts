/**
 * An item's relevance to a question read by meaning, as a probability that it answers it: a
 * logistic model of what the answer holds of the question's words and meaning, fitted by
 * `deno task bench:relevance -- --calibrate` on the dev half of the labelled questions
 * (bench/questions/meaning_set.ts, bench/questions/paraphrases.ts, the data-words questions and
 * the questions outside the catalogue): a first answer of the judged theme is right, any other
 * wrong. 0.5 keeps its meaning: at or above it, the item is about the question.
 *
 * - lexical: the share of the question's weight the item holds on the similarity scale
 *   (confidence.ts `relevances`), 0-1.
 * - near: its theme's nearness to the question (reading.ts), about 0.2-0.8.
 * - gap: that nearness less the nearest theme's (0 for an item of the nearest theme).
 * - unmatched: the share of the question's words nothing in the catalogue holds.
 * - margin: the nearest theme's nearness less the second's (how decided the reading is).
 */

/** The evidence of one item. */
export interface Evidence {
  lexical: number;
  near: number;
  gap: number;
  unmatched: number;
  margin: number;
}

/** The fitted weights (bias first), from the last calibration run (bench/results/RELEVANCE.md). */
export const WEIGHTS = {
  bias: -4.391,
  lexical: 5.664,
  near: 4.192,
  gap: 3.784,
  unmatched: 0.965,
  margin: 6.375,
};

/** The probability (to 3 decimals) that an item of this evidence answers its question. */
export function calibrated(e: Evidence, weights = WEIGHTS): number {
  const z = weights.bias + weights.lexical * e.lexical + weights.near * e.near +
    weights.gap * e.gap + weights.unmatched * e.unmatched + weights.margin * e.margin;
  return Math.round(1000 / (1 + Math.exp(-z))) / 1000;
}
