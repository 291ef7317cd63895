/**
 * bench:list-index: the list index (src/catalog/list_index.ts) on its own, without HTTP or the
 * admission statement: how long a load of the whole catalogue takes, how much memory it holds,
 * and how long each of the random-combinations strings of bench:lists (lists_combos.ts, the same
 * seed) takes to answer from it (total and page ids, no row read).
 */
import postgres from "postgres";
import { arg, exitWithHelpIfAsked } from "./args.ts";
import { comboPaths, comboValues } from "./lists_combos.ts";
import { type ListIndex, loadListIndex } from "../src/catalog/list_index.ts";
import { indexPage } from "../src/catalog/list_index_page.ts";
import { parseQuery } from "../src/catalog/params.ts";
import { OpportunityQuerySchema } from "../src/catalog/schemas.ts";
import type { Sql } from "../src/db/open.ts";

exitWithHelpIfAsked(`
Usage: deno task bench:list-index [--database NAME] [--strings N] [--loads N]

  --database NAME  a database on the local PostgreSQL that holds the catalogue (default oppintel_1m)
  --strings N      random-combination strings to answer (default 3000)
  --loads N        loads of the index to time (default 2)
`);

const DATABASE = arg("--database", "oppintel_1m");
const URL_ = `postgres://postgres@127.0.0.1:5432/${DATABASE}`;
const STRINGS = Number(arg("--strings", "3000"));
const LOADS = Number(arg("--loads", "2"));

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

const sql = postgres(URL_, { max: 2, onnotice: () => {} }) as unknown as Sql;
try {
  let index: ListIndex | undefined;
  for (let i = 0; i < LOADS; i++) {
    const before = Deno.memoryUsage().heapUsed + Deno.memoryUsage().external;
    const started = performance.now();
    const loaded = await loadListIndex(sql);
    const ms = performance.now() - started;
    if (loaded === "too_large") throw new Error("The catalogue is larger than the index holds");
    index = undefined;
    index = loaded;
    const after = Deno.memoryUsage().heapUsed + Deno.memoryUsage().external;
    console.log(
      `load ${i + 1}: ${index.rows} rows in ${ms.toFixed(0)} ms ` +
        `(memory grew ${((after - before) / 1e6).toFixed(0)} MB, rss ` +
        `${(Deno.memoryUsage().rss / 1e6).toFixed(0)} MB)`,
    );
  }
  const paths = comboPaths(STRINGS, await comboValues(URL_));
  const queries = paths.map((p) => parseQuery(OpportunityQuerySchema, new URL(p, "http://x.test")));
  for (const round of [1, 2]) {
    const times: number[] = [];
    const slowest: [number, string][] = [];
    const started = performance.now();
    for (const [i, query] of queries.entries()) {
      const t = performance.now();
      indexPage(index!, query);
      times.push(performance.now() - t);
      slowest.push([times.at(-1)!, paths[i]]);
    }
    slowest.sort((a, b) => b[0] - a[0]);
    const total = performance.now() - started;
    times.sort((a, b) => a - b);
    console.log(
      `round ${round}: ${queries.length} strings in ${total.toFixed(0)} ms ` +
        `(mean ${(total / queries.length).toFixed(3)} ms, p50 ${
          percentile(times, 0.5).toFixed(3)
        }, ` +
        `p99 ${percentile(times, 0.99).toFixed(3)}, max ${times.at(-1)!.toFixed(3)} ms)`,
    );
    if (round === 2) {
      for (const [ms, path] of slowest.slice(0, 5)) console.log(`  ${ms.toFixed(2)} ms ${path}`);
    }
  }
} finally {
  await sql.end({ timeout: 5 });
}
