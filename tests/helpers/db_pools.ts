/**
 * Databases reused between the tests of a worker, put back as their template left them after each
 * test (tests/helpers/db_reset.ts): one kept per template (the migrated one, and each shape of
 * demo data) and engine.
 * - Embedded: an instance lent on a loopback port of its own (a new port for each test, as a new
 *   instance had); closing the port after the test ends every connection the test left open and
 *   rolls back their transactions.
 * - PostgreSQL: a database copied from the template once (`create database ... template`), with
 *   a connection of its own (KEEPER) that puts it back; after each test every other connection
 *   to it is ended (`pg_terminate_backend`) before it is put back.
 * A database that cannot be put back (the test changed its schema) is thrown away, and the next
 * test gets a new one.
 */
import postgres from "postgres";
import type { PGlite } from "@electric-sql/pglite";
import { openPglite, servePglite } from "../../src/db/embedded.ts";
import type { Sql } from "../../src/db/open.ts";
import {
  type Baseline,
  type Executor,
  keepBaseline,
  POOL_LOG,
  resetToBaseline,
} from "./db_reset.ts";

/** An embedded database lent to one test: its loopback address; `release` when done with it. */
export interface EmbeddedLease {
  host: string;
  port: number;
  release(): Promise<void>;
}

/** A PostgreSQL database lent to one test: its name; `release` when done with it. */
export interface PostgresLease {
  database: string;
  release(): Promise<void>;
}

interface Kept {
  baseline: Baseline;
  close(): Promise<void>;
}

/** At most this many databases wait between tests in a worker, over both engines. */
const IDLE_MAX = 4;
const idle = new Map<string, Kept & { key: string }>();

const silent = () => {};

function take<T extends Kept>(key: string): T | undefined {
  const kept = idle.get(key) as T | undefined;
  idle.delete(key);
  return kept;
}

/** Keeps `kept` for the next test of `key`, or closes it when it cannot be put back. */
async function putBack(key: string, kept: Kept, reset: () => Promise<boolean>): Promise<void> {
  let ok = false;
  try {
    ok = await reset();
    if (!ok && POOL_LOG) console.error(`db pool: ${key} changed; a new database next`);
  } catch (error) {
    if (POOL_LOG) console.error(`db pool: ${key} not put back:`, error);
  }
  if (!ok || idle.has(key)) {
    await kept.close().catch(() => {});
    return;
  }
  idle.set(key, { ...kept, key });
  for (const [other, value] of idle) {
    if (idle.size <= IDLE_MAX) break;
    idle.delete(other);
    await value.close().catch(() => {});
  }
}

function pgliteExecutor(db: PGlite): Executor {
  return {
    query: async <T>(text: string, params?: unknown[]) => (await db.query<T>(text, params)).rows,
    exec: async (script: string) => {
      await db.exec(script);
    },
  };
}

function sqlExecutor(sql: Sql): Executor {
  return {
    query: <T>(text: string, params: unknown[] = []) =>
      sql.unsafe(text, params as postgres.ParameterOrJSON<never>[]) as unknown as Promise<T[]>,
    // No parameters: postgres.js sends the simple protocol, which takes several statements.
    exec: async (script: string) => {
      await sql.unsafe(script);
    },
  };
}

/**
 * An embedded database as `template` left it (`from` loads the template's snapshot): a kept
 * instance put back after its last test, or a new one.
 */
export async function leaseEmbedded(
  template: string,
  from: () => Promise<Blob>,
): Promise<EmbeddedLease> {
  const key = `embedded ${template}`;
  type Instance = Kept & { db: PGlite };
  let instance = take<Instance>(key);
  if (!instance) {
    const db = await openPglite("memory://", { from: await from() });
    instance = { db, baseline: await keepBaseline(pgliteExecutor(db)), close: () => db.close() };
  }
  const held = instance;
  const socket = await servePglite(held.db);
  return {
    host: socket.host,
    port: socket.port,
    release: async () => {
      await socket.stop();
      await putBack(key, held, async () => {
        if (held.db.closed) return false;
        // The closed port's connections roll back their transactions too; whichever comes first.
        if (held.db.isInTransaction()) await held.db.exec("rollback").catch(() => {});
        return await resetToBaseline(pgliteExecutor(held.db), held.baseline);
      });
    },
  };
}

/**
 * A PostgreSQL database as the template database `template` left it: a kept copy put back after
 * its last test, or a new copy. `adminUrl` reaches the server's `postgres` database; `urlOf`
 * gives a database's URL.
 */
export async function leasePostgres(
  template: string,
  adminUrl: string,
  urlOf: (database: string) => string,
): Promise<PostgresLease> {
  const key = `postgres ${template}`;
  type Copy = Kept & { name: string; keeper: Sql; keeperPid: number };
  let copy = take<Copy>(key);
  if (!copy) {
    // The run's pid in the name: a run that was killed leaves its copies to the next one to drop.
    const name = `oi_test_${Deno.pid}_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
    await workerAdmin(adminUrl).unsafe(`create database ${name} template ${template}`);
    // The copy's own connection, kept with it: it reads the baseline and puts the copy back on a
    // session whose catalogue is already read (a new session's first fingerprint took 85-120 ms,
    // a kept one's 18). No array types to fetch: the reset reads none; no statements kept by
    // name: the reset's `discard all` ends them.
    const keeper = postgres(urlOf(name), {
      max: 1,
      onnotice: silent,
      fetch_types: false,
      prepare: false,
      idle_timeout: 0,
      connection: { application_name: KEEPER },
    });
    const drop = async () => {
      await keeper.end({ timeout: 5 }).catch(() => {});
      await workerAdmin(adminUrl).unsafe(`drop database if exists ${name} with (force)`);
    };
    try {
      const [{ pid }] = await keeper<{ pid: number }[]>`select pg_backend_pid() as pid`;
      const baseline = await keepBaseline(sqlExecutor(keeper));
      copy = { name, baseline, keeper, keeperPid: pid, close: drop };
    } catch (error) {
      await drop();
      throw error;
    }
  }
  const held = copy;
  return {
    database: held.name,
    release: () =>
      putBack(key, held, async () => {
        // Every connection the test left (pools, subprocesses) ends before the reset; a keeper
        // that was ended with them (the test dropped the database's sessions) throws it away.
        const sql = workerAdmin(adminUrl);
        for (let i = 0; i < 200; i++) {
          const [{ n }] = await sql<{ n: number }[]>`
            select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
            where datname = ${held.name} and pid <> ${held.keeperPid}`;
          if (n === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        const [{ pid }] = await held.keeper<{ pid: number }[]>`select pg_backend_pid() as pid`;
        if (pid !== held.keeperPid) return false;
        return await resetToBaseline(sqlExecutor(held.keeper), held.baseline);
      }),
  };
}

/**
 * The application_name of the connection kept with each PostgreSQL copy (leasePostgres): a test
 * that counts the connections to its database leaves it out.
 */
export const KEEPER = "oi_test_keeper";

let adminConnection: { url: string; sql: Sql } | undefined;

/** The worker's one connection to the server's `postgres` database, for putting databases back. */
function workerAdmin(url: string): Sql {
  if (adminConnection?.url !== url) {
    adminConnection = { url, sql: postgres(url, { max: 1, onnotice: silent }) };
  }
  return adminConnection.sql;
}

/** Closes the databases kept in this worker (after its last test). */
export async function closeIdleDatabases(): Promise<void> {
  const kept = [...idle.values()];
  idle.clear();
  for (const value of kept) await value.close().catch(() => {});
  await adminConnection?.sql.end({ timeout: 5 });
  adminConnection = undefined;
}
