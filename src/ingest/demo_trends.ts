/**
 * The demo data's mention history: two years of weekly points per theme, in varied shapes
 * (steady, seasonal, slow rise, emerging, spike and decay, decline) whose last eight weeks carry
 * the theme's 30-day figures, and the theme records with those figures as the points give them
 * (src/catalog/trend_rule.ts thirtyDays), so the two agree exactly.
 */
import { thirtyDays } from "../catalog/trend_rule.ts";
import { ANCHOR, DAY, mix, Random } from "./demo.ts";
import type { ThemeMentionsRecord, ThemeRecord } from "./records.ts";

/** Weeks of history per theme. */
export const DEMO_WEEKS = 104;

/** The shapes of the demo, by the direction of the theme's 30-day figures. */
const SHAPES = {
  up: ["slow-rise", "emerging", "seasonal", "breakout"],
  flat: ["steady", "seasonal", "steady", "slow-rise"],
  down: ["decline", "spike-decay", "seasonal", "decline"],
} as const;
type Shape = typeof SHAPES[keyof typeof SHAPES][number];

/** The Monday of the week of ANCHOR, the newest week of the demo's points. */
export function newestDemoWeek(): number {
  const day = new Date(ANCHOR).getUTCDay(); // 0 is Sunday
  return ANCHOR - ((day + 6) % 7) * DAY;
}

/** The level of week `t` (0 oldest, 95 the last before the 30-day windows) relative to week 95. */
function shapeAt(shape: Shape, t: number, phase: number): number {
  const ago = 95 - t;
  switch (shape) {
    case "steady":
      return 1;
    case "seasonal": {
      const wave = (x: number) => 1 + 0.4 * Math.sin(2 * Math.PI * x / 52 + phase);
      return wave(t) / wave(95);
    }
    case "slow-rise":
      return 1.012 ** -ago;
    case "emerging":
      return 0.02;
    case "breakout":
      return ago < 6 ? 1 : 0.6;
    case "decline":
      return 1.01 ** ago;
    case "spike-decay":
      // Low, then a spike five weeks before the 30-day windows, fading since.
      return ago > 5 ? 0.5 : 0.5 + 2.5 * Math.exp(-(5 - ago) / 3);
  }
}

function direction(theme: ThemeRecord): keyof typeof SHAPES {
  const ratio = theme.mentions_30d / Math.max(theme.mentions_prev_30d, 1);
  return ratio >= 1.1 ? "up" : ratio <= 0.9 ? "down" : "flat";
}

/** The weekly series of one demo theme, oldest first (DEMO_WEEKS weeks). */
export function demoSeries(seed: number, index: number, theme: ThemeRecord): number[] {
  const rnd = new Random(mix(seed, 7000 + index));
  const shapes = SHAPES[direction(theme)];
  const shape = shapes[index % shapes.length];
  const phase = rnd.next() * 2 * Math.PI;
  // Weekly levels of the two 30-day windows (30 days = four weeks scaled by 30/28).
  const before = theme.mentions_prev_30d * 28 / 30 / 4;
  const recent = theme.mentions_30d * 28 / 30 / 4;
  const noisy = (level: number) => Math.max(0, Math.round(level * (1 + rnd.normal(0.05))));
  const weeks: number[] = [];
  for (let t = 0; t < DEMO_WEEKS - 8; t++) weeks.push(noisy(before * shapeAt(shape, t, phase)));
  // An emerging theme was near silent until the last week before the windows.
  const quiet = shape === "emerging" ? 3 : 0;
  for (let t = 0; t < 4; t++) weeks.push(noisy(t < quiet ? before * 0.02 : before));
  for (let t = 0; t < 4; t++) weeks.push(noisy(recent));
  settle(weeks, DEMO_WEEKS - 8, Math.round(before * 4));
  settle(weeks, DEMO_WEEKS - 4, Math.round(recent * 4));
  return weeks;
}

/** Brings the four weeks from `start` to `total` by changing their largest week. */
function settle(weeks: number[], start: number, total: number): void {
  const window = weeks.slice(start, start + 4);
  const largest = start + window.indexOf(Math.max(...window));
  const sum = window.reduce((a, b) => a + b, 0);
  weeks[largest] = Math.max(0, weeks[largest] + total - sum);
}

/** The themes with their 30-day figures as their points give them. */
export function agreeingThemes(seed: number, themes: ThemeRecord[]): ThemeRecord[] {
  return themes.map((theme, i) => {
    const weeks = demoSeries(seed, i, theme);
    return { ...theme, mentions_30d: thirtyDays(weeks), mentions_prev_30d: thirtyDays(weeks, 4) };
  });
}

/** The points of every demo theme (the themes as themeRecords gives them, in that order). */
export function* themeMentionRecords(
  seed: number,
  themes: ThemeRecord[],
): Generator<ThemeMentionsRecord> {
  const newest = newestDemoWeek();
  for (const [i, theme] of themes.entries()) {
    const weeks = demoSeries(seed, i, theme);
    for (const [t, mentions] of weeks.entries()) {
      const date = new Date(newest - (DEMO_WEEKS - 1 - t) * 7 * DAY).toISOString().slice(0, 10);
      yield { type: "theme_mentions", theme: theme.slug, date, mentions };
    }
  }
}
