/**
 * Drill: a query slower than the statement time-out. An instance runs with a small
 * DB_STATEMENT_TIMEOUT_MS on a database of 50,000 demo opportunities, and a keyword search of
 * common words (its count alone takes about 250 ms here) is sent, with distinct filters, more
 * times at once than the pool has connections. Expected: each is answered 503 service_unavailable JSON, nothing is
 * charged (admit charged, the refund gave it back), no statement is left running, and the pool
 * answers normal calls at once afterwards. A second instance with the default time-out answers
 * the same search 200, which shows the time-out, not the query, made the 503.
 *
 *   deno run -A scripts/drills/slow_query.ts [--opportunities 50000] [--timeout-ms 100]
 */
import { parseArgs } from "node:util";
import { makeKey, setUsed, usedOf } from "../../tests/helpers/app.ts";
import { type Instance, startInstance, stopAll } from "../../tests/helpers/instances.ts";
import { type Call, call, scratchDatabase, tally, verdict } from "./common.ts";

const { values } = parseArgs({
  options: {
    opportunities: { type: "string", default: "50000" },
    "timeout-ms": { type: "string", default: "100" },
    q: { type: "string", default: "the an" },
  },
});
const POOL = 4;
const SLOW_CALLS = 12;
const SEARCH = `/api/v1/opportunities?q=${encodeURIComponent(values.q!)}`;

async function seed(url: string): Promise<void> {
  const main = new URL("../../src/cli/admin.ts", import.meta.url).pathname;
  const started = performance.now();
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", main, "seed-demo", "--opportunities", values.opportunities!],
    env: { DATABASE_URL: url },
    stdout: "null",
    stderr: "piped",
  }).output();
  if (code !== 0) throw new Error(`seed-demo failed: ${new TextDecoder().decode(stderr)}`);
  console.log(
    `Seeded ${values.opportunities} opportunities in ${
      Math.round((performance.now() - started) / 1000)
    } s`,
  );
}

async function main(): Promise<number> {
  const scratch = await scratchDatabase("oi_drill_slow");
  let instances: Instance[] = [];
  try {
    await seed(scratch.url);
    const [{ id }] = await scratch.sql<
      { id: number }[]
    >`select min(id)::int as id from opportunities`;
    const { key, accountId } = await makeKey(scratch.sql, "pro");
    await setUsed(scratch.sql, accountId, 0);
    instances = await Promise.all([
      startInstance("short", scratch.url, {
        DB_STATEMENT_TIMEOUT_MS: values["timeout-ms"]!,
        DB_POOL_MAX: String(POOL),
      }),
      startInstance("default", scratch.url, { DB_POOL_MAX: String(POOL) }),
    ]);
    const [short, normal] = instances;
    const origin = performance.now();
    const get = (instance: Instance, path: string, k: string | undefined = key) =>
      call(instance.name, instance.base, path, k, origin, 30_000);

    const before = await get(short, `/api/v1/opportunities/${id}`);
    const usedBefore = await usedOf(scratch.sql, accountId);

    const slow: Call[] = await Promise.all(
      // Distinct filters, so the cache cannot merge them into one query: each takes a connection.
      Array.from({ length: SLOW_CALLS }, (_, i) => get(short, `${SEARCH}&min_score=${i}`)),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const usedAfterSlow = await usedOf(scratch.sql, accountId);
    const [{ running }] = await scratch.sql<{ running: number }[]>`
      select count(*)::int as running from pg_stat_activity
      where datname = current_database() and state = 'active' and query ilike '%ilike%'
        and pid <> pg_backend_pid()`;

    const after: Call[] = [];
    for (let i = 0; i < 10; i++) {
      after.push(await get(short, `/api/v1/opportunities/${id + i}`));
      after.push(await get(short, "/api/v1/opportunities?page_size=5&page=" + (i + 1)));
      after.push(await get(short, "/healthz", undefined));
    }
    const usedAfter = await usedOf(scratch.sql, accountId);
    // /healthz is free; the detail and list calls cost one unit each.
    const charged = after.filter((c) => c.status === 200).length - 10;
    const control = await get(normal, SEARCH);
    const usedEnd = await usedOf(scratch.sql, accountId);

    const slowOk = slow.every((c) =>
      c.status === 503 && c.json && c.error === "service_unavailable"
    );
    console.log(JSON.stringify(
      {
        statement_timeout_ms: Number(values["timeout-ms"]),
        pool_max: POOL,
        search: SEARCH,
        first_call: before.status,
        slow_calls: tally(slow),
        slow_call_ms: {
          min: Math.min(...slow.map((c) => c.ms)),
          max: Math.max(...slow.map((c) => c.ms)),
        },
        quota: {
          before: usedBefore,
          after_slow_calls: usedAfterSlow,
          after_normal_calls: usedAfter,
          end: usedEnd,
        },
        statements_left_running: running,
        normal_calls_after: tally(after),
        normal_call_ms_max: Math.max(...after.map((c) => c.ms)),
        control_default_timeout: { status: control.status, ms: control.ms },
      },
      null,
      2,
    ));
    return verdict("slow query beyond the statement time-out", [
      ["the first call answered 200 and charged 1", before.status === 200 && usedBefore === 1],
      [`all ${SLOW_CALLS} slow searches answered 503 service_unavailable JSON`, slowOk],
      ["nothing charged for them", usedAfterSlow === usedBefore],
      ["no statement left running", running === 0],
      [
        "the pool answered every normal call afterwards with 200",
        after.every((c) => c.status === 200),
      ],
      [
        "normal calls charged exactly one each",
        charged === 20 && usedAfter === usedBefore + charged,
      ],
      [
        "with the default time-out the same search answers 200",
        control.status === 200 && usedEnd === usedAfter + 1,
      ],
    ]);
  } finally {
    await stopAll(instances);
    await scratch.drop();
  }
}

Deno.exit(await main());
