/**
 * `deno task bench:mcp-overhead`: the service's own CPU per request of the REST list and
 * detail and of their MCP twins on both protocol eras, in process (the handler main.ts builds,
 * no HTTP server, no load generator), one request at a time, scenarios in turns. On a shared
 * machine this is steadier than a load run: process CPU time per request counts only this
 * process's work (the database's is not in it), and the best round is reported.
 *
 * Options: --database NAME (default oppintel_bench, which must exist: deno task bench
 * --prepare-only builds it), --requests N per round (default 400), --rounds N (default 5),
 * --cpu-prof-only SCENARIO (run one scenario for the rounds, for `deno run --cpu-prof`),
 * --scenarios LIST (comma-separated scenario ids, default all).
 */
import process from "node:process";
import { buildHandler } from "../../main.ts";
import { readConfig } from "../../src/platform/config.ts";
import { openDatabase } from "../../src/db/open.ts";
import { createAccount } from "../../src/accounts/accounts.ts";
import { createApiKey } from "../../src/accounts/api_keys.ts";
import { benchAdminUrl } from "../harness/prepare.ts";
import { arg, exitWithHelpIfAsked } from "../harness/args.ts";

exitWithHelpIfAsked(`
Usage: deno task bench:mcp-overhead [flags]

The service's own CPU per request of the REST list and detail and of their MCP twins on both
protocol eras, in process (no HTTP server, no load generator); the best round is reported.

Flags:
  --database NAME          An existing bench database (default oppintel_bench; build it with
                           deno task bench --prepare-only)
  --requests N             Requests of each scenario per round (default 400)
  --rounds N               Rounds (default 5)
  --scenarios LIST         Comma-separated scenario ids (default all)
  --cpu-prof-only ID       Run one scenario for the rounds, for deno run --cpu-prof
`);

const MODERN = "2026-07-28";
const DOMAIN = "overhead.bench.oppintel.local";

const database = arg("--database", "oppintel_bench");
const requests = Number(arg("--requests", "400"));
const rounds = Number(arg("--rounds", "5"));
const only = arg("--cpu-prof-only", "");
const chosen = arg("--scenarios", "");
const url = new URL(benchAdminUrl());
url.pathname = `/${database}`;

const config = readConfig({
  DATABASE_URL: url.toString(),
  PUBLIC_BASE_URL: "https://oppintel.example",
  SEED_DEMO: "off",
});
const db = await openDatabase(config);
await db.sql`delete from accounts where email like ${"%@" + DOMAIN}`;
const email = `overhead@${DOMAIN}`;
const account = await createAccount(db.sql, { email, plan: "business", verified: true });
const { key } = await createApiKey(db.sql, { email, name: "overhead" });
const handler = buildHandler(db, config, { log: () => {} });
const [{ min, max }] = await db.sql<{ min: number; max: number }[]>`
  select min(id)::int as min, max(id)::int as max from opportunities`;
const randomId = () => min + Math.floor(Math.random() * (max - min + 1));

function mcp(era: "2025" | "2026", name: string, args: () => Record<string, unknown>) {
  const modern = era === "2026";
  const meta = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": { name: "bench", version: "0" },
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  return () =>
    new Request("http://127.0.0.1/mcp/", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "x-api-key": key,
        "mcp-protocol-version": modern ? MODERN : "2025-11-25",
        ...(modern ? { "mcp-method": "tools/call", "mcp-name": name } : {}),
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name, arguments: args(), ...(modern ? { _meta: meta } : {}) },
      }),
    });
}

const rest = (path: () => string) => () =>
  new Request(`http://127.0.0.1${path()}`, { headers: { "x-api-key": key } });

const SCENARIOS: Record<string, () => Request> = {
  rest_list: rest(() => "/api/v1/opportunities"),
  mcp_2025_list: mcp("2025", "query_opportunities", () => ({})),
  mcp_2026_list: mcp("2026", "query_opportunities", () => ({})),
  rest_detail: rest(() => `/api/v1/opportunities/${randomId()}`),
  mcp_2025_detail: mcp("2025", "get_opportunity", () => ({ id: randomId() })),
  mcp_2026_detail: mcp("2026", "get_opportunity", () => ({ id: randomId() })),
  mcp_2025_ping: () =>
    new Request("http://127.0.0.1/mcp/", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "x-api-key": key,
        "mcp-protocol-version": "2025-11-25",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    }),
  mcp_2025_tools_list: () =>
    new Request("http://127.0.0.1/mcp/", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "x-api-key": key,
        "mcp-protocol-version": "2025-11-25",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    }),
};

const cpuUs = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

/** Transactions committed in the database so far (the statistics lag up to a second). */
async function commits(): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 1200));
  const [row] = await db.sql<{ n: number }[]>`
    select pg_stat_get_db_xact_commit(oid)::float8 as n from pg_database
    where datname = current_database()`;
  return row.n;
}

const best: Record<string, { cpu: number; wall: number; statements: number }> = {};
const ids = only ? [only] : chosen ? chosen.split(",") : Object.keys(SCENARIOS);
for (const id of ids) if (!SCENARIOS[id]) throw new Error(`unknown scenario ${id}`);
for (let round = 0; round < rounds; round++) {
  for (const id of ids) {
    await db.sql`delete from usage_counters where account_id = ${account.id}`;
    const make = SCENARIOS[id];
    for (let i = 0; i < 20; i++) await (await handler(make())).arrayBuffer();
    const commits0 = await commits();
    const cpu0 = cpuUs();
    const t0 = performance.now();
    for (let i = 0; i < requests; i++) {
      const res = await handler(make());
      const text = await res.text();
      if (res.status !== 200 || text.includes('"isError":true')) {
        throw new Error(`${id}: ${res.status} ${text.slice(0, 300)}`);
      }
    }
    const cpu = (cpuUs() - cpu0) / requests;
    const wall = (performance.now() - t0) * 1000 / requests;
    // Less the statistics query of the second reading itself.
    const statements = (await commits() - commits0 - 1) / requests;
    const b = best[id];
    best[id] = {
      cpu: Math.min(b?.cpu ?? Infinity, cpu),
      wall: Math.min(b?.wall ?? Infinity, wall),
      statements: Math.min(b?.statements ?? Infinity, statements),
    };
  }
}
console.log(`${requests} requests a round, ${rounds} rounds, best round (µs per request)\n`);
console.log("| scenario | process CPU | wall | CPU vs REST twin | statements a request |");
console.log("|---|---|---|---|---|");
for (const id of ids) {
  const twin = id.endsWith("list") && id !== "mcp_2025_tools_list"
    ? "rest_list"
    : id.endsWith("detail")
    ? "rest_detail"
    : undefined;
  const ratio = twin && best[twin] ? (best[id].cpu / best[twin].cpu).toFixed(2) + "x" : "-";
  console.log(
    `| ${id} | ${best[id].cpu.toFixed(0)} | ${best[id].wall.toFixed(0)} | ${ratio} | ` +
      `${best[id].statements.toFixed(2)} |`,
  );
}
await db.sql`delete from accounts where email like ${"%@" + DOMAIN}`;
await handler.settle();
await db.close();
