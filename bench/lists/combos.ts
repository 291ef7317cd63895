/**
 * bench/lists/: the parts of the lists family (bench/lists.ts, also used by bench/cold.ts and
 * bench/replicas.ts): the random combinations of filters and pages (this file), what the bench
 * asks of the servers it starts (service.ts) and the FastAPI + asyncpg peer (peer_fastapi.py).
 *
 * The random-combinations scenario of bench:lists: distinct query strings of the list filters
 * drawn with a fixed seed (min_score 0-90, recommendation half the time, platform half the time,
 * category, channel or theme now and then, each sub-score bound and a sub-score order now and
 * then, page 1-50), loaded with wrk at 50 connections:
 *
 * - cold: a fresh server (its cache empty), the first pass over the strings, in order, each
 *   string asked once (the list is made long enough for the whole run);
 * - warm: the first `strings` strings again and again, after one pass that fills the cache;
 * - peer: the FastAPI + asyncpg peer on the cold strings (it has no cache: cold and warm alike).
 *
 * Before the load, a sample of the strings is asked of the service and the peer one by one, and
 * their totals and item ids must be equal.
 */
import postgres from "postgres";
import { type WrkResult, wrkRun } from "../harness/wrk.ts";
import { mulberry32 as random } from "../../src/ingest/demo_random.ts";
import { SUB_SCORE_SORTS } from "../../src/catalog/schemas.ts";
import { SUB_SCORE_FILTERS } from "../../src/catalog/lists/sub_scores.ts";

/** The values the strings draw from, as the database has them. */
export interface ComboValues {
  platforms: string[];
  categories: string[];
  channels: string[];
  themes: string[];
}

/** The values the strings draw from, read from the database. */
export async function comboValues(
  url: string,
): Promise<ComboValues> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const platforms = await sql<{ v: string }[]>`
      select distinct platform as v from opportunity_counts_by_platform order by 1`;
    const categories = await sql<{ v: string }[]>`select slug as v from categories order by 1`;
    const themes = await sql<{ v: string }[]>`select slug as v from themes order by 1`;
    // The channels with the most rows: a channel of a handful of rows tells nothing.
    const channels = await sql<{ v: string }[]>`
      select channel_name as v from opportunity_counts group by 1 order by sum(n) desc limit 40`;
    return {
      platforms: platforms.map((r) => r.v),
      categories: categories.map((r) => r.v),
      channels: channels.map((r) => r.v),
      themes: themes.map((r) => r.v),
    };
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** `count` distinct query strings of the list, the same on every run (seed 38). */
export function comboPaths(
  count: number,
  values: ComboValues,
): string[] {
  const next = random(38);
  const pick = <T>(list: T[]): T => list[Math.floor(next() * list.length)];
  const seen = new Set<string>();
  const paths: string[] = [];
  // Bounded: the space holds millions of strings, far more than any count asked for.
  for (let tries = 0; paths.length < count && tries < count * 20; tries++) {
    const params = new URLSearchParams();
    params.set("min_score", String(Math.floor(next() * 91)));
    if (next() < 0.5) params.set("recommendation", pick(["Build", "Validate", "Skip"]));
    if (next() < 0.5) params.set("platform", pick(values.platforms));
    const extra = next();
    if (extra < 0.1) params.set("category", pick(values.categories));
    else if (extra < 0.15) params.set("channel", pick(values.channels));
    else if (extra < 0.3) params.set("theme", pick(values.themes));
    for (const bound of SUB_SCORE_FILTERS) {
      if (next() < 0.15) params.set(bound, String(Math.floor(next() * 11)));
    }
    if (next() < 0.2) params.set("sort", pick([...SUB_SCORE_SORTS]));
    params.set("page", String(1 + Math.floor(next() * 50)));
    const path = `/api/v1/opportunities?${params}`;
    if (seen.has(path)) continue;
    seen.add(path);
    paths.push(path);
  }
  return paths;
}

/** Asks `sample` strings of the service and the peer; returns the strings whose answers differ. */
export async function compareWithPeer(
  service: string,
  peer: string,
  paths: string[],
  key: string,
): Promise<string[]> {
  const differ: string[] = [];
  for (const path of paths) {
    const [a, b] = await Promise.all([
      fetch(service + path, { headers: { "x-api-key": key } }).then((r) => r.json()),
      fetch(peer + path).then((r) => r.json()),
    ]);
    const ids = (x: { items?: { id: number }[] }) => (x.items ?? []).map((i) => i.id).join(",");
    if (a.total !== b.total || ids(a) !== ids(b)) differ.push(path);
  }
  return differ;
}

/** A row of the results table. */
export function wrkRow(name: string, r: WrkResult): string {
  const statuses = Object.entries(r.statuses).map(([c, n]) => `${c}: ${n}`).join(", ");
  return `| ${name} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ` +
    `${r.max.toFixed(0)} | ${statuses} | ${r.errors + r.timeouts} | ${r.passes.toFixed(2)} |`;
}

export const WRK_HEADER =
  "| run | req/s | p50 ms | p99 ms | max ms | statuses | errors | passes |\n" +
  "|---|---|---|---|---|---|---|---|";

export { wrkRun };
