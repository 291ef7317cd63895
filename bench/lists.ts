/**
 * `deno task bench:lists`: the list scenarios at scale, this checkout (B) side by
 * side with main (A) and a one-file FastAPI + asyncpg peer (bench/lists/peer_fastapi.py: a page
 * query plus count(*) per request), all on one PostgreSQL database that already holds the rows (a
 * copy of the 1M benchmark database, migrated to this checkout):
 *
 * - random: min_score 0-100 x page 1-50 at random, 50 connections, 30 s (B, A, peer);
 * - walk: every page of 100 of recommendation=Build by cursor, one client (B only: A has none);
 * - deep: page 1..100 of page_size 100 (the documented depth, 10,000 items) of three filters,
 *   one client, every page timed (B and A);
 * - fixed and keyword: the fixed filter and random keywords, A/B interleaved;
 * - combos: random combinations of filters and pages (bench/lists/combos.ts), cold (a fresh
 *   server, the first pass over distinct strings) and warm, with wrk, A/B in turns, and the peer;
 * - default: the default list without filters beside the raw page query
 *   (bench/suite/baseline_raw.ts), in turns.
 *
 * Example: deno task bench:lists --database oppintel_1m_28 --peer-python /tmp/peer28/bin/python
 */
import { loadAverage, loadRun, quantile, timeRequest } from "./harness/measure.ts";
import { type BenchKeys, createBenchKeys, quotaKeeper } from "./harness/prepare.ts";
import { freePort, type Proc, run, start, stop, stopAll, waitReady } from "./harness/procs.ts";
import { comboPaths, comboValues, compareWithPeer, WRK_HEADER, wrkRow } from "./lists/combos.ts";
import { METRICS_TOKEN, randomPaths, waitForListIndex } from "./lists/service.ts";
import { wrkRun } from "./harness/wrk.ts";
import type { LoadResult, LoadSpec } from "./harness/load.ts";
import postgres from "postgres";
import { arg, exitWithHelpIfAsked } from "./harness/args.ts";

exitWithHelpIfAsked(`
Usage: deno task bench:lists --database NAME [flags]

List scenarios at scale on a copy of the 1M database, this checkout (B) beside main (A) and the
FastAPI + asyncpg peer (bench/lists/peer_fastapi.py): random filters and pages, a walk by cursor,
deep pages, fixed filter and keywords. Prints its figures (notes in bench/results/LISTS.md).

Flags:
  --database NAME        The database (a copy; it is migrated)
  --duration S           Seconds of each load run (default 30)
  --connections N        Connections (default 50)
  --rounds N             A/B rounds (default 2)
  --peer-python PATH     The Python with fastapi, uvicorn and asyncpg (default python3)
  --scenarios LIST       random,walk,deep,fixed,keyword,combos,default (default all)
  --database-a NAME      A's database when it differs from B's (main's schema on a copy)
  --strings N            Distinct strings of the warm combos run (default 3000)
  --cold-seconds S       Seconds of each cold combos run (default 60)
  --warm-seconds S       Seconds of each warm combos run (default 30)
  --peer-seconds S       Seconds of the peer's combos run (default 30)
  --sides LIST           Sides of the combos runs, in turns (default B,A)
  --a-rev REV            The revision A runs (default main), e.g. the commit before a merge
  --cold-from-start      Cold runs begin as soon as /healthz answers, without waiting for the
                         list index to load (by default they wait for it, as a readiness check
                         would; a side without the index does not wait)
`);

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

const DATABASE = arg("--database", "oppintel_1m_28");
const URL_ = `postgres://postgres@127.0.0.1:5432/${DATABASE}`;
const DURATION = Number(arg("--duration", "30"));
const CONNECTIONS = Number(arg("--connections", "50"));
const ROUNDS = Number(arg("--rounds", "2"));
const PYTHON = arg("--peer-python", "python3");
const SCENARIOS = arg("--scenarios", "random,walk,deep,fixed,keyword,combos,default").split(",");
const URL_A = `postgres://postgres@127.0.0.1:5432/${arg("--database-a", DATABASE)}`;
const STRINGS = Number(arg("--strings", "3000"));
const COLD_SECONDS = Number(arg("--cold-seconds", "60"));
const WARM_SECONDS = Number(arg("--warm-seconds", "30"));
const PEER_SECONDS = Number(arg("--peer-seconds", "30"));
const SIDES = arg("--sides", "B,A").split(",") as ("A" | "B")[];
const A_REV = arg("--a-rev", "main");
const COLD_FROM_START = Deno.args.includes("--cold-from-start");

/**
 * main as a plain directory (git archive), with this checkout's migrations it lacks when both run
 * on one database (on its own copy, A keeps main's schema).
 */
async function mainCheckout(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "oppintel-lists-main-" });
  await run("sh", ["-c", 'git archive "$1" | tar -x -C "$2"', "sh", A_REV, dir], ROOT);
  await run(Deno.execPath(), ["install", "--quiet"], dir);
  if (URL_A !== URL_) return dir;
  for await (const entry of Deno.readDir(`${ROOT}/sql`)) {
    const target = `${dir}/sql/${entry.name}`;
    if (!(await Deno.stat(target).catch(() => null))) {
      await Deno.copyFile(`${ROOT}/sql/${entry.name}`, target);
    }
  }
  return dir;
}

/**
 * The bench keys on A's own database, made by main's code: this checkout's admin CLI would apply
 * this checkout's migrations to it first.
 */
async function mainKeys(dir: string): Promise<BenchKeys> {
  // A revision from before bench/ was sorted by job (#51) holds prepare.ts at bench/'s top.
  const prepare = await Deno.stat(`${dir}/bench/harness/prepare.ts`)
    .then(() => "./harness/prepare.ts", () => "./prepare.ts");
  await Deno.writeTextFile(
    `${dir}/bench/keys_once.ts`,
    `import { createBenchKeys } from "${prepare}";\n` +
      `console.log(JSON.stringify(await createBenchKeys(${JSON.stringify(URL_A)})));\n`,
  );
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "bench/keys_once.ts"],
    cwd: dir,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(`A's keys: ${new TextDecoder().decode(out.stderr)}`);
  return JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!);
}

async function startService(name: string, cwd: string, url = URL_): Promise<string> {
  return (await startServiceProc(name, cwd, url)).base;
}

async function startServiceProc(
  name: string,
  cwd: string,
  url: string,
): Promise<{ base: string; proc: Proc }> {
  const port = freePort();
  const proc = await start(name, ["main.ts"], {
    cwd,
    env: { DATABASE_URL: url, PORT: String(port), SEED_DEMO: "off", METRICS_TOKEN },
  });
  const base = `http://127.0.0.1:${port}`;
  await waitReady(proc, `${base}/healthz`);
  return { base, proc };
}

async function startPeer(): Promise<string> {
  const port = freePort();
  const proc = await start(
    "peer",
    ["-m", "uvicorn", "peer_fastapi:app", "--port", String(port), "--log-level", "warning"],
    { cwd: `${ROOT}/bench`, command: PYTHON, env: { DATABASE_URL: URL_, POOL: "10" } },
  );
  const base = `http://127.0.0.1:${port}`;
  await waitReady(proc, `${base}/healthz`);
  return base;
}

function row(name: string, r: LoadResult): string {
  const codes = Object.entries(r.statusCodes).map(([c, n]) => `${c}: ${n}`).join(", ");
  return `| ${name} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.non2xx} | ${codes} |`;
}

async function main(): Promise<void> {
  const out: string[] = [`Database ${DATABASE}; load average before: ${await loadAverage()}`];
  const print = (line: string) => {
    out.push(line);
    console.log(line);
  };
  const keys = await createBenchKeys(URL_);
  const keeper = quotaKeeper(URL_);
  const keeperA = URL_A === URL_ ? keeper : quotaKeeper(URL_A);
  const dirA = await mainCheckout();
  const keysA = URL_A === URL_ ? keys : await mainKeys(dirA);
  const needsPeer = SCENARIOS.includes("random") || SCENARIOS.includes("combos");
  const bases = {
    B: await startService("lists-B", ROOT),
    A: await startService("lists-A", dirA, URL_A),
    peer: needsPeer ? await startPeer() : "",
  };
  const spec = (base: string, paths: string[], seconds = DURATION): LoadSpec => ({
    base,
    path: paths[0],
    paths,
    keys: keys.spread,
    connections: CONNECTIONS,
    warmupSeconds: 3,
    seconds,
  });
  const loadOf = async (base: string, paths: string[], seconds?: number) => {
    await keeper.reset();
    keeper.startLoop();
    try {
      return await loadRun(spec(base, paths, seconds), ROOT);
    } finally {
      await keeper.stopLoop();
    }
  };
  try {
    if (SCENARIOS.includes("combos")) {
      const values = await comboValues(URL_);
      // Enough distinct strings that a cold run never asks one twice at 3,000 req/s.
      const cold = comboPaths(Math.max(STRINGS, COLD_SECONDS * 3000), values);
      const warm = cold.slice(0, STRINGS);
      const differ = await compareWithPeer(bases.B, bases.peer, warm.slice(0, 50), keys.pro);
      print(
        `\n### Random combinations (${cold.length} distinct strings, seed 38), wrk, ` +
          `${CONNECTIONS} connections\n`,
      );
      print(
        `Service and peer compared on 50 strings: ${differ.length} differ` +
          (differ.length ? ` (${differ.slice(0, 3).join(" ")})` : ""),
      );
      print(`Load average before: ${await loadAverage()}\n`);
      print(WRK_HEADER);
      const sideOf = {
        B: { cwd: ROOT, url: URL_, keys, keeper },
        A: { cwd: dirA, url: URL_A, keys: keysA, keeper: keeperA },
      };
      const combosRun = async (side: "A" | "B", kind: "cold" | "warm") => {
        const s = sideOf[side];
        // A fresh server: its cache is empty.
        const fresh = await startServiceProc(`combos-${side}`, s.cwd, s.url);
        try {
          await s.keeper.reset();
          s.keeper.startLoop();
          try {
            const spec = { base: fresh.base, keys: s.keys.spread, connections: CONNECTIONS };
            if (kind === "cold") {
              const waited = COLD_FROM_START ? null : await waitForListIndex(fresh.base);
              if (waited !== null) {
                print(`(${side}: list index loaded ${waited.toFixed(1)} s after ready)`);
              }
              return await wrkRun({ ...spec, paths: cold, seconds: COLD_SECONDS });
            }
            // One pass fills the cache, then the measured run goes round the same strings.
            await wrkRun({ ...spec, paths: warm, seconds: Math.max(5, Math.ceil(STRINGS / 150)) });
            return await wrkRun({ ...spec, paths: warm, seconds: WARM_SECONDS });
          } finally {
            await s.keeper.stopLoop();
          }
        } finally {
          await stop(fresh.proc);
        }
      };
      for (const kind of ["cold", "warm"] as const) {
        for (let round = 0; round < ROUNDS; round++) {
          const order = round % 2 === 0 ? SIDES : [...SIDES].reverse();
          for (const side of order) {
            const r = await combosRun(side, kind);
            print(wrkRow(`${kind} ${side} (round ${round + 1}, load ${await loadAverage()})`, r));
          }
        }
      }
      const peer = await wrkRun({
        base: bases.peer,
        paths: cold,
        keys: ["none"],
        connections: CONNECTIONS,
        seconds: PEER_SECONDS,
      });
      print(wrkRow(`peer, cold strings (load ${await loadAverage()})`, peer));
    }
    if (SCENARIOS.includes("default")) {
      const port = freePort();
      const raw = await start("raw", ["bench/suite/baseline_raw.ts"], {
        cwd: ROOT,
        env: { DATABASE_URL: URL_, PORT: String(port) },
      });
      await waitReady(raw, `http://127.0.0.1:${port}/`);
      print(
        `\n### Default list beside the raw page query: ${ROUNDS} rounds of ` +
          `${Math.min(DURATION, 15)} s, autocannon\n`,
      );
      print("| round | side | req/s | p50 ms | p99 ms | non-2xx | statuses |");
      print("|---|---|---|---|---|---|---|");
      const ratios: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const order = round % 2 === 0 ? ["raw", "B"] : ["B", "raw"];
        const rps: Record<string, number> = {};
        for (const side of order) {
          const base = side === "raw" ? `http://127.0.0.1:${port}` : bases.B;
          const path = side === "raw" ? "/list" : "/api/v1/opportunities";
          const r = await loadOf(base, [path], Math.min(DURATION, 15));
          rps[side] = r.rps;
          print(row(`${round + 1} | ${side}`, r));
        }
        ratios.push(rps.B / rps.raw);
      }
      print(
        `\nservice/raw req/s per round: ${ratios.map((r) => r.toFixed(2)).join(", ")}; ` +
          `load ${await loadAverage()}`,
      );
      await stop(raw);
    }
    if (SCENARIOS.includes("random")) {
      print(`\n### Random min_score x page, ${CONNECTIONS} connections, ${DURATION} s\n`);
      print("| side | req/s | p50 ms | p99 ms | non-2xx | statuses |");
      print("|---|---|---|---|---|---|");
      const paths = randomPaths();
      for (const side of ["B", "A", "peer"] as const) {
        print(row(side, await loadOf(bases[side], paths)));
      }
    }
    if (SCENARIOS.includes("walk")) {
      const times: number[] = [];
      let cursor: string | null = null;
      let items = 0;
      const started = performance.now();
      do {
        const path: string = `/api/v1/opportunities?recommendation=Build&page_size=100` +
          (cursor ? `&cursor=${cursor}` : "");
        const t0 = performance.now();
        const res = await fetch(bases.B + path, { headers: { "x-api-key": keys.spread[0] } });
        const body = await res.json();
        times.push(performance.now() - t0);
        if (res.status !== 200) throw new Error(`walk: ${res.status} ${JSON.stringify(body)}`);
        items += body.items.length;
        cursor = body.next_cursor;
        if (times.length % 200 === 0) await keeper.reset();
      } while (cursor);
      const total = performance.now() - started;
      times.sort((a, b) => a - b);
      print(`\n### Cursor walk of recommendation=Build, pages of 100 (B)\n`);
      print(
        `${times.length} pages, ${items} items in ${(total / 1000).toFixed(1)} s; per page ` +
          `p50 ${quantile(times, 0.5).toFixed(1)} ms, p99 ${
            quantile(times, 0.99).toFixed(1)
          } ms, ` +
          `max ${times.at(-1)!.toFixed(1)} ms`,
      );
    }
    if (SCENARIOS.includes("deep")) {
      print(`\n### Deep pages: page 1..100 of page_size 100, one client\n`);
      print("| filter | side | p50 ms | p99 ms | max ms | slowest page | non-200 |");
      print("|---|---|---|---|---|---|---|");
      for (const filter of ["", "min_score=50", "recommendation=Build&platform=reddit"]) {
        for (const side of ["B", "A"] as const) {
          await keeper.reset();
          const times: number[] = [];
          let bad = 0;
          let slowest = [0, 0];
          for (let page = 1; page <= 100; page++) {
            const path = `/api/v1/opportunities?${filter}&page_size=100&page=${page}`;
            const { ms, status } = await timeRequest(bases[side] + path, {
              headers: { "x-api-key": keys.spread[1] },
            });
            times.push(ms);
            if (ms > slowest[1]) slowest = [page, ms];
            if (status !== 200) bad++;
          }
          times.sort((a, b) => a - b);
          print(
            `| ${filter || "(default)"} | ${side} | ${quantile(times, 0.5).toFixed(1)} | ` +
              `${quantile(times, 0.99).toFixed(1)} | ${times.at(-1)!.toFixed(1)} | ${
                slowest[0]
              } | ${bad} |`,
          );
        }
      }
    }
    const ab = async (title: string, paths: string[]) => {
      print(`\n### ${title}: A/B, ${ROUNDS} rounds of ${Math.min(DURATION, 15)} s\n`);
      print("| round | side | req/s | p50 ms | p99 ms | non-2xx | statuses |");
      print("|---|---|---|---|---|---|---|");
      const ratios: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const order = round % 2 === 0 ? ["A", "B"] as const : ["B", "A"] as const;
        const rps: Record<string, number> = {};
        for (const side of order) {
          const r = await loadOf(bases[side], paths, Math.min(DURATION, 15));
          rps[side] = r.rps;
          print(row(`${round + 1} | ${side}`, r));
        }
        ratios.push(rps.B / rps.A);
      }
      print(`\nB/A req/s per round: ${ratios.map((r) => r.toFixed(2)).join(", ")}`);
    };
    if (SCENARIOS.includes("fixed")) {
      await ab("Fixed filter platform=reddit&min_score=70&recommendation=Build", [
        "/api/v1/opportunities?platform=reddit&min_score=70&recommendation=Build",
      ]);
    }
    if (SCENARIOS.includes("keyword")) {
      const sql = postgres(URL_, { max: 1, onnotice: () => {} });
      const titles = await sql<{ title: string }[]>`
        select title from opportunities where id % 997 = 0 limit 400`;
      await sql.end();
      const words = [
        ...new Set(titles.flatMap((t) => t.title.toLowerCase().match(/[a-z]{5,}/g) ?? [])),
      ].slice(0, 200);
      await ab(
        `Random keywords (${words.length} words from titles)`,
        words.map((w) => `/api/v1/opportunities?q=${w}`),
      );
    }
    print(`\nLoad average after: ${await loadAverage()}`);
  } finally {
    if (keeperA !== keeper) await keeperA.close();
    await keeper.close();
    await stopAll();
    await Deno.remove(dirA, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) await main();
