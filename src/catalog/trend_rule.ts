/**
 * The lifecycle rule of a theme and its growth figures, from its weekly mention series: pure,
 * so the import, the demo data and the tests compute them the same way (docs/trends.md states
 * the rule in words; change both together).
 */

/** The lifecycle statuses, in the order the rule tries them after "too few to tell". */
export const TREND_STATUSES = ["emerging", "rising", "steady", "peaked", "declining"] as const;
export type TrendStatus = typeof TREND_STATUSES[number];

/** The windows of growth, as the API names them, with their length in weeks. */
export const GROWTH_WINDOWS = { "7d": 1, "30d": 4, "90d": 13, "1y": 52 } as const;
export type GrowthWindow = keyof typeof GROWTH_WINDOWS;

/** The constants of the rule (documented in docs/trends.md). */
export const TREND_RULE = {
  /** The recent level: the mean of the last weeks. */
  recentWeeks: 4,
  /** The baseline: the median of the weeks before the recent ones (at most this many). */
  baselineWeeks: 26,
  /** Below this many mentions a week, recent and baseline alike, a theme is steady. */
  minWeekly: 5,
  /** z-scores of the recent level against the baseline. */
  zRising: 2,
  zDeclining: -2,
  /** The slope is fitted over the last weeks, per week, relative to their mean. */
  slopeWeeks: 8,
  slopeRising: 0.03,
  slopeDeclining: -0.03,
  /** A peak: a 4-week level within the last 13 weeks this far above the baseline (z)... */
  peakWeeks: 13,
  peakZ: 3,
  /** ...which the recent level has fallen below this fraction of, still above the baseline. */
  peakDrop: 0.75,
} as const;

function mean(values: number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Least-squares slope per week of `values`, relative to their mean (0 for a flat or empty). */
export function relativeSlope(values: number[]): number {
  const n = values.length;
  if (n < 2) return 0;
  const mx = (n - 1) / 2;
  const my = mean(values);
  let num = 0;
  let den = 0;
  values.forEach((v, i) => {
    num += (i - mx) * (v - my);
    den += (i - mx) ** 2;
  });
  return num / den / Math.max(my, 1);
}

/** The measures the rule reads, exposed for the docs and the tests. */
export interface TrendMeasures {
  recent: number;
  baseline: number;
  noise: number;
  z: number;
  slope: number;
  /** The highest 4-week level of the last 13 weeks before the recent one. */
  peak: number;
}

/** The measures of a weekly series (oldest first, the last element the latest week). */
export function trendMeasures(weeks: number[]): TrendMeasures {
  const r = TREND_RULE;
  const n = weeks.length;
  const recent = mean(weeks.slice(-r.recentWeeks));
  const base = weeks.slice(Math.max(0, n - r.recentWeeks - r.baselineWeeks), -r.recentWeeks);
  // Median and median absolute deviation (scaled to a standard deviation): a spike within the
  // baseline weeks moves neither, so a theme is measured against its usual level.
  const baseline = median(base);
  const mad = 1.4826 * median(base.map((v) => Math.abs(v - baseline)));
  // The noise is at least Poisson's (the square root of the level) and at least one mention, so
  // that a flat series of small counts does not make every wobble significant.
  const noise = Math.max(mad, Math.sqrt(baseline), 1);
  let peak = 0;
  for (let end = n - 1; end >= Math.max(r.recentWeeks, n - r.peakWeeks); end--) {
    peak = Math.max(peak, mean(weeks.slice(end - r.recentWeeks, end)));
  }
  return {
    recent,
    baseline,
    noise,
    z: (recent - baseline) / noise,
    slope: relativeSlope(weeks.slice(-r.slopeWeeks)),
    peak,
  };
}

/**
 * The lifecycle status of a weekly series (oldest first, the last element the latest week), or
 * null for an empty one. In order: too few mentions to tell is steady; a theme from (almost)
 * nothing to a real volume is emerging; one that rose well above its baseline within 13 weeks and
 * has fallen back a quarter from there (still above the baseline) is peaked; a recent level well
 * above the baseline, or a clear upward slope, is rising; well below it, or a clear downward
 * slope, is declining; everything else is steady.
 */
export function trendStatus(weeks: number[]): TrendStatus | null {
  if (weeks.length === 0) return null;
  const r = TREND_RULE;
  const m = trendMeasures(weeks);
  if (m.recent < r.minWeekly && m.baseline < r.minWeekly) return "steady";
  if (m.baseline < r.minWeekly && m.z >= r.zRising) return "emerging";
  const peakZ = (m.peak - m.baseline) / m.noise;
  if (peakZ >= r.peakZ && m.recent <= r.peakDrop * m.peak && m.recent > m.baseline) {
    return "peaked";
  }
  if (m.z >= r.zRising || (m.slope >= r.slopeRising && m.z >= 1)) return "rising";
  if (m.z <= r.zDeclining || (m.slope <= r.slopeDeclining && m.z <= -1)) return "declining";
  return "steady";
}

/**
 * Percent change of the mentions of the last `weeks` weeks against the `weeks` before, one
 * decimal, as trend_change counts (from nothing to something is +100%); null when the series is
 * shorter than the two windows.
 */
export function growth(series: number[], weeks: number): number | null {
  if (series.length < 2 * weeks) return null;
  const current = series.slice(-weeks).reduce((a, b) => a + b, 0);
  const previous = series.slice(-2 * weeks, -weeks).reduce((a, b) => a + b, 0);
  if (previous === 0) return current > 0 ? 100 : 0;
  return Math.round((current - previous) * 1000 / previous) / 10;
}

/** Thirty days are counted as the last four weeks, scaled by 30/28 (docs/trends.md). */
export function thirtyDays(series: number[], offsetWeeks = 0): number {
  const end = series.length - offsetWeeks;
  const sum = series.slice(Math.max(0, end - 4), Math.max(0, end)).reduce((a, b) => a + b, 0);
  return Math.round(sum * 30 / 28);
}
