/**
 * bench/suite/: the benchmark suite's family (bench/suite.ts): the suite itself (this file, with
 * setting.ts, explain.ts and the two baselines it starts), the A/B comparison of two versions
 * (ab.ts) and the report of a run (results.ts, report.ts), sharing the load scenarios of
 * scenarios.ts.
 *
 * `deno task bench`: the benchmark suite. Prepares a PostgreSQL database with N demo
 * opportunities, starts the service and two baselines on it (raw postgres.js, static JSON),
 * loads each scenario with autocannon alternating service and baseline, measures single-client
 * latency, cold starts, the stdio package and memory, and writes bench/results/RESULTS.md with
 * PASS/MISS per target. Every process it starts is stopped however it ends.
 *
 * Quick dry run: deno task bench --opportunities 20000 --duration 2 --warmup 1 --out /tmp/r.md
 */
import postgres from "postgres";
import type { LoadSpec } from "../harness/load.ts";
import {
  embeddedColdStart,
  embeddedEnv,
  type Latency,
  loadAverage,
  loadRun,
  nodeStartup,
  sequentialLatency,
  stdioInitialize,
  timeRequest,
} from "../harness/measure.ts";
import {
  autovacuumSetting,
  benchAdminUrl,
  createBenchKeys,
  prepareDatabase,
  quotaKeeper,
} from "../harness/prepare.ts";
import {
  backendCpu,
  backendDelta,
  cpuSeconds,
  exists,
  freePort,
  logDirectory,
  type Proc,
  rssMib,
  runToEnd,
  sleep,
  start,
  stop,
  stopAll,
  waitReady,
} from "../harness/procs.ts";
import { writeResults } from "./report.ts";
import type { Results, RunResult } from "./results.ts";
import { PLAN, type Scenario, scenarios, type Target } from "./scenarios.ts";
import { git, machine, type Options, parseOptions, progress } from "./setting.ts";
import { explainSummary } from "./explain.ts";

const ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

/** The process behind each target while its scenarios run. */
type Bases = Partial<Record<Target, { base: string; proc: Proc }>>;

/** Runs a scenario once, with the quota keeper on and memory sampled when asked. */
async function runScenario(
  scenario: Scenario,
  bases: Bases,
  options: Options,
  keeper: ReturnType<typeof quotaKeeper> | undefined,
  rss?: number[],
  database?: string,
): Promise<RunResult> {
  const target = bases[scenario.target];
  if (!target) throw new Error(`No process for target "${scenario.target}"`);
  const spec: LoadSpec = {
    ...scenario.spec,
    base: target.base,
    connections: options.connections,
    warmupSeconds: options.warmup,
    seconds: options.duration,
  };
  await keeper?.reset();
  keeper?.startLoop();
  let sampling = rss !== undefined;
  const sampler = (async () => {
    // Bounded by the run: the flag drops when the load ends.
    while (sampling) {
      const mib = await rssMib(target.proc.pid);
      if (mib !== undefined) rss!.push(mib);
      await sleep(250);
    }
  })();
  try {
    const wall0 = performance.now();
    const cpu0 = await cpuSeconds(target.proc.pid);
    const pg0 = database ? await backendCpu(database) : undefined;
    const result = await loadRun(spec, ROOT);
    const wall = (performance.now() - wall0) / 1000;
    const cpu = (await cpuSeconds(target.proc.pid)) - cpu0;
    const pg = pg0 ? backendDelta(pg0, await backendCpu(database!)) : undefined;
    // The CPU counters cover the warm-up too: per request, divide by the requests of both,
    // estimated at the measured rate.
    const requests = result.rps * (options.warmup + options.duration);
    return {
      ...result,
      quotaResets: (await keeper?.stopLoop()) ?? 0,
      cpu: {
        processPct: (cpu / wall) * 100,
        processMsPerRequest: requests ? (cpu * 1000) / requests : NaN,
        ...(pg === undefined
          ? {}
          : { postgresPct: (pg / wall) * 100, postgresMsPerRequest: (pg * 1000) / requests }),
      },
    };
  } finally {
    sampling = false;
    await sampler;
    await keeper?.stopLoop();
  }
}

function describe(r: RunResult): string {
  const bad = r.non2xx + r.errors + r.timeouts + r.mismatches;
  const pg = r.cpu.postgresPct === undefined ? "" : `, PostgreSQL ${r.cpu.postgresPct.toFixed(0)}%`;
  return `${r.rps.toFixed(0)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, ` +
    `CPU: process ${r.cpu.processPct.toFixed(0)}%${pg}` +
    (bad
      ? `, INVALID: non-2xx ${r.non2xx}, errors ${r.errors}, timeouts ${r.timeouts}, ` +
        `mismatches ${r.mismatches} ${JSON.stringify(r.statusCodes)}`
      : "");
}

async function main(args: string[]): Promise<void> {
  const options = parseOptions(args);
  const adminUrl = benchAdminUrl();
  const began = performance.now();
  const results: Results = {
    date: new Date().toISOString(),
    machine: await machine(),
    commit: await git(["rev-parse", "--short", "HEAD"]),
    dirty: (await git(["status", "--porcelain", "--", "src", "sql", "main.ts"])).split("\n")
      .filter(Boolean).length,
    options: { ...options },
    runs: [],
    notes: [],
  };
  progress(`machine: ${results.machine.cpus} CPUs, load ${results.machine.loadBefore}`);
  progress(`logs of the started processes: ${await logDirectory()}`);

  const db = await prepareDatabase(adminUrl, {
    name: options.database,
    opportunities: options.opportunities,
    fresh: options.fresh,
    cwd: ROOT,
  });
  results.database = db;
  results.autovacuum = await autovacuumSetting(db.url);
  progress(`database ready: ${db.opportunities} opportunities, ids ${db.idRange.join("-")}`);
  if (options.prepareOnly) return;

  const keys = await createBenchKeys(db.url);
  progress("accounts and keys created (1 Pro, 1 + 50 Business)");
  const keeper = quotaKeeper(db.url);
  const temps: string[] = [];
  try {
    const sql = postgres(db.url, { max: 1, onnotice: () => {} });
    try {
      const [row] = await sql<{ commonShare: number; rareShare: number }[]>`
        select
          avg((search @@ oi_search_query('automatically'))::int)::float8 as "commonShare",
          avg((search @@ oi_search_query('quokka'))::int)::float8 as "rareShare"
        from opportunities`;
      results.words = { common: "automatically", rare: "quokka", ...row };
    } finally {
      await sql.end({ timeout: 5 });
    }
    const words = results.words!;
    progress(
      `q words: "${words.common}" in ${(words.commonShare * 100).toFixed(1)}% of rows, ` +
        `"${words.rare}" in ${(words.rareShare * 100).toFixed(3)}%`,
    );

    // ---- PostgreSQL: the service and its baselines -----------------------------------------
    const servicePort = freePort();
    const rawPort = freePort();
    const staticPort = freePort();
    const service = await start("service", ["main.ts"], {
      cwd: ROOT,
      env: { DATABASE_URL: db.url, PORT: String(servicePort), SEED_DEMO: "off" },
    });
    const raw = await start("raw", ["bench/suite/baseline_raw.ts"], {
      cwd: ROOT,
      env: { DATABASE_URL: db.url, PORT: String(rawPort) },
    });
    const stat = await start("static", ["bench/suite/baseline_static.ts"], {
      cwd: ROOT,
      env: { PORT: String(staticPort) },
    });
    const serviceBase = `http://127.0.0.1:${servicePort}`;
    await waitReady(service, `${serviceBase}/healthz`);
    await waitReady(raw, `http://127.0.0.1:${rawPort}/`);
    await waitReady(stat, `http://127.0.0.1:${staticPort}/`);
    progress(`service (pid ${service.pid}), raw and static baselines are up`);
    const bases: Bases = {
      service: { base: serviceBase, proc: service },
      raw: { base: `http://127.0.0.1:${rawPort}`, proc: raw },
      static: { base: `http://127.0.0.1:${staticPort}`, proc: stat },
    };
    results.rssIdleMib = await rssMib(service.pid);

    // Single client first, on a fresh service process: the first common-word request must be
    // a first time for the service (nothing cached yet).
    const headers = { "x-api-key": keys.pro };
    const q = (word: string) => `${serviceBase}/api/v1/opportunities?q=${word}`;
    await keeper.reset();
    const first = await timeRequest(q(words.common), { headers });
    results.qFirstCommon = first;
    progress(`first q=${words.common}: ${first.ms.toFixed(1)} ms (status ${first.status})`);
    const single: Record<string, Latency> = {};
    for (
      const [label, url] of [
        [`q=${words.common} (repeated)`, q(words.common)],
        [`q=${words.rare}`, q(words.rare)],
        ["overview", `${serviceBase}/api/v1/overview`],
        ["list, default", `${serviceBase}/api/v1/opportunities`],
      ] as const
    ) {
      await keeper.reset();
      single[label] = await sequentialLatency(url, { headers }, options.sequential);
      progress(
        `single client ${label}: p50 ${single[label].p50.toFixed(1)} ms, ` +
          `p95 ${single[label].p95.toFixed(1)} ms`,
      );
    }
    results.single = single;

    const all = scenarios(keys, words, db.idRange);
    const rss: number[] = [];
    for (const [index, id] of PLAN.entries()) {
      const scenario = all[id];
      progress(`load ${index + 1}/${PLAN.length}: ${scenario.title} (${scenario.target})`);
      const result = await runScenario(
        scenario,
        bases,
        options,
        keeper,
        id === "list" ? rss : undefined,
        options.database,
      );
      results.runs.push({ id, title: scenario.title, target: scenario.target, result });
      progress(`  ${describe(result)}`);
    }
    results.rssLoadMib = rss.length ? Math.max(...rss) : undefined;

    // The stdio package, against the running service.
    if (await exists(`${ROOT}/npm-stdio/dist/cli.js`)) {
      const times: number[] = [];
      for (let i = 0; i < 5; i++) {
        times.push(
          await stdioInitialize(ROOT, {
            PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
            OPPINTEL_API_KEY: keys.pro,
            OPPINTEL_BASE_URL: serviceBase,
          }),
        );
      }
      results.stdio = times;
      const bare: number[] = [];
      for (let i = 0; i < 5; i++) bare.push(await nodeStartup());
      results.nodeStartup = bare;
      progress(
        `stdio spawn -> initialize: ${times.map((t) => t.toFixed(0)).join(", ")} ms ` +
          `(bare node: ${bare.map((t) => t.toFixed(0)).join(", ")} ms)`,
      );
    } else {
      results.notes.push("npm-stdio/dist/cli.js is not built: stdio spawn -> initialize skipped");
    }

    progress("EXPLAIN (ANALYZE, BUFFERS) of the list statements");
    results.explain = await explainSummary(db.url, words);
    await stop(service);
    await stop(raw);
    await stop(stat);

    // ---- The embedded database ---------------------------------------------------------------
    const emptyDir = await Deno.makeTempDir({ prefix: "oppintel_bench_embedded_" });
    temps.push(emptyDir);
    progress("embedded cold start, empty DATA_DIR (with the demo seed)");
    const coldEmpty = await embeddedColdStart(ROOT, emptyDir, { seedDemo: true });
    const coldSeeded: number[] = [];
    for (let i = 0; i < 3; i++) {
      coldSeeded.push(await embeddedColdStart(ROOT, emptyDir, { seedDemo: true }));
    }
    results.coldStart = { empty: coldEmpty, seeded: coldSeeded };
    progress(
      `cold start: empty ${coldEmpty.toFixed(0)} ms, seeded ` +
        coldSeeded.map((t) => t.toFixed(0)).join(", ") + " ms",
    );

    if (options.embeddedOpportunities > 0) {
      results.embedded = await embeddedList(options, temps);
    }
  } finally {
    await keeper.close();
    await stopAll();
    for (const dir of temps) await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
  results.machine.loadAfter = await loadAverage();
  results.totalSeconds = (performance.now() - began) / 1000;
  await writeResults(options.out, results);
  progress(`wrote ${options.out} (${results.totalSeconds.toFixed(0)} s in all)`);
}

/** The list scenario on the embedded database, seeded with seed-demo (report only). */
async function embeddedList(options: Options, temps: string[]): Promise<Results["embedded"]> {
  const dir = await Deno.makeTempDir({ prefix: "oppintel_bench_embedded_list_" });
  temps.push(dir);
  const port = freePort();
  const env = embeddedEnv(dir, port, false);
  progress(`embedded: seeding ${options.embeddedOpportunities} opportunities`);
  const seedStarted = performance.now();
  const seeded = await runToEnd(
    ["src/cli/admin.ts", "seed-demo", "--opportunities", String(options.embeddedOpportunities)],
    { cwd: ROOT, env, clearEnv: true },
  );
  if (seeded.code !== 0) {
    throw new Error(`Embedded seed-demo failed: ${seeded.stderr.slice(-1000)}`);
  }
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  const proc = await start("embedded", ["main.ts"], { cwd: ROOT, env, clearEnv: true });
  try {
    const coldStart = await waitReady(proc, `http://127.0.0.1:${port}/healthz`, 300_000);
    const email = "bench-embedded@bench.oppintel.local";
    for (
      const args of [["account", "create", "--email", email, "--plan", "business", "--verified"]]
    ) {
      const r = await runToEnd(["src/cli/admin.ts", ...args], { cwd: ROOT, env, clearEnv: true });
      if (r.code !== 0) throw new Error(`Embedded ${args.join(" ")} failed: ${r.stderr}`);
    }
    const created = await runToEnd(
      ["src/cli/admin.ts", "key", "create", "--email", email],
      { cwd: ROOT, env, clearEnv: true },
    );
    if (created.code !== 0) throw new Error(`Embedded key create failed: ${created.stderr}`);
    const key = (JSON.parse(created.stdout) as { key: string }).key;
    progress(`embedded: list load (seeded in ${seedSeconds.toFixed(0)} s)`);
    const scenario: Scenario = {
      id: "embedded_list",
      title: "list, default parameters (embedded)",
      target: "embedded",
      spec: { path: "/api/v1/opportunities", keys: [key] },
    };
    // The counters are kept under the limit through the server's own socket, as the CLI does.
    const server = JSON.parse(await Deno.readTextFile(`${dir}/server.json`)) as { port: number };
    const keeper = quotaKeeper(`postgres://postgres@127.0.0.1:${server.port}/postgres`);
    const rss: number[] = [];
    let result;
    try {
      result = await runScenario(
        scenario,
        { embedded: { base: `http://127.0.0.1:${port}`, proc } },
        options,
        keeper,
        rss,
      );
    } finally {
      await keeper.close();
    }
    progress(`  ${describe(result)}`);
    return {
      opportunities: options.embeddedOpportunities,
      seedSeconds,
      coldStart,
      result,
      rssMib: rss.length ? Math.max(...rss) : undefined,
    };
  } finally {
    await stop(proc);
  }
}

/** The suite on the command line (`args`: the flags), every started process stopped however it ends. */
export async function runSuite(args: string[]): Promise<void> {
  const onSignal = async () => {
    console.error("Interrupted: stopping the started processes");
    await stopAll();
    Deno.exit(130);
  };
  Deno.addSignalListener("SIGINT", onSignal);
  Deno.addSignalListener("SIGTERM", onSignal);
  try {
    await main(args);
    Deno.exit(0);
  } catch (error) {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    await stopAll();
    Deno.exit(1);
  }
}
