/**
 * `deno task bench:replicas`: catalogue reads on a read replica, on this machine. A primary and a
 * hot standby of the local PostgreSQL 15 (tests/helpers/replication.ts) hold N demo
 * opportunities; two service instances serve the random-combinations scenario of bench:lists
 * (bench/lists/combos.ts: distinct strings, a cold pass, wrk at 50 connections split over the
 * two), once with every read on the primary and once with DATABASE_READ_URL on the standby, in
 * turns. For each: throughput, and the CPU seconds of each server's processes per request
 * (/proc: the postmaster with its ended children, and its live children).
 *
 * Then the lag: under the same load on the replica setup (from 5 s before the import to 5 s after
 * its commit), N_IMPORT new opportunities are imported on the primary in one transaction; the
 * standby's replay position and data version are sampled
 * every 50 ms, and a caller on each instance asks for the list's total again and again: an older
 * total after a newer one, or any 5xx, is counted.
 *
 * Example: deno task bench:replicas --opportunities 100000 --seconds 30
 */
import postgres from "postgres";
import { startReplicaPair } from "../tests/helpers/replication.ts";
import { comboPaths, comboValues } from "./lists/combos.ts";
import { type WrkResult, wrkRun } from "./harness/wrk.ts";
import { createBenchKeys, quotaKeeper } from "./harness/prepare.ts";
import {
  freePort,
  type Proc,
  runToEnd,
  sleep,
  start,
  stop,
  stopAll,
  waitReady,
} from "./harness/procs.ts";
import { DEFAULT_SEED, opportunityAt, themeInfos } from "../src/ingest/demo.ts";
import { importLines } from "../src/ingest/import.ts";
import { arg, exitWithHelpIfAsked } from "./harness/args.ts";

exitWithHelpIfAsked(`
Usage: deno task bench:replicas [flags]

Starts a primary and a hot standby (PostgreSQL 15, temporary folders), seeds them, and compares
the random list combinations on two instances with and without DATABASE_READ_URL, then measures
the standby's lag under an import during load. Prints a Markdown report.

Flags:
  --opportunities N   Demo opportunities seeded (default 100000)
  --seconds S         Seconds of each load run (default 30)
  --connections N     wrk connections over both instances (default 50)
  --rounds N          Rounds of the two setups, in turns (default 2; 0: the lag part only)
  --import-rows N     Opportunities of the import under load (default 10000)
`);

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const N = Number(arg("--opportunities", "100000"));
const SECONDS = Number(arg("--seconds", "30"));
const CONNECTIONS = Number(arg("--connections", "50"));
const ROUNDS = Number(arg("--rounds", "2"));
const IMPORT_ROWS = Number(arg("--import-rows", "10000"));
const CURSOR_SECRET = "bench-replicas-cursor-secret-0123456789abcdef";
const TICKS = 100;
const METRICS_TOKEN = "bench-replicas-metrics";

/** Catalogue reads the instances' replicas and primary answered, from their /metrics. */
async function readsOf(bases: string[]) {
  const out = { replica: 0, none_ready: 0, failed: 0, faults: 0 };
  for (const base of bases) {
    const text = await (await fetch(`${base}/metrics`, {
      headers: { Authorization: `Bearer ${METRICS_TOKEN}` },
    })).text();
    const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? 0);
    out.replica += value(/^oppintel_db_replica_reads_total\{replica="1"\} (\d+)/m);
    out.faults += value(/^oppintel_db_replica_faults_total\{replica="1"\} (\d+)/m);
    out.none_ready += value(/reason="none_ready"\} (\d+)/m);
    out.failed += value(/reason="failed"\} (\d+)/m);
  }
  return out;
}

function readsText(r: Awaited<ReturnType<typeof readsOf>>): string {
  return `${r.replica} on the standby, ${r.none_ready} on the primary (standby behind), ` +
    `${r.failed} redone on the primary (failed), ${r.faults} faults`;
}

/** CPU seconds used by a cluster: its postmaster, the children it reaped, and the live ones. */
async function clusterCpu(dataDir: string): Promise<number> {
  const pid = (await Deno.readTextFile(`${dataDir}/postmaster.pid`)).split("\n")[0].trim();
  const fields = async (p: string) => {
    const stat = await Deno.readTextFile(`/proc/${p}/stat`);
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  };
  const own = await fields(pid);
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    const f = await fields(entry.name).catch(() => undefined);
    if (f && f[1] === pid) ticks += Number(f[11]) + Number(f[12]);
  }
  return ticks / TICKS;
}

const pair = await startReplicaPair([
  "log_statement = 'none'",
  "shared_buffers = 256MB",
  "max_connections = 200",
]);
const report: string[] = [];
const readNotes: string[] = [];
const instances: Proc[] = [];

async function startInstances(replica: boolean): Promise<string[]> {
  const bases: string[] = [];
  for (const name of ["one", "two"]) {
    const port = freePort();
    const proc = await start(`${name}-${replica ? "replica" : "primary"}`, ["main.ts"], {
      cwd: ROOT,
      env: {
        DATABASE_URL: pair.primaryUrl,
        DATABASE_READ_URL: replica ? pair.standbyUrl : "",
        PORT: String(port),
        SEED_DEMO: "off",
        CURSOR_SECRET,
        METRICS_TOKEN,
      },
    });
    instances.push(proc);
    const base = `http://127.0.0.1:${port}`;
    await waitReady(proc, `${base}/healthz`);
    bases.push(base);
  }
  return bases;
}

async function stopInstances(): Promise<void> {
  await Promise.all(instances.splice(0).map((p) => stop(p)));
}

function sum(results: WrkResult[]) {
  const statuses: Record<string, number> = {};
  for (const r of results) {
    for (const [k, v] of Object.entries(r.statuses)) statuses[k] = (statuses[k] ?? 0) + v;
  }
  return {
    rps: results.reduce((s, r) => s + r.rps, 0),
    requests: results.reduce((s, r) => s + r.requests, 0),
    p50: Math.max(...results.map((r) => r.p50)),
    p99: Math.max(...results.map((r) => r.p99)),
    statuses,
    errors: results.reduce((s, r) => s + r.errors + r.timeouts, 0),
  };
}

try {
  const load = async () => (await Deno.readTextFile("/proc/loadavg")).split(" ")[0];
  console.error(`[replicas] seeding ${N} opportunities on the primary`);
  const seeded = await runToEnd(
    ["src/cli/admin.ts", "seed-demo", "--opportunities", String(N)],
    { cwd: ROOT, env: { DATABASE_URL: pair.primaryUrl }, onStderr: true },
  );
  if (seeded.code !== 0) throw new Error(`seed-demo failed (${seeded.code})`);
  await pair.primary.unsafe("vacuum analyze");
  await pair.caughtUp(600_000);
  const keys = await createBenchKeys(pair.primaryUrl);
  const keeper = quotaKeeper(pair.primaryUrl);
  const values = await comboValues(pair.primaryUrl);
  const paths = comboPaths(Math.max(SECONDS * 3000, 3000), values);
  report.push(
    `# Read replicas (bench/replicas.ts)`,
    "",
    `${N} demo opportunities; primary and hot standby of PostgreSQL 15 on this machine ` +
      `(${navigator.hardwareConcurrency} cores, fsync off on both); two instances; wrk ` +
      `${CONNECTIONS} connections split over them, ${SECONDS} s per run, cold combination strings ` +
      "(bench/lists/combos.ts), every string a cache miss. CPU: seconds of each cluster's " +
      "processes per 1,000 requests.",
    "",
    "| round | reads on | req/s | p50 ms | p99 ms | statuses | errors | primary CPU s/1k | " +
      "standby CPU s/1k | load |",
    "|---|---|---|---|---|---|---|---|---|---|",
  );
  for (let round = 1; round <= ROUNDS; round++) {
    const order = round % 2 === 1 ? [false, true] : [true, false];
    for (const replica of order) {
      const bases = await startInstances(replica);
      await keeper.reset();
      keeper.startLoop();
      const cpu0 = [
        await clusterCpu(pair.dataDir("primary")),
        await clusterCpu(pair.dataDir("standby")),
      ];
      const results = await Promise.all(bases.map((base, i) =>
        wrkRun({
          base,
          // Each instance its own half of the strings: every request a miss on both setups.
          paths: paths.filter((_, k) => k % 2 === i),
          keys: keys.spread,
          connections: Math.ceil(CONNECTIONS / 2),
          seconds: SECONDS,
          threads: 1,
        })
      ));
      const cpu1 = [
        await clusterCpu(pair.dataDir("primary")),
        await clusterCpu(pair.dataDir("standby")),
      ];
      await keeper.stopLoop();
      if (replica) readNotes.push(`round ${round}: ${readsText(await readsOf(bases))}`);
      await stopInstances();
      const r = sum(results);
      const per = (i: number) => ((cpu1[i] - cpu0[i]) / r.requests * 1000).toFixed(2);
      const statuses = Object.entries(r.statuses).map(([c, n]) => `${c}: ${n}`).join(", ");
      const row = `| ${round} | ${replica ? "standby" : "primary"} | ${r.rps.toFixed(0)} | ` +
        `${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${statuses} | ${r.errors} | ${per(0)} | ` +
        `${per(1)} | ${await load()} |`;
      console.error(row);
      report.push(row);
    }
  }

  // The lag under an import during load, and what callers saw.
  const bases = await startInstances(true);
  await keeper.reset();
  keeper.startLoop();
  // The load runs in chunks of 10 s until 5 s after the import's commit, however long it takes.
  let committed = Infinity;
  const t0 = performance.now();
  const wrk = (async () => {
    const chunks: WrkResult[] = [];
    for (let chunk = 0; performance.now() - t0 < committed + 5_000; chunk++) {
      chunks.push(
        ...await Promise.all(bases.map((base, i) =>
          wrkRun({
            // Fresh strings in each chunk: every request stays a cache miss.
            paths: paths.filter((_, k) => k % 2 === i).slice(chunk * 8_000).concat(paths),
            base,
            keys: keys.spread,
            connections: Math.ceil(CONNECTIONS / 2),
            seconds: 10,
            threads: 1,
          })
        )),
      );
    }
    return chunks;
  })();
  let running = true;
  const samples: {
    t: number;
    bytes: number;
    versionBehind: boolean;
    replayLag: number | null;
  }[] = [];
  const sampler = (async () => {
    while (running) {
      try {
        const [p] = await pair.primary<
          { lsn: string; version: number; replay_lag: number | null }[]
        >`
          select pg_current_wal_lsn()::text as lsn,
            (select version::float8 from data_version) as version,
            (select extract(epoch from replay_lag)::float8 from pg_stat_replication limit 1)
              as replay_lag`;
        const [s] = await pair.standby<{ bytes: number; version: number }[]>`
          select greatest(pg_wal_lsn_diff(${p.lsn}::pg_lsn, pg_last_wal_replay_lsn()), 0)::float8
            as bytes, (select version::float8 from data_version) as version`;
        samples.push({
          t: performance.now() - t0,
          bytes: s.bytes,
          versionBehind: s.version < p.version,
          replayLag: p.replay_lag,
        });
      } catch {
        // A sample lost under load.
      }
      await sleep(50);
    }
  })();
  // Callers: one per instance, the total of one list, again and again.
  const seen = bases.map(() => ({ totals: [] as number[], regressions: 0, fiveXx: 0 }));
  const callers = bases.map(async (base, i) => {
    while (running) {
      const response = await fetch(`${base}/api/v1/opportunities?min_score=0&page_size=1`, {
        headers: { "x-api-key": keys.pro },
      }).catch(() => undefined);
      if (!response || response.status >= 500) {
        seen[i].fiveXx++;
        await response?.body?.cancel();
        continue;
      }
      const body = await response.json();
      if (response.status !== 200) continue;
      const last = seen[i].totals.at(-1);
      if (last !== undefined && body.total < last) seen[i].regressions++;
      seen[i].totals.push(body.total);
      await sleep(20);
    }
  });
  await sleep(5_000);
  const themes = themeInfos(DEFAULT_SEED);
  const weight = themes.reduce((s, t) => s + t.weight, 0);
  const lines = Array.from(
    { length: IMPORT_ROWS },
    (_, k) => JSON.stringify(opportunityAt(DEFAULT_SEED, 5_000_000 + k, themes, weight)),
  );
  const importStart = performance.now() - t0;
  const importer = postgres(pair.primaryUrl, { max: 2, onnotice: () => {} });
  await importLines(importer, lines);
  committed = performance.now() - t0;
  await importer.end();
  const results = await wrk;
  const loadSeconds = (performance.now() - t0) / 1000;
  running = false;
  await Promise.all([sampler, ...callers]);
  const lagReads = await readsOf(bases);
  await keeper.stopLoop();
  await keeper.close();
  await stopInstances();
  const during = samples.filter((s) => s.t >= importStart);
  const maxBytes = Math.max(0, ...during.map((s) => s.bytes));
  const maxReplayLag = Math.max(0, ...during.map((s) => s.replayLag ?? 0));
  const behind = during.filter((s) => s.t >= committed && s.versionBehind);
  const caughtUpAt = during.find((s) => s.t >= committed && !s.versionBehind)?.t;
  const r = sum(results);
  report.push(
    "",
    `## Lag under an import of ${IMPORT_ROWS} opportunities during load`,
    "",
    `- load on the standby setup from 0 s to ${loadSeconds.toFixed(0)} s, the import begun at ` +
      `5 s, committed at ${(committed / 1000).toFixed(1)} s`,
    `- import (one transaction) took ${((committed - importStart) / 1000).toFixed(1)} s; ` +
      `load meanwhile ${(r.requests / loadSeconds).toFixed(0)} req/s, statuses ` +
      `${Object.entries(r.statuses).map(([c, n]) => `${c}: ${n}`).join(", ")}, errors ${r.errors}`,
    `- the standby's replay was at most ${(maxBytes / 1024 / 1024).toFixed(1)} MB of WAL behind ` +
      `during the import (samples every 50 ms: ${during.length}); pg_stat_replication's ` +
      `replay_lag at most ${(maxReplayLag * 1000).toFixed(0)} ms`,
    `- catalogue reads of the two instances in this run: ${readsText(lagReads)}`,
    `- after the commit the standby showed the new data version ` +
      (caughtUpAt === undefined
        ? "never within the run"
        : `${(caughtUpAt - committed).toFixed(0)} ms later (${behind.length} samples behind)`),
    ...seen.map((s, i) =>
      `- caller on instance ${i + 1}: ${s.totals.length} answers, totals ` +
      `${s.totals[0]} -> ${s.totals.at(-1)}, an older total after a newer one: ` +
      `${s.regressions}, 5xx or no answer: ${s.fiveXx}`
    ),
  );
  console.log(
    [
      ...report,
      "",
      "## Where the standby runs' catalogue reads went",
      "",
      ...readNotes.map((n) => `- ${n}`),
    ].join("\n"),
  );
} finally {
  await stopAll();
  await pair.close();
}
