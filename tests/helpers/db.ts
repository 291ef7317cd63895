/**
 * Every database test runs twice, on the local PostgreSQL and on the embedded database.
 * Each test file gets its own PostgreSQL database (dropped at the end) and its own embedded
 * instance; each test gets a fresh schema in it, migrated from sql/, so tests own their data.
 */
import postgres from "postgres";
import { readConfig } from "../../src/config.ts";
import { migrate } from "../../src/db/migrate.ts";
import { type Database, openDatabase, type Sql } from "../../src/db/open.ts";

export type Engine = "postgres" | "embedded";

/** The local PostgreSQL's admin URL; TEST_DATABASE_URL overrides it. */
export const PG_ADMIN_URL = Deno.env.get("TEST_DATABASE_URL") ??
  "postgres://postgres@127.0.0.1:5432/postgres";

/** Which engines this run covers: TEST_ENGINES=postgres,embedded (the default is both). */
export const ENGINES: Engine[] = (Deno.env.get("TEST_ENGINES") ?? "postgres,embedded")
  .split(",").map((s) => s.trim()).filter((s): s is Engine =>
    s === "postgres" || s === "embedded"
  );

export interface EngineHost {
  engine: Engine;
  /** A connection string (PostgreSQL) or host/port (embedded) of the file's database. */
  url: string;
  close(): Promise<void>;
}

const hosts = new Map<Engine, Promise<EngineHost>>();

function randomName(prefix: string): string {
  return `${prefix}_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
}

async function startHost(engine: Engine): Promise<EngineHost> {
  if (engine === "postgres") {
    const admin = postgres(PG_ADMIN_URL, { max: 1, onnotice: () => {} });
    const name = randomName("oi_test");
    await admin.unsafe(`create database ${name}`);
    await admin.end();
    const url = new URL(PG_ADMIN_URL);
    url.pathname = `/${name}`;
    return {
      engine,
      url: url.toString(),
      close: async () => {
        const a = postgres(PG_ADMIN_URL, { max: 1, onnotice: () => {} });
        await a.unsafe(`drop database if exists ${name} with (force)`);
        await a.end();
      },
    };
  }
  const db = await openDatabase(readConfig({ DATA_DIR: "memory://" }), { max: 1 });
  // The embedded engine is reached through its socket like a server; find its address.
  const opts = (db.sql as unknown as { options: { host: string[]; port: number[] } }).options;
  const url = `postgres://postgres@${opts.host[0]}:${opts.port[0]}/postgres`;
  return { engine, url, close: () => db.close() };
}

/** The engine host of this test file, started on first use. */
export function engineHost(engine: Engine): Promise<EngineHost> {
  let host = hosts.get(engine);
  if (!host) {
    host = startHost(engine);
    hosts.set(engine, host);
  }
  return host;
}

export interface TestDb {
  engine: Engine;
  sql: Sql;
  /** The schema this test owns. */
  schema: string;
  /** A DATABASE_URL that reaches this test's schema, for subprocesses and second pools. */
  url: string;
  /** A Database as the service would open it, on this test's schema. */
  database: Database;
}

/** Opens a fresh migrated schema on `engine`, runs `fn`, then drops the schema. */
export async function withTestDb<T>(
  engine: Engine,
  fn: (db: TestDb) => Promise<T>,
  options: { max?: number } = {},
): Promise<T> {
  const host = await engineHost(engine);
  const schema = randomName("t");
  const setup = postgres(host.url, { max: 1, onnotice: () => {} });
  await setup.unsafe(`create schema ${schema}`);
  await setup.end();
  const url = withSearchPath(host.url, schema);
  const sql = postgres(url, { max: options.max ?? 4, onnotice: () => {} });
  const database: Database = {
    sql,
    kind: engine,
    shared: false,
    close: () => sql.end({ timeout: 5 }),
  };
  try {
    await migrate(sql);
    return await fn({ engine, sql, schema, url, database });
  } finally {
    await sql.end({ timeout: 5 });
    const drop = postgres(host.url, { max: 1, onnotice: () => {} });
    await drop.unsafe(`drop schema if exists ${schema} cascade`);
    await drop.end();
  }
}

/** A connection string whose connections use `schema` first (then public, for pg_trgm). */
export function withSearchPath(url: string, schema: string): string {
  const u = new URL(url);
  u.searchParams.set("search_path", `${schema},public`);
  return u.toString();
}

let closerRegistered = false;

/**
 * Registers `name [postgres]` and `name [embedded]`, each on a fresh schema. The file's
 * databases are closed after its last test.
 */
export function dbTest(
  name: string,
  fn: (db: TestDb, t: Deno.TestContext) => Promise<void>,
  options: { max?: number } = {},
): void {
  for (const engine of ENGINES) {
    Deno.test({
      name: `${name} [${engine}]`,
      sanitizeResources: false,
      sanitizeOps: false,
      fn: (t) => withTestDb(engine, (db) => fn(db, t), options),
    });
  }
  if (!closerRegistered) {
    closerRegistered = true;
    Deno.test.afterAll(closeHosts);
  }
}

/** Drops the file's PostgreSQL database and stops its embedded engine. */
export async function closeHosts(): Promise<void> {
  const all = [...hosts.values()];
  hosts.clear();
  for (const h of all) await (await h).close();
}
