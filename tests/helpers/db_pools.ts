/**
 * Databases reused between the tests of a worker, put back as their template left them after each
 * test (tests/helpers/db_reset.ts): one kept per template (the migrated one, and each shape of
 * demo data) and engine.
 * - Embedded: an instance lent on a loopback port of its own (a new port for each test, as a new
 *   instance had); closing the port after the test ends every connection the test left open and
 *   rolls back their transactions.
 * - PostgreSQL: a database copied from the template once (`create database ... template`); after
 *   each test every connection to it is ended (`pg_terminate_backend`) before it is put back.
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

/** A database lent to one test: where it is, and `release` when the test is done with it. */
export interface Lease {
  /** Embedded: the loopback address. */
  host: string;
  port: number;
  /** PostgreSQL: the database's name. */
  database?: string;
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
export async function leaseEmbedded(template: string, from: () => Promise<Blob>): Promise<Lease> {
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
): Promise<Lease> {
  const key = `postgres ${template}`;
  type Copy = Kept & { name: string };
  let copy = take<Copy>(key);
  const within = async <T>(name: string, fn: (sql: Sql) => Promise<T>): Promise<T> => {
    // No array types to fetch: the reset reads none, and the connection is one round trip less.
    const sql = postgres(urlOf(name), { max: 1, onnotice: silent, fetch_types: false });
    try {
      return await fn(sql);
    } finally {
      await sql.end({ timeout: 5 });
    }
  };
  if (!copy) {
    // The run's pid in the name: a run that was killed leaves its copies to the next one to drop.
    const name = `oi_test_${Deno.pid}_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
    await workerAdmin(adminUrl).unsafe(`create database ${name} template ${template}`);
    const drop = async () => {
      await workerAdmin(adminUrl).unsafe(`drop database if exists ${name} with (force)`);
    };
    try {
      const baseline = await within(name, (sql) => keepBaseline(sqlExecutor(sql)));
      copy = { name, baseline, close: drop };
    } catch (error) {
      await drop();
      throw error;
    }
  }
  const held = copy;
  return {
    host: "",
    port: 0,
    database: held.name,
    release: () =>
      putBack(key, held, async () => {
        // Every connection the test left (pools, subprocesses) ends before the reset.
        const sql = workerAdmin(adminUrl);
        for (let i = 0; i < 200; i++) {
          const [{ n }] = await sql<{ n: number }[]>`
            select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
            where datname = ${held.name}`;
          if (n === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        return await within(held.name, (sql) => resetToBaseline(sqlExecutor(sql), held.baseline));
      }),
  };
}

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
