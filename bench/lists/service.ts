/**
 * What bench:lists (bench/lists.ts) asks of the servers it starts besides the combinations of
 * combos.ts: the random scenario's query strings, and the wait for a fresh server's list index
 * (read from /metrics with the token the servers are started with).
 */

/** The services' /metrics token (waitForListIndex reads the list index's rows there). */
export const METRICS_TOKEN = "bench-lists-metrics-token";

/**
 * Waits until the server at `base` holds its list index (/metrics `oppintel_list_index_rows` above
 * 0); returns the seconds waited, or null when the server has no list index metric.
 */
export async function waitForListIndex(base: string, timeoutMs = 180_000): Promise<number | null> {
  const started = performance.now();
  // Bounded: at most timeoutMs / 100 polls.
  while (performance.now() - started < timeoutMs) {
    const response = await fetch(`${base}/metrics`, {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    const text = await response.text();
    const rows = /^oppintel_list_index_rows (\d+)$/m.exec(text);
    if (!rows) return null;
    if (Number(rows[1]) > 0) return (performance.now() - started) / 1000;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`The list index of ${base} was not loaded after ${timeoutMs} ms`);
}

/** Random min_score x page, as the scenario: a fixed seed, 2,000 query strings. */
export function randomPaths(): string[] {
  let state = 28;
  const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  return Array.from({ length: 2000 }, () => {
    const score = Math.floor(next() * 101);
    const page = 1 + Math.floor(next() * 50);
    return `/api/v1/opportunities?min_score=${score}&page=${page}`;
  });
}
