/**
 * Every database test runs twice, on the local PostgreSQL and on the embedded database, each
 * time on a fresh migrated database of its own:
 * - PostgreSQL: a template database migrated once per test file, and a copy of it per test
 *   (`create database ... template`: about 0.3 s, where migrating took 2-4 s); each copy is
 *   dropped after its test, the template after the file's last test.
 * - Embedded: PGlite is a single session (a `SET search_path` would leak to every connection),
 *   so each test gets its own instance, loaded from a snapshot migrated once per file (0.3 s
 *   instead of 2 s for a new one).
 */
import postgres from "postgres";
import { migrate } from "../../src/db/migrate.ts";
import { type EmbeddedServer, startEmbedded } from "../../src/db/embedded.ts";
import { seedDemo } from "../../src/ingest/seed.ts";
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

let pgTemplate: Promise<string> | undefined;
let embeddedTemplate: Promise<Blob> | undefined;

/** The demo data a test starts with (seedDemo's options), seeded once per file and shape. */
export type Seed = { opportunities?: number; seed?: number };
const pgSeeded = new Map<string, Promise<string>>();
const embeddedSeeded = new Map<string, Promise<Blob>>();

/** The URL of database `name` on the test server. */
function pgUrl(name: string): string {
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** The test file's template database, migrated on first use; its name. */
function filePgTemplate(): Promise<string> {
  pgTemplate ??= (async () => {
    const admin = postgres(PG_ADMIN_URL, { max: 1, onnotice: silent });
    const name = randomName("oi_tpl");
    await admin.unsafe(`create database ${name}`);
    await admin.end();
    // Its connection ends before any copy: a template with a session open cannot be copied.
    const setup = postgres(pgUrl(name), { max: 1, onnotice: silent });
    await migrate(setup);
    await setup.end();
    return name;
  })();
  return pgTemplate;
}

/** The file's template database with `seed`'s demo data, seeded on first use; its name. */
function seededPgTemplate(seed: Seed): Promise<string> {
  const key = JSON.stringify(seed);
  let made = pgSeeded.get(key);
  if (!made) {
    made = (async () => {
      const name = randomName("oi_tpl");
      const admin = postgres(PG_ADMIN_URL, { max: 1, onnotice: silent });
      await admin.unsafe(`create database ${name} template ${await filePgTemplate()}`);
      await admin.end();
      const setup = postgres(pgUrl(name), { max: 1, onnotice: silent });
      await seedDemo(setup, seed);
      await setup.end();
      return name;
    })();
    pgSeeded.set(key, made);
  }
  return made;
}

/** The file's embedded snapshot with `seed`'s demo data, made on first use. */
function seededEmbeddedTemplate(seed: Seed): Promise<Blob> {
  const key = JSON.stringify(seed);
  let made = embeddedSeeded.get(key);
  if (!made) {
    made = (async () => {
      const server = await startEmbedded("memory://", { from: await fileEmbeddedTemplate() });
      const sql = postgres(embeddedUrl(server), { max: 1, onnotice: silent });
      await seedDemo(sql, seed);
      await sql.end();
      const blob = await server.dump();
      await server.close();
      return blob;
    })();
    embeddedSeeded.set(key, made);
  }
  return made;
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

/** How a test's database is opened: its pool's size, and the demo data it starts with. */
export interface TestDbOptions {
  /** Connections of the test's pool on PostgreSQL (the embedded engine has one). Default 4. */
  max?: number;
  /**
   * Demo data seeded before the test (seedDemo with these options): seeded once per file and
   * shape into a template, which each test gets a copy of.
   */
  seed?: Seed;
}

/** Opens a fresh migrated database on `engine`, runs `fn`, then throws the database away. */
export async function withTestDb<T>(
  engine: Engine,
  fn: (db: TestDb) => Promise<T>,
  options: TestDbOptions = {},
): Promise<T> {
  let url: string;
  let dispose: () => Promise<void>;
  if (engine === "postgres") {
    const template = options.seed ? await seededPgTemplate(options.seed) : await filePgTemplate();
    const name = randomName("oi_test");
    const admin = postgres(PG_ADMIN_URL, { max: 1, onnotice: silent });
    await admin.unsafe(`create database ${name} template ${template}`);
    url = pgUrl(name);
    dispose = async () => {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    };
  } else {
    const from = options.seed
      ? await seededEmbeddedTemplate(options.seed)
      : await fileEmbeddedTemplate();
    const server = await startEmbedded("memory://", { from });
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

/** Registers `name [postgres]` and `name [embedded]`, each on a fresh database. */
export function dbTest(
  name: string,
  fn: (db: TestDb, t: Deno.TestContext) => Promise<void>,
  options: TestDbOptions = {},
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

// Every test file that imports this module drops its template after its last test, whether its
// tests use dbTest or withTestDb directly.
Deno.test.afterAll(dropFileTemplate);

/** Drops the test file's PostgreSQL template databases. */
async function dropFileTemplate(): Promise<void> {
  const names = await Promise.all([...pgSeeded.values(), ...(pgTemplate ? [pgTemplate] : [])]);
  pgSeeded.clear();
  pgTemplate = undefined;
  if (names.length === 0) return;
  const admin = postgres(PG_ADMIN_URL, { max: 1, onnotice: silent });
  for (const name of names) await admin.unsafe(`drop database if exists ${name} with (force)`);
  await admin.end();
}
