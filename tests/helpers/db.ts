/**
 * Every database test runs twice, on the local PostgreSQL and on the embedded database, each
 * time on a fresh migrated database of its own:
 * - PostgreSQL: one database per test file (dropped after its last test) and a fresh schema per
 *   test, reached through `search_path`.
 * - Embedded: PGlite is a single session (a `SET search_path` would leak to every connection),
 *   so each test gets its own instance, loaded from a snapshot migrated once per file (0.3 s
 *   instead of 2 s for a new one).
 */
import postgres from "postgres";
import { migrate } from "../../src/db/migrate.ts";
import { type EmbeddedServer, startEmbedded } from "../../src/db/embedded.ts";
import type { Database, Sql } from "../../src/db/open.ts";

export type Engine = "postgres" | "embedded";

/** The local PostgreSQL's admin URL; TEST_DATABASE_URL overrides it. */
export const PG_ADMIN_URL = Deno.env.get("TEST_DATABASE_URL") ??
  "postgres://postgres@127.0.0.1:5432/postgres";

/** Which engines this run covers: TEST_ENGINES=postgres,embedded (the default is both). */
export const ENGINES: Engine[] = (Deno.env.get("TEST_ENGINES") ?? "postgres,embedded")
  .split(",").map((s) => s.trim()).filter((s): s is Engine => s === "postgres" || s === "embedded");

const silent = () => {};

function randomName(prefix: string): string {
  return `${prefix}_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
}

let pgDatabase: Promise<{ url: string; name: string }> | undefined;
let embeddedTemplate: Promise<Blob> | undefined;

function filePgDatabase(): Promise<{ url: string; name: string }> {
  pgDatabase ??= (async () => {
    const admin = postgres(PG_ADMIN_URL, { max: 1, onnotice: silent });
    const name = randomName("oi_test");
    await admin.unsafe(`create database ${name}`);
    await admin.end();
    const url = new URL(PG_ADMIN_URL);
    url.pathname = `/${name}`;
    return { url: url.toString(), name };
  })();
  return pgDatabase;
}

function fileEmbeddedTemplate(): Promise<Blob> {
  embeddedTemplate ??= (async () => {
    const server = await startEmbedded("memory://");
    const sql = postgres(embeddedUrl(server), { max: 1, onnotice: silent });
    await migrate(sql);
    await sql.end();
    const blob = await server.dump();
    await server.close();
    return blob;
  })();
  return embeddedTemplate;
}

function embeddedUrl(server: EmbeddedServer): string {
  return `postgres://postgres@${server.host}:${server.port}/postgres`;
}

export interface TestDb {
  engine: Engine;
  sql: Sql;
  /** A DATABASE_URL that reaches this test's database, for subprocesses and second pools. */
  url: string;
  /** A Database as the service would open it, on this test's database. */
  database: Database;
}

/** Opens a fresh migrated database on `engine`, runs `fn`, then throws the database away. */
export async function withTestDb<T>(
  engine: Engine,
  fn: (db: TestDb) => Promise<T>,
  options: { max?: number } = {},
): Promise<T> {
  let url: string;
  let dispose: () => Promise<void>;
  if (engine === "postgres") {
    const file = await filePgDatabase();
    const schema = randomName("t");
    const admin = postgres(file.url, { max: 1, onnotice: silent });
    await admin.unsafe(`create schema ${schema}`);
    url = withSearchPath(file.url, schema);
    const setup = postgres(url, { max: 1, onnotice: silent });
    await migrate(setup);
    await setup.end();
    dispose = async () => {
      await admin.unsafe(`drop schema if exists ${schema} cascade`);
      await admin.end();
    };
  } else {
    const server = await startEmbedded("memory://", { from: await fileEmbeddedTemplate() });
    url = embeddedUrl(server);
    dispose = () => server.close();
  }
  // One connection on the embedded engine, as the service opens it (src/db/open.ts: PGlite is one
  // session, so several connections' statements could interleave between a Bind and an Execute).
  const max = engine === "embedded" ? 1 : options.max ?? 4;
  const sql = postgres(url, { max, onnotice: silent });
  const database: Database = {
    sql,
    kind: engine,
    shared: false,
    close: () => sql.end({ timeout: 5 }),
  };
  try {
    return await fn({ engine, sql, url, database });
  } finally {
    await sql.end({ timeout: 5 });
    await dispose();
  }
}

/** A connection string whose connections use `schema` first (then public, for pg_trgm). */
export function withSearchPath(url: string, schema: string): string {
  const u = new URL(url);
  u.searchParams.set("search_path", `${schema},public`);
  return u.toString();
}

/** Registers `name [postgres]` and `name [embedded]`, each on a fresh database. */
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
}

// Every test file that imports this module drops its database after its last test, whether its
// tests use dbTest or withTestDb directly.
Deno.test.afterAll(dropFileDatabase);

/** Drops the test file's PostgreSQL database. */
async function dropFileDatabase(): Promise<void> {
  if (!pgDatabase) return;
  const { name } = await pgDatabase;
  pgDatabase = undefined;
  const admin = postgres(PG_ADMIN_URL, { max: 1, onnotice: silent });
  await admin.unsafe(`drop database if exists ${name} with (force)`);
  await admin.end();
}
