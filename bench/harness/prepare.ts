/**
 * The benchmark database: a PostgreSQL database seeded by the admin CLI's seed-demo with N
 * opportunities (kept between runs when it already holds N), and the bench accounts and keys,
 * made afresh on every run through the admin CLI (in process, on one connection).
 */
import postgres from "postgres";
import { runAdmin } from "../../src/cli/admin.ts";
import { readConfig } from "../../src/platform/config.ts";
import { type Database, openDatabase } from "../../src/db/open.ts";
import { runToEnd } from "./procs.ts";

/** The database URL and facts about its content. */
export interface PreparedDatabase {
  url: string;
  opportunities: number;
  /** Seconds spent seeding in this run; undefined when the database was reused. */
  seedSeconds?: number;
  idRange: [number, number];
}

/** The keys of the bench accounts. */
export interface BenchKeys {
  /** A Pro key for the list, detail, overview, trending and MCP scenarios. */
  pro: string;
  /** A Business key used by all 50 connections of the hot-row scenario. */
  hot: string;
  /** One key for each of 50 Business accounts, one per connection in the spread scenario. */
  spread: string[];
}

const BENCH_DOMAIN = "bench.oppintel.local";
const SPREAD_ACCOUNTS = 50;

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Refuses any database host but the loopback one: the suite loads what it connects to. */
export function assertLoopback(url: string): void {
  const host = new URL(url).hostname;
  if (host !== "127.0.0.1" && host !== "localhost") {
    throw new Error(`The benchmark runs on 127.0.0.1 only, not "${host}"`);
  }
}

async function countOpportunities(url: string): Promise<number | undefined> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [{ exists }] = await sql<{ exists: boolean }[]>`
      select to_regclass('public.opportunities') is not null as exists`;
    if (!exists) return undefined;
    const [{ n }] = await sql<{ n: number }[]>`select count(*)::int as n from opportunities`;
    return n;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** The server's maintenance database the benchmarks connect to (BENCH_POSTGRES_URL). */
export function benchAdminUrl(): string {
  return Deno.env.get("BENCH_POSTGRES_URL") ?? "postgres://postgres@127.0.0.1:5432/postgres";
}

/**
 * Makes sure database `name` on the server of `adminUrl` holds `opportunities` demo
 * opportunities: reused when it does (unless `fresh`), else dropped, created and seeded with
 * `deno run -A src/cli/admin.ts seed-demo`, then vacuumed and analysed as autovacuum would be
 * after a bulk load, so that plans and index-only scans do not depend on its timing.
 */
export async function prepareDatabase(
  adminUrl: string,
  options: { name: string; opportunities: number; fresh: boolean; cwd: string },
): Promise<PreparedDatabase> {
  assertLoopback(adminUrl);
  const url = withDatabase(adminUrl, options.name);
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  let seedSeconds: number | undefined;
  try {
    const [{ exists }] = await admin<{ exists: boolean }[]>`
      select exists (select 1 from pg_database where datname = ${options.name}) as exists`;
    const count = exists ? await countOpportunities(url) : undefined;
    if (!options.fresh && count === options.opportunities) {
      console.error(`[prepare] reusing "${options.name}" with ${count} opportunities`);
    } else {
      console.error(
        `[prepare] building "${options.name}" with ${options.opportunities} opportunities` +
          (exists ? ` (it held ${count ?? "no"} opportunities)` : ""),
      );
      await admin.unsafe(`drop database if exists "${options.name}" with (force)`);
      await admin.unsafe(`create database "${options.name}"`);
      const started = performance.now();
      const seeded = await runToEnd(
        ["src/cli/admin.ts", "seed-demo", "--opportunities", String(options.opportunities)],
        { cwd: options.cwd, env: { DATABASE_URL: url }, onStderr: true },
      );
      if (seeded.code !== 0) throw new Error(`seed-demo failed with exit code ${seeded.code}`);
      const sql = postgres(url, { max: 1, onnotice: () => {} });
      try {
        console.error("[prepare] vacuum analyze");
        await sql.unsafe("vacuum analyze");
      } finally {
        await sql.end({ timeout: 5 });
      }
      seedSeconds = (performance.now() - started) / 1000;
      console.error(`[prepare] seeded in ${seedSeconds.toFixed(0)} s`);
    }
  } finally {
    await admin.end({ timeout: 5 });
  }
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql<{ n: number; lo: number; hi: number }[]>`
      select count(*)::int as n, min(id)::int as lo, max(id)::int as hi from opportunities`;
    return { url, opportunities: row.n, seedSeconds, idRange: [row.lo, row.hi] };
  } finally {
    await sql.end({ timeout: 5 });
  }
}

async function admin(
  args: string[],
  env: Record<string, string>,
  database: Database,
): Promise<unknown> {
  let out = "";
  let err = "";
  const code = await runAdmin(args, {
    env,
    stdout: (s) => out += s,
    stderr: (s) => err += s + "\n",
    database,
  });
  if (code !== 0) throw new Error(`admin ${args.join(" ")} failed (${code}): ${err.trim()}`);
  return JSON.parse(out);
}

async function accountKey(
  db: Database,
  env: Record<string, string>,
  local: string,
  plan: string,
): Promise<string> {
  const email = `${local}@${BENCH_DOMAIN}`;
  await admin(["account", "create", "--email", email, "--plan", plan, "--verified"], env, db);
  const created = await admin(["key", "create", "--email", email, "--name", "bench"], env, db);
  return (created as { key: string }).key;
}

/**
 * Deletes the bench accounts of earlier runs (their keys and counters go with them) and creates
 * them again with the admin CLI: raw keys are shown once, so every run makes its own.
 */
export async function createBenchKeys(url: string): Promise<BenchKeys> {
  const env = { DATABASE_URL: url };
  const db = await openDatabase(readConfig(env), { max: 2 });
  try {
    await db.sql`delete from accounts where email like ${"%@" + BENCH_DOMAIN}`;
    const pro = await accountKey(db, env, "pro", "pro");
    const hot = await accountKey(db, env, "hot", "business");
    const spread: string[] = [];
    for (let i = 0; i < SPREAD_ACCOUNTS; i++) {
      spread.push(await accountKey(db, env, `spread-${String(i).padStart(2, "0")}`, "business"));
    }
    return { pro, hot, spread };
  } finally {
    await db.close();
  }
}

/**
 * Keeps the bench accounts under their monthly quota while a scenario runs: the quota is
 * 1,000 (Pro) or 5,000 (Business) calls a month and a scenario makes tens of thousands, so the
 * counters are zeroed before it and, while it runs, every 20 ms once they pass 200. One row
 * update (found by primary key) per reset: small next to thousands of charges a second, and it
 * never makes a call over the limit pass (the service still checks and charges every call).
 *
 * Before each scenario the tables the service writes are vacuumed, as autovacuum would do
 * between runs: with autovacuum off (as on this machine's server) the dead versions of the
 * counter rows pile up from run to run and every later scenario pays for the earlier ones.
 */
export function quotaKeeper(url: string): {
  reset(): Promise<void>;
  startLoop(): void;
  stopLoop(): Promise<number>;
  close(): Promise<void>;
} {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  let loop: Promise<void> | undefined;
  let running = false;
  let resets = 0;
  let ids: number[] | undefined;
  return {
    async reset() {
      ids ??= (await sql<{ id: number }[]>`
        select id from accounts where email like ${"%@" + BENCH_DOMAIN}`).map((r) => r.id);
      await sql`delete from usage_counters where account_id = any(${ids}::int[])`;
      // The usage records (sql/0004) are written by the same statement as the counter: they get
      // the same clean start, or their dead row versions would pile up from run to run.
      const [{ daily }] = await sql<{ daily: boolean }[]>`
        select to_regclass('usage_daily') is not null as daily`;
      if (daily) await sql`delete from usage_daily where account_id = any(${ids}::int[])`;
      // Claims of calls (sql/0025): a run starts with none, so that its first call of each
      // (key, URL) is charged and the same URL again is a repeat, as in every run.
      const [{ claims }] = await sql<{ claims: boolean }[]>`
        select to_regclass('call_repeats') is not null as claims`;
      if (claims) await sql`delete from call_repeats where account_id = any(${ids}::int[])`;
      await sql.unsafe(`vacuum usage_counters, api_keys${daily ? ", usage_daily" : ""}`);
    },
    startLoop() {
      running = true;
      resets = 0;
      loop = (async () => {
        while (running) {
          // Rows locked in the order of their account, as the service's grouped admission
          // locks them (src/metering/admission_group.ts): in any other order the two deadlock.
          const result = await sql`
            update usage_counters u set used = 0
            from (select account_id, period from usage_counters
              where account_id = any(${ids ?? []}::int[]) and used >= 200
              order by account_id, period for update) l
            where u.account_id = l.account_id and u.period = l.period`;
          resets += result.count;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      })();
    },
    async stopLoop() {
      running = false;
      await loop;
      return resets;
    },
    async close() {
      running = false;
      await loop?.catch(() => {});
      await sql.end({ timeout: 5 });
    },
  };
}

/** The server's autovacuum setting, for the report. */
export async function autovacuumSetting(url: string): Promise<string> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql<{ autovacuum: string }[]>`show autovacuum`;
    return row.autovacuum;
  } finally {
    await sql.end({ timeout: 5 });
  }
}
