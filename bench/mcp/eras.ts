/**
 * bench/mcp/: the MCP family (bench/mcp.ts): what a tool call costs beside its REST twin under
 * load (this file) and in process (overhead.ts), and how fast every tool answers on a large
 * database (tools.ts).
 *
 * `deno task bench:mcp-eras`: MCP tools/call on both protocol eras next to the REST list and
 * detail, on one service (this checkout) and one PostgreSQL database, loaded in turns
 * (REST, 2025, 2026-07-28, REST, ...) so that the machine's drift hits all alike. Prints the
 * median requests per second and latencies of the rounds per scenario, and each MCP figure as a
 * ratio of its REST twin.
 *
 * Example: deno task bench:mcp-eras --opportunities 20000 --rounds 3 --duration 5
 */
import { loadRun, median } from "../harness/measure.ts";
import {
  benchAdminUrl,
  createBenchKeys,
  prepareDatabase,
  quotaKeeper,
} from "../harness/prepare.ts";
import { freePort, start, stopAll, waitReady } from "../harness/procs.ts";
import type { LoadResult, LoadSpec } from "../harness/load.ts";

const ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
const MODERN = "2026-07-28";

const HELP = `Usage: deno task bench:mcp-eras [flags]

Flags:
  --opportunities N     Opportunities in the database (default 20000; reused when it matches)
  --database NAME       Database name (default oppintel_bench_eras)
  --rounds N            Rounds of every scenario (default 3)
  --duration S          Measured seconds of each run (default 5)
  --warmup S            Warm-up seconds of each run (default 2)
  --connections N       Connections of each run (default 50)

Environment: BENCH_POSTGRES_URL, as for deno task bench.`;

interface Options {
  opportunities: number;
  database: string;
  rounds: number;
  duration: number;
  warmup: number;
  connections: number;
}

/** A tools/call body of either era; `{id}` in the arguments becomes a random id per request. */
function callBody(name: string, args: Record<string, unknown>, modern: boolean): string {
  const meta = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": { name: "bench", version: "0" },
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  return JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name, arguments: args, ...(modern ? { _meta: meta } : {}) },
  });
}

function mcpSpec(name: string, args: Record<string, unknown>, modern: boolean) {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "accept": "application/json, text/event-stream",
    // A 2025 client sends the version it negotiated in initialize (stateless: no session).
    "mcp-protocol-version": modern ? MODERN : "2025-11-25",
  };
  if (modern) Object.assign(headers, { "mcp-method": "tools/call", "mcp-name": name });
  return {
    path: "/mcp/",
    method: "POST" as const,
    headers,
    body: callBody(name, args, modern),
    rejectBodyContaining: '"isError":true',
  };
}

/** The scenarios, in the order each round runs them; `twin` is the REST figure to compare with. */
const SCENARIOS: { id: string; twin?: string; spec: Partial<LoadSpec> }[] = [
  { id: "rest_list", spec: { path: "/api/v1/opportunities" } },
  { id: "mcp_2025_list", twin: "rest_list", spec: mcpSpec("query_opportunities", {}, false) },
  { id: "mcp_2026_list", twin: "rest_list", spec: mcpSpec("query_opportunities", {}, true) },
  { id: "rest_detail", spec: { path: "/api/v1/opportunities/{id}" } },
  {
    id: "mcp_2025_detail",
    twin: "rest_detail",
    spec: mcpSpec("get_opportunity", { id: "{id}" }, false),
  },
  {
    id: "mcp_2026_detail",
    twin: "rest_detail",
    spec: mcpSpec("get_opportunity", { id: "{id}" }, true),
  },
];

function parseOptions(args: string[]): Options {
  const o: Options = {
    opportunities: 20_000,
    database: "oppintel_bench_eras",
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
    const [arg, value] = [args[i], args[i + 1]];
    if (arg === "--help" || arg === "-h") {
      console.log(HELP);
      Deno.exit(0);
    } else if (arg === "--database" && value && /^[a-z_][a-z0-9_]*$/.test(value)) {
      o.database = value;
      i++;
    } else if (arg in numbers && /^\d+$/.test(value ?? "") && Number(value) > 0) {
      (o[numbers[arg]] as number) = Number(value);
      i++;
    } else throw new Error(`Bad flag or value "${arg}" (see --help)`);
  }
  return o;
}

/** The eras bench on the command line (`args`: the flags). */
export async function main(args: string[]): Promise<void> {
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
  try {
    const port = freePort();
    const proc = await start("eras", ["main.ts"], {
      cwd: ROOT,
      env: { DATABASE_URL: db.url, PORT: String(port), SEED_DEMO: "off" },
    });
    const base = `http://127.0.0.1:${port}`;
    await waitReady(proc, `${base}/healthz`);
    const results = new Map<string, LoadResult[]>();
    for (let round = 0; round < options.rounds; round++) {
      for (const { id, spec } of SCENARIOS) {
        await keeper.reset();
        keeper.startLoop();
        const result = await loadRun({
          path: "",
          ...spec,
          base,
          keys: [keys.pro],
          idRange: db.idRange,
          connections: options.connections,
          warmupSeconds: options.warmup,
          seconds: options.duration,
        }, ROOT);
        await keeper.stopLoop();
        if (!results.has(id)) results.set(id, []);
        results.get(id)!.push(result);
        const bad = result.non2xx + result.errors + result.timeouts + result.mismatches;
        console.error(
          `[eras] round ${round + 1} ${id}: ${
            result.rps.toFixed(0)
          } req/s, p50 ${result.p50} ms, ` +
            `p99 ${result.p99} ms${bad ? `, ${bad} bad answers` : ""}`,
        );
      }
    }
    const rps = (id: string) => median(results.get(id)!.map((r) => r.rps));
    console.log(
      `\n${db.opportunities} opportunities, ${options.connections} connections, ` +
        `${options.rounds} rounds of ${options.duration} s (median of rounds)\n`,
    );
    console.log("| scenario | req/s | p50 ms | p99 ms | of REST twin | bad answers |");
    console.log("|---|---|---|---|---|---|");
    for (const { id, twin } of SCENARIOS) {
      const runs = results.get(id)!;
      const bad = runs.reduce((n, r) => n + r.non2xx + r.errors + r.timeouts + r.mismatches, 0);
      const ratio = twin ? `${(rps(id) / rps(twin)).toFixed(2)}` : "-";
      console.log(
        `| ${id} | ${rps(id).toFixed(0)} | ${median(runs.map((r) => r.p50))} | ` +
          `${median(runs.map((r) => r.p99))} | ${ratio} | ${bad} |`,
      );
    }
  } finally {
    await keeper.close();
    await stopAll();
  }
}
