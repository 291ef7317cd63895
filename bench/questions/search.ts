/**
 * `deno task bench:search`: keyword search at scale. On the benchmark database (1,000,000 demo
 * opportunities by default) it takes the words to search from the data itself (the 25 most
 * frequent words, and every word of one or two letters), asks the service for each alone and with
 * each filter, plus a rare word, a phrase, an exclusion and an OR, and measures:
 * - the first request of each query (a cache miss): p95 and the worst query, every answer 200
 *   with the exact total (checked against a count of its own);
 * - the same queries repeated (cached): p95;
 * - random queries and pages under 50 connections: throughput, p99 and any non-2xx.
 * It applies pending migrations first and reports how long they took. The figures go to
 * bench/results/SEARCH.json, and bench/results/RESULTS.md shows them (rendered by
 * bench/suite/report.ts).
 */
import postgres from "postgres";
import { loadRun, quantile, timeRequest } from "../harness/measure.ts";
import {
  benchAdminUrl,
  createBenchKeys,
  prepareDatabase,
  quotaKeeper,
} from "../harness/prepare.ts";
import { freePort, runToEnd, start, stopAll, waitReady } from "../harness/procs.ts";
import { renderAgain } from "../suite/report.ts";
import type { SearchResults } from "./search_report.ts";

const ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

const HELP = `Usage: deno task bench:search [flags]

Flags:
  --opportunities N   Opportunities in the database (default 1000000; built when missing)
  --database NAME     Database name (default oppintel_bench)
  --connections N     Connections of the throughput run (default 50)
  --duration S        Seconds of the throughput run (default 10)`;

interface Options {
  opportunities: number;
  database: string;
  connections: number;
  duration: number;
}

function parseOptions(args: string[]): Options {
  const o: Options = {
    opportunities: 1_000_000,
    database: "oppintel_bench",
    connections: 50,
    duration: 10,
  };
  for (let i = 0; i < args.length; i++) {
    const [arg, value] = [args[i], args[i + 1]];
    if (arg === "--help" || arg === "-h") {
      console.log(HELP);
      Deno.exit(0);
    }
    if (arg === "--database" && value && /^[a-z_][a-z0-9_]*$/.test(value)) o.database = value;
    else if (
      ["--opportunities", "--connections", "--duration"].includes(arg) && /^\d+$/.test(value ?? "")
    ) {
      const key = arg.slice(2) as "opportunities" | "connections" | "duration";
      o[key] = Number(value);
    } else throw new Error(`Bad flag or value "${arg}" (see --help)`);
    i++;
  }
  return o;
}

function progress(message: string): void {
  console.error(`[search ${new Date().toISOString().slice(11, 19)}] ${message}`);
}

/** One search of the list: its label, its query string, and the filter it adds to `q`. */
interface SearchCase {
  label: string;
  params: Record<string, string>;
}

async function main(args: string[]): Promise<void> {
  const options = parseOptions(args);
  const adminUrl = benchAdminUrl();
  const db = await prepareDatabase(adminUrl, {
    name: options.database,
    opportunities: options.opportunities,
    fresh: false,
    cwd: ROOT,
  });

  progress("applying pending migrations");
  const migrateStarted = performance.now();
  const migrated = await runToEnd(["src/cli/admin.ts", "migrate"], {
    cwd: ROOT,
    env: { DATABASE_URL: db.url },
  });
  if (migrated.code !== 0) throw new Error(`migrate failed: ${migrated.stderr}`);
  const migrationSeconds = (performance.now() - migrateStarted) / 1000;
  const applied = (JSON.parse(migrated.stdout) as { applied: number[] }).applied;
  progress(`migrations ${JSON.stringify(applied)} in ${migrationSeconds.toFixed(1)} s`);

  const sql = postgres(db.url, { max: 1, onnotice: () => {} });
  let cases: SearchCase[];
  let words: { word: string; rows: number }[];
  let short: { word: string; rows: number }[];
  try {
    if (applied.length > 0) await sql.unsafe("vacuum analyze");
    progress("reading the vocabulary of the data (ts_stat)");
    const stats = await sql<{ word: string; ndoc: number }[]>`
      select word, ndoc from ts_stat('select search from opportunities')`;
    const alpha = stats.filter((s) => /^[a-z]+$/.test(s.word)).sort((a, b) => b.ndoc - a.ndoc);
    words = alpha.slice(0, 25).map((s) => ({ word: s.word, rows: s.ndoc }));
    short = stats.filter((s) => /^[a-z0-9]{1,2}$/.test(s.word))
      .sort((a, b) => b.ndoc - a.ndoc).map((s) => ({ word: s.word, rows: s.ndoc }));
    const rare = alpha.filter((s) => s.ndoc >= 1 && s.ndoc <= 50).at(-1)?.word ?? "quokka";
    const [{ platform }] = await sql<{ platform: string }[]>`
      select lower(platform) as platform from opportunities group by 1 order by count(*) desc
      limit 1`;
    const [{ category }] = await sql<{ category: string }[]>`
      select c.slug as category from categories c join themes t on t.category_id = c.id
      join opportunities o on o.theme_id = t.id group by 1 order by count(*) desc limit 1`;
    const filters: [string, Record<string, string>][] = [
      ["", {}],
      [` platform=${platform}`, { platform }],
      [` category=${category}`, { category }],
      [" min_score=70", { min_score: "70" }],
      [" online_only=false", { online_only: "false" }],
    ];
    cases = [];
    for (const { word } of [...words, ...short]) {
      for (const [label, params] of filters) {
        cases.push({ label: `q=${word}${label}`, params: { q: word, ...params } });
      }
    }
    const [first, second] = [words[0].word, words[1].word];
    cases.push(
      { label: `q=${rare} (rare)`, params: { q: rare } },
      { label: 'q="browser extension" (phrase)', params: { q: '"browser extension"' } },
      { label: `q=${first} -${second} (exclusion)`, params: { q: `${first} -${second}` } },
      { label: `q=${rare} OR crm (OR)`, params: { q: `${rare} OR crm` } },
    );
  } finally {
    await sql.end({ timeout: 5 });
  }
  progress(`${cases.length} queries: 25 frequent words, ${short.length} short ones, 5 filters`);

  const keys = await createBenchKeys(db.url);
  const keeper = quotaKeeper(db.url);
  const port = freePort();
  const service = await start("search-service", ["main.ts"], {
    cwd: ROOT,
    env: { DATABASE_URL: db.url, PORT: String(port), SEED_DEMO: "off" },
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitReady(service, `${base}/healthz`);
    await keeper.reset();
    keeper.startLoop();
    const headers = { "X-API-Key": keys.pro };
    const url = (params: Record<string, string>) =>
      `${base}/api/v1/opportunities?${new URLSearchParams(params)}`;

    // Each query is asked twice in a row: the first request is a cache miss, the second is
    // answered from the cache (entries live 60 s, so the repeat must come right after).
    progress("first requests (cache misses) and their repeats (cached), one at a time");
    const first: { label: string; ms: number; status: number; total?: number }[] = [];
    const repeated: number[] = [];
    for (const [i, c] of cases.entries()) {
      const started = performance.now();
      const response = await fetch(url(c.params), { headers, signal: AbortSignal.timeout(30_000) });
      const body = await response.json() as { total?: number };
      first.push({
        label: c.label,
        ms: performance.now() - started,
        status: response.status,
        total: body.total,
      });
      repeated.push((await timeRequest(url(c.params), { headers })).ms);
      if ((i + 1) % 50 === 0) progress(`${i + 1} of ${cases.length} queries`);
    }
    const failures = first.filter((f) => f.status !== 200).map((f) => `${f.label}: ${f.status}`);

    progress("checking totals against counts of their own (one pass over opportunities)");
    const check = postgres(db.url, { max: 1, onnotice: () => {} });
    const wrongTotals: string[] = [];
    try {
      // One sequential scan counts every case (a count each would read the table 329 times):
      // each case is a filtered count over opportunities itself, not its search table.
      const params: (string | number)[] = [];
      const param = (value: string | number) => `$${params.push(value)}`;
      const counts = cases.map((c, i) => {
        const where = [`o.search @@ oi_search_query(${param(c.params.q)})`];
        if (c.params.online_only !== "false") where.push("o.is_online_deliverable");
        if (c.params.platform) where.push(`lower(o.platform) = ${param(c.params.platform)}`);
        if (c.params.min_score) where.push(`o.score >= ${param(Number(c.params.min_score))}`);
        if (c.params.category) {
          where.push(`o.theme_id in (select t.id from themes t join categories k
            on k.id = t.category_id where k.slug = ${param(c.params.category)})`);
        }
        return `count(*) filter (where ${where.join(" and ")})::int as c${i}`;
      });
      const [row] = await check.unsafe<Record<string, number>[]>(
        `select ${counts.join(", ")} from opportunities o`,
        params,
      );
      for (const [i, c] of cases.entries()) {
        const n = row[`c${i}`];
        if (first[i].status === 200 && first[i].total !== n) {
          wrongTotals.push(`${c.label}: answered ${first[i].total}, counted ${n}`);
        }
      }
    } finally {
      await check.end({ timeout: 5 });
    }

    progress(`random queries and pages, ${options.connections} connections`);
    const paths = cases.flatMap((c) =>
      [1, 2, 3, 4, 5, 6, 7, 8].map((page) =>
        `/api/v1/opportunities?${new URLSearchParams({ ...c.params, page: String(page) })}`
      )
    );
    const load = await loadRun({
      base,
      path: paths[0],
      paths,
      keys: [keys.pro],
      connections: options.connections,
      warmupSeconds: 0,
      seconds: options.duration,
    }, ROOT);
    await keeper.stopLoop();

    const firstMs = first.map((f) => f.ms).sort((a, b) => a - b);
    const worst = [...first].sort((a, b) => b.ms - a.ms).slice(0, 5);
    const results: SearchResults = {
      date: new Date().toISOString(),
      opportunities: db.opportunities,
      migrations: { applied, seconds: migrationSeconds },
      queries: cases.length,
      words: words.map((w) => `${w.word} (${w.rows})`),
      shortWords: short.map((w) => `${w.word} (${w.rows})`),
      first: {
        p50: quantile(firstMs, 0.5),
        p95: quantile(firstMs, 0.95),
        worst: worst.map((w) => ({ label: w.label, ms: w.ms })),
        failures,
        wrongTotals,
      },
      repeated: { p95: quantile([...repeated].sort((a, b) => a - b), 0.95) },
      load: { connections: options.connections, seconds: options.duration, ...load },
    };
    await Deno.writeTextFile(
      new URL("../results/SEARCH.json", import.meta.url),
      JSON.stringify(results, null, 2) + "\n",
    );
    await renderAgain();
    console.log(JSON.stringify(results.first, null, 2));
    console.log(
      `repeated p95 ${results.repeated.p95.toFixed(1)} ms; load ${load.rps.toFixed(0)} ` +
        `req/s, p99 ${load.p99} ms, non-2xx ${load.non2xx}, errors ${load.errors}`,
    );
  } finally {
    await keeper.close();
    await stopAll();
  }
}

/** The search bench on the command line (`args`: the flags); a failure stops every started process. */
export async function runSearch(args: string[]): Promise<void> {
  try {
    await main(args);
  } catch (error) {
    console.error(error instanceof Error ? error.stack : error);
    await stopAll();
    Deno.exit(1);
  }
}
