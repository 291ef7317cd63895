/**
 * `deno task bench:cold`: what a fresh process costs, and what memory it holds under load.
 *
 * For each side (a checkout and a memory budget), in turns:
 * 1. a fresh process of the service on the database (production settings, the encoder on);
 * 2. the time to its first 200 of /healthz, then, one by one, its first list, first and second
 *    question, first idea match, first sub-score order, and the slowest of the next 40 lists
 *    (distinct filters);
 * 3. the three list mixes, each a third of `--minutes`, with wrk at 50 connections: cold strings
 *    (bench/lists/combos.ts, each string once), warm strings (its first 2,000 again and again),
 *    questions (distinct two- and three-word questions from the catalogue's titles); resident
 *    memory sampled every 5 s, and each part's bytes from /metrics at the end of each mix.
 *
 * Example (a copy of the 1M database; main as it was beside this checkout at two budgets):
 *   git worktree add /tmp/base <rev>
 *   deno task bench:cold --database oppintel_1m --side today:/tmp/base:0 \
 *     --side default:.:320 --side half:.:160 --write bench/results/COLD.md
 */
import postgres from "postgres";
import { arg, exitWithHelpIfAsked } from "./harness/args.ts";
import { createBenchKeys, quotaKeeper } from "./harness/prepare.ts";
import { freePort, rssMib, sleep, start, stop, stopAll, waitReady } from "./harness/procs.ts";
import { comboPaths, comboValues } from "./lists/combos.ts";
import { wrkRun } from "./harness/wrk.ts";

exitWithHelpIfAsked(`
Usage: deno task bench:cold --database NAME --side NAME:CHECKOUT:BUDGET_MB[:HEAP_MB] [--side ...]

Starts a fresh process of each side on the database, times its first answer of each kind, then
loads it with three list mixes (cold strings, warm strings, questions) and samples its resident
memory. BUDGET_MB 0 leaves MEMORY_BUDGET_MB unset (the checkout's default, or none before it);
HEAP_MB caps V8's old space (--max-old-space-size), as an isolate's memory limit does.

Flags:
  --database NAME   A database that holds the catalogue (a copy: bench accounts are written)
  --side S          NAME:CHECKOUT:BUDGET_MB[:HEAP_MB]; sides run in the order given, --rounds times
  --minutes M       Minutes of load per side, split over the three mixes (default 10)
  --rounds N        Rounds over the sides (default 1)
  --mixes LIST      The mixes to run, of cold,warm,questions (default all three; each gets its
                    share of --minutes)
  --settle S        Seconds of quiet after the first answers, before the mixes, so that a side's
                    background loading is done when its load starts (default 0)
  --write FILE      Also write the report (markdown) to FILE
`);

const database = arg("--database", "");
const minutes = Number(arg("--minutes", "10"));
const rounds = Number(arg("--rounds", "1"));
const write = arg("--write", "");
const mixNames = arg("--mixes", "cold,warm,questions").split(",").map((m) => m.trim());
const settle = Number(arg("--settle", "0"));
const sides = Deno.args.flatMap((a, i) => Deno.args[i - 1] === "--side" ? [a] : [])
  .map((s) => {
    const [name, checkout, budget, heap] = s.split(":");
    return { name, checkout, budget: Number(budget), heap: Number(heap ?? 0) };
  });
if (![minutes, rounds, settle].every((n) => Number.isFinite(n) && n >= 0)) {
  console.error("--minutes, --rounds and --settle take numbers of 0 or more (see --help)");
  Deno.exit(2);
}
if (mixNames.some((m) => !["cold", "warm", "questions"].includes(m))) {
  console.error(`--mixes takes cold, warm and questions, not ${mixNames.join(",")}`);
  Deno.exit(2);
}
if (!database || sides.length === 0) {
  console.error("--database and at least one --side are required (see --help)");
  Deno.exit(2);
}
const url = `postgres://postgres@127.0.0.1:5432/${database}`;
const log = (line: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${line}`);

/** Distinct questions of two and three words from titles, the same on every run. */
async function questions(count: number): Promise<string[]> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql<{ title: string }[]>`
      select title from opportunities order by md5(id::text) limit ${count * 2}`;
    const out = new Set<string>();
    for (const [i, { title }] of rows.entries()) {
      const words = title.toLowerCase().match(/[a-z]{4,}/g) ?? [];
      if (words.length >= 2) {
        out.add(words.slice(i % 2, (i % 2) + 2 + (i % 3 === 0 ? 1 : 0)).join(" "));
      }
    }
    return [...out].slice(0, count);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/**
 * Warns when the planner's statistics of opportunities are older than most of its rows: with
 * autovacuum off, a freshly seeded table is planned as if empty (the first question took 2.8-4.1 s
 * on such a copy, 1.0-1.7 s after `vacuum analyze`).
 */
async function warnStaleStatistics(): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql<{ live: number; changed: number }[]>`
      select n_live_tup::float8 as live, n_mod_since_analyze::float8 as changed
      from pg_stat_user_tables where relname = 'opportunities'`;
    if (row && row.changed > row.live / 10) {
      log(
        `warning: ${row.changed} rows of opportunities changed since its last analyze; ` +
          `run \`vacuum analyze\` on ${database} first`,
      );
    }
  } finally {
    await sql.end({ timeout: 5 });
  }
}

await warnStaleStatistics();
const keys = await createBenchKeys(url);
const keeper = quotaKeeper(url);
const values = await comboValues(url);
const cold = comboPaths(200_000, values);
const warm = cold.slice(0, 2000);
const asked = (await questions(60_000)).map((q) =>
  `/api/v1/opportunities?q=${encodeURIComponent(q)}`
);
log(`${cold.length} list strings, ${asked.length} questions`);

interface SideResult {
  name: string;
  budget: number;
  heap: number;
  firsts: Record<string, number | string>;
  mixes: {
    mix: string;
    rps: number;
    p50: number;
    p99: number;
    rssMax: number;
    rssEnd: number;
    parts: string;
  }[];
}

/** The milliseconds of one answer; an answer other than 200 is shown with its status. */
async function timed(base: string, path: string): Promise<number | string> {
  const t = performance.now();
  const response = await fetch(base + path, { headers: { "x-api-key": keys.hot } });
  await response.arrayBuffer();
  const ms = Math.round(performance.now() - t);
  return response.status === 200 ? ms : `${ms} (${response.status})`;
}

async function parts(base: string): Promise<string> {
  const text =
    await (await fetch(`${base}/metrics`, { headers: { authorization: "Bearer bench" } }))
      .text();
  return [
    ...text.matchAll(/^oppintel_(?:memory_bytes\{part|process_heap_bytes\{kind)="(\w+)"\} (\d+)/gm),
  ]
    .filter((m) => Number(m[2]) > 0)
    .map((m) => `${m[1]} ${(Number(m[2]) / 1048576).toFixed(0)}`).join(", ") || "(not reported)";
}

async function runSide(side: (typeof sides)[number]): Promise<SideResult> {
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {
    DATABASE_URL: url,
    PORT: String(port),
    METRICS_TOKEN: "bench",
    PUBLIC_BASE_URL: base,
  };
  if (side.budget > 0) env.MEMORY_BUDGET_MB = String(side.budget);
  await keeper.reset();
  // HEAP_MB: V8's old space capped (--max-old-space-size), as an isolate's memory limit caps it.
  const flags = side.heap > 0 ? [`--v8-flags=--max-old-space-size=${side.heap}`] : [];
  const proc = await start(`cold-${side.name}`, [...flags, "main.ts"], {
    env,
    cwd: side.checkout,
  });
  const firsts: Record<string, number | string> = {};
  try {
    firsts.healthz = Math.round(await waitReady(proc, `${base}/healthz`));
    firsts.list = await timed(base, "/api/v1/opportunities?page_size=20");
    firsts.question = await timed(base, "/api/v1/opportunities?q=invoices%20clients%20pay%20late");
    firsts.question_2 = await timed(
      base,
      "/api/v1/opportunities?q=tracking%20habits%20for%20teams",
    );
    firsts.idea = await timed(
      base,
      "/api/v1/ideas/match?text=an%20app%20that%20chases%20unpaid%20invoices",
    );
    firsts.sub_order = await timed(base, "/api/v1/opportunities?sort=pain_point_intensity");
    const next: (number | string)[] = [];
    for (const path of cold.slice(-40)) next.push(await timed(base, path));
    const slowest = Math.max(...next.map((t) => parseInt(String(t))));
    firsts.next_40_max = next.find((t) => parseInt(String(t)) === slowest)!;
    log(`${side.name}: firsts ${JSON.stringify(firsts)}`);
    const mixes: SideResult["mixes"] = [];
    if (settle > 0) await sleep(settle * 1000);
    const seconds = Math.max(10, Math.round((minutes * 60) / mixNames.length));
    const all = {
      cold: ["cold strings", cold],
      warm: ["warm strings", warm],
      questions: ["questions", asked],
    } as const;
    for (const [mix, paths] of mixNames.map((m) => all[m as keyof typeof all])) {
      let rssMax = 0;
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          rssMax = Math.max(rssMax, (await rssMib(proc.pid)) ?? 0);
          await sleep(5000);
        }
      })();
      keeper.startLoop();
      const result = await wrkRun({ base, paths, keys: keys.spread, connections: 50, seconds });
      await keeper.stopLoop();
      sampling = false;
      await sampler;
      const rssEnd = (await rssMib(proc.pid)) ?? 0;
      rssMax = Math.max(rssMax, rssEnd);
      const row = {
        mix,
        rps: result.rps,
        p50: result.p50,
        p99: result.p99,
        rssMax,
        rssEnd,
        parts: await parts(base),
      };
      log(`${side.name} ${mix}: ${JSON.stringify({ ...row, statuses: result.statuses })}`);
      mixes.push(row);
    }
    return { name: side.name, budget: side.budget, heap: side.heap, firsts, mixes };
  } finally {
    await stop(proc);
  }
}

const results: SideResult[] = [];
try {
  for (let round = 1; round <= rounds; round++) {
    for (const side of sides) results.push(await runSide(side));
  }
} finally {
  await keeper.close();
  await stopAll();
}

const kinds = Object.keys(results[0].firsts);
const report = [
  `First answers of a fresh process (ms), on \`${database}\`:`,
  "",
  `| side | budget MB | V8 heap MB | ${kinds.join(" | ")} |`,
  `|---|---|---|${kinds.map(() => "---").join("|")}|`,
  ...results.map((r) =>
    `| ${r.name} | ${r.budget || "default"} | ${r.heap || "default"} | ` +
    `${kinds.map((k) => r.firsts[k]).join(" | ")} |`
  ),
  "",
  `Load, ${minutes} minutes per side split over ${mixNames.length} mixes (wrk, 50 connections); resident memory in MiB:`,
  "",
  "| side | mix | req/s | p50 ms | p99 ms | RSS max | RSS end | parts at the end (MiB) |",
  "|---|---|---|---|---|---|---|---|",
  ...results.flatMap((r) =>
    r.mixes.map((m) =>
      `| ${r.name} | ${m.mix} | ${m.rps.toFixed(0)} | ${m.p50.toFixed(1)} | ${
        m.p99.toFixed(1)
      } | ` +
      `${m.rssMax.toFixed(0)} | ${m.rssEnd.toFixed(0)} | ${m.parts} |`
    )
  ),
].join("\n");
console.log(report);
if (write) await Deno.writeTextFile(write, report + "\n");
