/**
 * `deno task bench:ab`: two versions of the service side by side on one PostgreSQL database,
 * loaded in turns (A, B, A, B, ...) so that the machine's drift hits both alike. A is a git
 * revision (checked out into a temporary worktree), B is this checkout as it stands. Prints each
 * round and the median ratio B/A of requests per second per scenario.
 *
 * Example: deno task bench:ab --a main~3 --opportunities 200000 --rounds 3 --duration 5
 */
import { mcpCall } from "./scenarios.ts";
import { loadAverage, loadRun, median } from "../harness/measure.ts";
import {
  benchAdminUrl,
  type BenchKeys,
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
  run,
  start,
  stopAll,
  waitReady,
} from "../harness/procs.ts";
import type { LoadSpec } from "../harness/load.ts";

const ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

function help(): string {
  return `Usage: deno task bench:ab --a REV [flags]

Runs the service at git revision REV (A) and this checkout (B) on one database, and loads them
in turns with autocannon. With "--a raw", A is the bare baseline (bench/suite/baseline_raw.ts: the
page query and the single-row select alone), for the scenarios that have one (list,
list_filtered, detail).

Flags:
  --a REV               The revision to compare against (required), e.g. main~3, a commit, or raw
  --opportunities N     Opportunities in the database (default 1000000; reused when it matches)
  --database NAME       Database name (default oppintel_bench)
  --scenarios LIST      Comma-separated, from: ${Object.keys(specs(NO_KEYS)).join(", ")}
                        (default ${DEFAULT_SCENARIOS.join(",")})
  --rounds N            A/B pairs per scenario (default 3)
  --duration S          Measured seconds of each run (default 5)
  --warmup S            Warm-up seconds of each run (default 2)
  --connections N       Connections of each run (default 50)

Both versions run on the database's schema: migrations of this checkout that A lacks are copied
into A's checkout (A's code must tolerate what they add). Environment: BENCH_POSTGRES_URL, as for deno task bench.`;
}

interface Options {
  a: string;
  opportunities: number;
  database: string;
  scenarios: string[];
  rounds: number;
  duration: number;
  warmup: number;
  connections: number;
}

const MCP_HEADERS = {
  "content-type": "application/json",
  "accept": "application/json, text/event-stream",
};
const MODERN = "2026-07-28";

/** A 2026-07-28 tools/call: no handshake, the version in `_meta` and the routing headers. */
function modernCall(name: string, args: Record<string, unknown>) {
  const meta = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": { name: "bench", version: "0" },
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  return {
    path: "/mcp/",
    method: "POST" as const,
    headers: {
      ...MCP_HEADERS,
      "mcp-protocol-version": MODERN,
      "mcp-method": "tools/call",
      "mcp-name": name,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name, arguments: args, _meta: meta },
    }),
    rejectBodyContaining: '"isError":true',
  };
}

const NO_KEYS: BenchKeys = { pro: "", hot: "", spread: [] };
const DEFAULT_SCENARIOS = ["list", "list_filtered", "detail", "mcp_list", "mcp_detail"];

/** The bare baseline's route of a scenario, for "--a raw". */
const RAW_PATHS: Record<string, string> = {
  list: "/list",
  list_filtered: "/list-filtered?platform=reddit&min_score=70&recommendation=Build",
  detail: "/detail/{id}",
};

/** The scenarios: one route each, the same request for A and B. */
function specs(keys: BenchKeys): Record<string, Omit<LoadSpec, "base" | "idRange">> {
  const common = { keys: [keys.pro], connections: 0, warmupSeconds: 0, seconds: 0 };
  return {
    list: { ...common, path: "/api/v1/opportunities" },
    list_filtered: {
      ...common,
      path: "/api/v1/opportunities?platform=reddit&min_score=70&recommendation=Build",
    },
    detail: { ...common, path: "/api/v1/opportunities/{id}" },
    mcp_list: {
      ...common,
      path: "/mcp/",
      method: "POST",
      headers: MCP_HEADERS,
      body: mcpCall("query_opportunities", {}),
      rejectBodyContaining: '"isError":true',
    },
    mcp_detail: {
      ...common,
      path: "/mcp/",
      method: "POST",
      headers: MCP_HEADERS,
      body: mcpCall("get_opportunity", { id: "{id}" }),
      rejectBodyContaining: '"isError":true',
    },
    mcp_list_2026: { ...common, ...modernCall("query_opportunities", {}) },
    mcp_detail_2026: { ...common, ...modernCall("get_opportunity", { id: "{id}" }) },
    // A 2025 client's tools/list (stateless: no session, the negotiated version in a header).
    mcp_tools_list: {
      ...common,
      path: "/mcp/",
      method: "POST",
      headers: { ...MCP_HEADERS, "mcp-protocol-version": "2025-11-25" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    },
    // The list with 50 connections on one Business account's counter row, and on 50 accounts.
    quota_hot: { ...common, keys: [keys.hot], path: "/api/v1/opportunities" },
    quota_spread: { ...common, keys: keys.spread, path: "/api/v1/opportunities" },
  };
}

function parseOptions(args: string[]): Options {
  const o: Options = {
    a: "",
    opportunities: 1_000_000,
    database: "oppintel_bench",
    scenarios: DEFAULT_SCENARIOS,
    rounds: 3,
    duration: 5,
    warmup: 2,
    connections: 50,
  };
  const numbers: Record<string, keyof Options> = {
    "--opportunities": "opportunities",
    "--rounds": "rounds",
    "--duration": "duration",
    "--warmup": "warmup",
    "--connections": "connections",
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const value = args[i + 1];
    if (arg === "--help" || arg === "-h") {
      console.log(help());
      Deno.exit(0);
    } else if (arg === "--a" && value) {
      o.a = value;
      i++;
    } else if (arg === "--database" && value && /^[a-z_][a-z0-9_]*$/.test(value)) {
      o.database = value;
      i++;
    } else if (arg === "--scenarios" && value) {
      o.scenarios = value.split(",").map((s) => s.trim()).filter(Boolean);
      i++;
    } else if (arg in numbers && /^\d+$/.test(value ?? "") && Number(value) > 0) {
      (o[numbers[arg]] as number) = Number(value);
      i++;
    } else throw new Error(`Bad flag or value "${arg}" (see --help)`);
  }
  if (!o.a) throw new Error('Missing "--a REV" (see --help)');
  return o;
}

/** A temporary worktree of `rev` with its npm dependencies installed. */
async function checkout(rev: string): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "oppintel-ab-" });
  await run("git", ["worktree", "add", "--detach", dir, rev], ROOT);
  await run(Deno.execPath(), ["install", "--quiet"], dir);
  // The database carries this checkout's migrations: A gets the files it lacks, so that its
  // migration check accepts the schema (its code must tolerate what they add).
  for await (const entry of Deno.readDir(`${ROOT}/sql`)) {
    const target = `${dir}/sql/${entry.name}`;
    if (entry.isFile && !(await exists(target))) {
      await Deno.copyFile(`${ROOT}/sql/${entry.name}`, target);
    }
  }
  return dir;
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
  const keys = await createBenchKeys(db.url);
  const keeper = quotaKeeper(db.url);
  const raw = options.a === "raw";
  for (const id of options.scenarios) {
    if (raw && !RAW_PATHS[id]) throw new Error(`Scenario "${id}" has no bare baseline`);
  }
  console.error(`[ab] checking out ${options.a}`);
  const dirA = raw ? ROOT : await checkout(options.a);
  const loadBefore = await loadAverage();
  try {
    const bases: Record<"A" | "B", string> = { A: "", B: "" };
    const pids: Record<"A" | "B", number> = { A: 0, B: 0 };
    for (const [side, cwd] of [["A", dirA], ["B", ROOT]] as const) {
      const port = freePort();
      const script = raw && side === "A" ? "bench/suite/baseline_raw.ts" : "main.ts";
      const proc = await start(`ab-${side}`, [script], {
        cwd,
        env: { DATABASE_URL: db.url, PORT: String(port), SEED_DEMO: "off" },
      });
      bases[side] = `http://127.0.0.1:${port}`;
      pids[side] = proc.pid;
      await waitReady(proc, `${bases[side]}${script === "main.ts" ? "/healthz" : "/"}`);
    }
    const all = specs(keys);
    const rows: string[] = [
      "| scenario | A req/s | B req/s | B/A (median of rounds) | CPU µs/req A | CPU µs/req B | " +
      "CPU B/A (median of rounds) | B non-2xx |",
    ];
    rows.push("|---|---|---|---|---|---|---|---|");
    for (const id of options.scenarios) {
      const spec = all[id];
      if (!spec) throw new Error(`Unknown scenario "${id}"`);
      const rps: Record<"A" | "B", number[]> = { A: [], B: [] };
      // CPU of the service process and of the database's backends per request: on a shared
      // machine steadier than the rate, which other work on the cores moves by ±30%.
      const cpu: Record<"A" | "B", number[]> = { A: [], B: [] };
      let bad = 0;
      for (let round = 0; round < options.rounds; round++) {
        // Alternate which side goes first, so neither always runs on a warmer machine.
        const order = round % 2 === 0 ? ["A", "B"] as const : ["B", "A"] as const;
        for (const side of order) {
          await keeper.reset();
          keeper.startLoop();
          const cpu0 = await cpuSeconds(pids[side]);
          const pg0 = await backendCpu(options.database);
          const result = await loadRun({
            ...spec,
            ...(raw && side === "A" ? { path: RAW_PATHS[id] } : {}),
            base: bases[side],
            idRange: db.idRange,
            connections: options.connections,
            warmupSeconds: options.warmup,
            seconds: options.duration,
          }, ROOT);
          const own = (await cpuSeconds(pids[side])) - cpu0;
          const pgUsed = backendDelta(pg0, await backendCpu(options.database));
          const used = own + pgUsed;
          await keeper.stopLoop();
          rps[side].push(result.rps);
          // The counters cover the warm-up too: divide by its requests as well, at the same rate.
          cpu[side].push(used * 1e6 / (result.rps * (options.warmup + options.duration)));
          if (side === "B") bad += result.non2xx + result.mismatches;
          console.error(
            `[ab] ${id} round ${round + 1} ${side}: ${result.rps.toFixed(0)} req/s, ` +
              `${cpu[side].at(-1)!.toFixed(0)} µs CPU/req (${
                (own / used * 100).toFixed(0)
              }% service, ${
                (pgUsed / used * 100).toFixed(0)
              }% PostgreSQL), p50 ${result.p50} ms, ` +
              `p99 ${result.p99} ms, non-2xx ${result.non2xx}, mismatches ${result.mismatches}`,
          );
        }
      }
      const ratios = rps.B.map((b, i) => b / rps.A[i]);
      const cpuRatios = cpu.B.map((b, i) => b / cpu.A[i]);
      const list = (values: number[]) => values.map((r) => r.toFixed(2)).join(", ");
      rows.push(
        `| ${id} | ${median(rps.A).toFixed(0)} | ${median(rps.B).toFixed(0)} | ` +
          `${median(ratios).toFixed(2)}x (${list(ratios)}) | ${median(cpu.A).toFixed(0)} | ` +
          `${median(cpu.B).toFixed(0)} | ${median(cpuRatios).toFixed(2)}x (${list(cpuRatios)}) | ` +
          `${bad} |`,
      );
    }
    console.log(
      `A = ${options.a}, B = this checkout; ${db.opportunities} opportunities, ` +
        `${options.connections} connections, ${options.rounds} rounds of ${options.duration} s; ` +
        `load average ${loadBefore} before, ${await loadAverage()} after\n`,
    );
    console.log(rows.join("\n"));
  } finally {
    await stopAll();
    await keeper.close();
    if (!raw) await run("git", ["worktree", "remove", "--force", dirA], ROOT);
  }
}

/** The A/B comparison on the command line (`args`: the flags); a failure stops every started process. */
export async function runAb(args: string[]): Promise<void> {
  try {
    await main(args);
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    await stopAll();
    Deno.exit(1);
  }
}
