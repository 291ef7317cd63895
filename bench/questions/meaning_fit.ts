/**
 * The arithmetic of calibrating a confidence (bench/questions/meaning.ts): a logistic regression
 * fitted by gradient descent, the area under the ROC curve of scores against right and wrong
 * answers, and the expected calibration error over equal-width bins.
 */

/** Weights (bias first) of a logistic regression of `y` on the rows of `x`. */
export function fitLogistic(x: number[][], y: boolean[], epochs = 20_000, rate = 0.1): number[] {
  const w = new Array(x[0].length + 1).fill(0);
  for (let epoch = 0; epoch < epochs; epoch++) {
    const g = new Array(w.length).fill(0);
    for (let n = 0; n < x.length; n++) {
      const z = w[0] + x[n].reduce((s, v, i) => s + v * w[i + 1], 0);
      const d = 1 / (1 + Math.exp(-z)) - (y[n] ? 1 : 0);
      g[0] += d;
      for (let i = 0; i < x[n].length; i++) g[i + 1] += d * x[n][i];
    }
    for (let i = 0; i < w.length; i++) w[i] -= rate * g[i] / x.length;
  }
  return w.map((v) => Math.round(v * 1000) / 1000);
}

/** The probability that a right answer scores above a wrong one (ties count half). */
export function rocAuc(scores: number[], right: boolean[]): number {
  const pos = scores.filter((_, i) => right[i]);
  const neg = scores.filter((_, i) => !right[i]);
  if (pos.length === 0 || neg.length === 0) return NaN;
  let wins = 0;
  for (const p of pos) for (const n of neg) wins += p > n ? 1 : p === n ? 0.5 : 0;
  return wins / (pos.length * neg.length);
}

/** The mean gap between confidence and accuracy over `bins` equal-width bins, by weight. */
export function expectedCalibrationError(scores: number[], right: boolean[], bins = 10): number {
  let error = 0;
  for (let b = 0; b < bins; b++) {
    const inBin = scores.map((s, i) => [s, right[i]] as const)
      .filter(([s]) => s >= b / bins && (s < (b + 1) / bins || (b === bins - 1 && s <= 1)));
    if (inBin.length === 0) continue;
    const confidence = inBin.reduce((a, [s]) => a + s, 0) / inBin.length;
    const accuracy = inBin.filter(([, r]) => r).length / inBin.length;
    error += inBin.length / scores.length * Math.abs(confidence - accuracy);
  }
  return error;
}
