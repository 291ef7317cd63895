/**
 * The search section of bench/results/RESULTS.md, rendered from bench/results/SEARCH.json
 * (bench/questions/search.ts).
 */
import type { LoadResult } from "../harness/load.ts";

export interface SearchResults {
  date: string;
  opportunities: number;
  migrations: { applied: number[]; seconds: number };
  queries: number;
  words: string[];
  shortWords: string[];
  first: {
    p50: number;
    p95: number;
    worst: { label: string; ms: number }[];
    failures: string[];
    wrongTotals: string[];
  };
  repeated: { p95: number };
  load: LoadResult & { connections: number; seconds: number };
}

const PATH = new URL("../results/SEARCH.json", import.meta.url);

/** The results of the last search run, if there was one. */
export async function readSearch(): Promise<SearchResults | undefined> {
  try {
    return JSON.parse(await Deno.readTextFile(PATH)) as SearchResults;
  } catch {
    return undefined;
  }
}

const pass = (ok: boolean) => ok ? "PASS" : "**MISS**";

/** The Markdown section of a search run. */
export function renderSearch(r: SearchResults): string {
  const bad = r.load.non2xx + r.load.errors + r.load.timeouts;
  const lines = [
    "## Keyword search at scale (`deno task bench:search`)",
    "",
    `Run on ${r.date.slice(0, 16).replace("T", " ")} UTC against ` +
    `${r.opportunities.toLocaleString("en-US")} opportunities, with the default 2 s statement ` +
    `time-out. ${r.queries} list queries: each of the 25 most frequent words of the data and ` +
    `each of its ${r.shortWords.length} words of one or two letters, alone and with ` +
    "`platform`, `category`, `min_score=70` and `online_only=false`; plus a rare word, a " +
    "phrase, an exclusion and an OR.",
    "",
    "| Target | Result | |",
    "|---|---|---|",
    `| every query answers 200 with the exact total | ${r.first.failures.length} failed, ` +
    `${r.first.wrongTotals.length} wrong totals | ${
      pass(r.first.failures.length === 0 && r.first.wrongTotals.length === 0)
    } |`,
    `| first request (cache miss), p95 <= 1,000 ms | ${r.first.p95.toFixed(0)} ms ` +
    `(p50 ${r.first.p50.toFixed(0)} ms) | ${pass(r.first.p95 <= 1000)} |`,
    `| repeated request, p95 <= 25 ms | ${r.repeated.p95.toFixed(1)} ms | ` +
    `${pass(r.repeated.p95 <= 25)} |`,
    `| random queries and pages, ${r.load.connections} connections, no 503 | ` +
    `${r.load.rps.toFixed(0)} req/s, p99 ${r.load.p99} ms, ${bad} non-2xx or errors | ` +
    `${pass(bad === 0)} |`,
    "",
    `Slowest first requests: ${
      r.first.worst.map((w) => `\`${w.label}\` ${w.ms.toFixed(0)} ms`).join(", ")
    }.`,
    "",
    `Words (rows containing them): ${r.words.join(", ")}.`,
    "",
    `Short words: ${r.shortWords.join(", ")}.`,
    "",
    r.migrations.applied.length
      ? `Migrations ${r.migrations.applied.join(", ")} applied to this database in ` +
        `${r.migrations.seconds.toFixed(0)} s before the run.`
      : "No migration was pending.",
  ];
  if (r.first.failures.length) lines.push("", `Failed: ${r.first.failures.join("; ")}.`);
  if (r.first.wrongTotals.length) {
    lines.push("", `Wrong totals: ${r.first.wrongTotals.join("; ")}.`);
  }
  return lines.join("\n") + "\n";
}
