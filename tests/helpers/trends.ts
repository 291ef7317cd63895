/** Theme mention points for the trend tests: import lines of weekly series and known shapes. */

/** The Monday `weeksBefore` weeks before 2026-11-16 (the newest week of the test series). */
export function mondayBefore(weeksBefore: number): string {
  return new Date(Date.UTC(2026, 10, 16) - weeksBefore * 7 * 86_400_000).toISOString()
    .slice(0, 10);
}

/** Import lines of a weekly series (oldest first) of `theme`, its last week 2026-11-16. */
export function weeklyLines(theme: string, weeks: number[]): string[] {
  return weeks.map((mentions, i) =>
    JSON.stringify({
      type: "theme_mentions",
      theme,
      date: mondayBefore(weeks.length - 1 - i),
      mentions,
    })
  );
}

/** `n` weeks around `level`, alternating ±`wobble`. */
export function flatWeeks(n: number, level: number, wobble = 5): number[] {
  return Array.from({ length: n }, (_, i) => level + (i % 2 === 0 ? -wobble : wobble));
}

/** Two years of weeks: steady, then rising in the last weeks (status rising). */
export const RISING = [...flatWeeks(100, 100), 150, 170, 190, 210];
/** Two years of weeks: steady, then falling in the last weeks (status declining). */
export const DECLINING = [...flatWeeks(100, 100), 70, 60, 55, 50];
/** Two years of steady weeks. */
export const STEADY = flatWeeks(104, 40, 1);
