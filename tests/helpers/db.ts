/**
 * Every database test runs twice, on the local PostgreSQL and on the embedded database, each
 * time on a database as its template left it (tests/helpers/db_pools.ts):
 * - PostgreSQL: a template database migrated once per run; each worker keeps a copy of it
 *   (`create database ... template`) and puts it back after each test (db_reset.ts: 0.1 s).
 * - Embedded: PGlite is a single session and takes 1-1.5 s to load, so each worker keeps an
 *   instance per template and puts it back the same way (0.03-0.06 s). Instances are loaded from
 *   a snapshot migrated once per run.
 * - A test that changes the schema, a setting or the statistics gets its database thrown away.
 * - `seed`: demo data seeded once per run and shape, in a template (a database, a snapshot) that
 *   every worker copies.
 * - The templates of a run outlive it (the files of `deno test --parallel` share no teardown): the
 *   next run drops those of runs that have ended (`oi_tpl_PID_KEY[_sSEED]` databases,
 *   `oi-test-embedded-PID-KEY[-sSEED].tar` in the temporary directory), and the copies a killed
 *   run left (`oi_test_PID_...`).
 */
import postgres from "postgres";
import { migrate } from "../../src/db/migrate.ts";
import { startEmbedded } from "../../src/db/embedded.ts";
import { closeIdleDatabases, leaseEmbedded, leasePostgres } from "./db_pools.ts";
import { seedDemo } from "../../src/ingest/seed.ts";
import { DEFAULT_OPPORTUNITIES } from "../../src/ingest/demo.ts";
import type { Database, Sql } from "../../src/db/open.ts";

export type Engine = "postgres" | "embedded";

/** The local PostgreSQL's admin URL; TEST_DATABASE_URL overrides it. */
export const PG_ADMIN_URL = Deno.env.get("TEST_DATABASE_URL") ??
  "postgres://postgres@127.0.0.1:5432/postgres";

/** Which engines this run covers: TEST_ENGINES=postgres,embedded (the default is both). */
export const ENGINES: Engine[] = (Deno.env.get("TEST_ENGINES") ?? "postgres,embedded")
  .split(",").map((s) => s.trim()).filter((s): s is Engine => s === "postgres" || s === "embedded");

const silent = () => {};

let pgTemplate: Promise<string> | undefined;
let embeddedTemplate: Promise<Blob> | undefined;

/** The demo data a test starts with (seedDemo's options), seeded once per run and shape. */
export type Seed = { opportunities?: number; seed?: number };
const pgSeeded = new Map<string, Promise<string>>();
const embeddedSeeded = new Map<string, Promise<Blob>>();

/** The URL of database `name` on the test server. */
function pgUrl(name: string): string {
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * What the migrations are (sql/ and the runner): a template made from them serves every file of a
 * run while they stay the same.
 */
async function migrationsKey(): Promise<string> {
  const root = new URL("../../", import.meta.url);
  const names = [...Deno.readDirSync(new URL("sql/", root))].map((e) => `sql/${e.name}`).sort();
  const texts = await Promise.all(
    [...names, "src/db/migrate.ts"].map((n) => Deno.readTextFile(new URL(n, root))),
  );
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(names.join("\n") + texts.join("\n")),
  );
  return [...new Uint8Array(digest)].slice(0, 5).map((b) => b.toString(16).padStart(2, "0"))
    .join("");
}

/** Whether the process `pid` still runs (a template of a run that ended is dropped). */
function alive(pid: number): boolean {
  try {
    Deno.statSync(`/proc/${pid}`);
    return true;
  } catch {
    return pid === Deno.pid;
  }
}

/**
 * The run's template databases, each made once for every worker of the run (the workers of
 * `deno test --parallel` share the process, so its pid names the run): `oi_tpl_PID_KEY` migrated,
 * `oi_tpl_PID_KEY_sSEED` with demo data. Made from `from` (none: an empty database) by `build`
 * under an advisory lock, under another name, renamed when done. They outlive the run: the next
 * run drops the templates of runs that have ended.
 */
async function sharedPgTemplate(
  suffix: string,
  from: string | undefined,
  build: (sql: Sql) => Promise<unknown>,
): Promise<string> {
  const name = `oi_tpl_${Deno.pid}_${await migrationsKey()}${suffix}`;
  const admin = postgres(PG_ADMIN_URL, { max: 1, onnotice: silent });
  try {
    await admin`select pg_advisory_lock(hashtext(${name}))`;
    const [found] = await admin`select 1 from pg_database where datname = ${name}`;
    if (!found) {
      const old = await admin<{ datname: string }[]>`
        select datname from pg_database
        where datname ~ '^oi_(tpl_[0-9]+_[0-9a-f]+(_s[0-9a-f]+)?|test_[0-9]+_[0-9a-f]+)$'`;
      for (const { datname } of old) {
        if (!alive(Number(datname.split("_")[2]))) {
          await admin.unsafe(`drop database if exists ${datname} with (force)`);
        }
      }
      const building = `${name}_new`;
      await admin.unsafe(`drop database if exists ${building} with (force)`);
      await admin.unsafe(`create database ${building}${from ? ` template ${from}` : ""}`);
      // Its connection ends before any copy: a template with a session open cannot be copied.
      const setup = postgres(pgUrl(building), { max: 1, onnotice: silent });
      await build(setup);
      await setup.end();
      await admin.unsafe(`alter database ${building} rename to ${name}`);
    }
    await admin`select pg_advisory_unlock(hashtext(${name}))`;
    return name;
  } finally {
    await admin.end();
  }
}

/** The run's migrated template database; its name. */
function runPgTemplate(): Promise<string> {
  pgTemplate ??= sharedPgTemplate("", undefined, migrate);
  return pgTemplate;
}

/** The run's template database with `seed`'s demo data, seeded on first use; its name. */
function seededPgTemplate(seed: Seed): Promise<string> {
  return oncePerSeed(pgSeeded, seed, async () => {
    const from = await runPgTemplate();
    return sharedPgTemplate(`_s${await seedKey(seed)}`, from, (sql) => seedDemo(sql, seed));
  });
}

/** The run's embedded snapshot with `seed`'s demo data, made on first use. */
function seededEmbeddedTemplate(seed: Seed): Promise<Blob> {
  return oncePerSeed(embeddedSeeded, seed, async () => {
    const key = `s${await seedKey(seed)}`;
    const from = await runEmbeddedTemplate();
    return sharedSnapshot(key, () => snapshotAfter(from, (sql) => seedDemo(sql, seed)));
  });
}

/** A shape of demo data as seedDemo reads it: `{}` and the default count are one shape. */
function shapeOf(seed: Seed): string {
  return JSON.stringify([seed.opportunities ?? DEFAULT_OPPORTUNITIES, seed.seed ?? null]);
}

/** A short name for a shape of demo data (its options' digest). */
async function seedKey(seed: Seed): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(shapeOf(seed)));
  return [...new Uint8Array(digest)].slice(0, 4).map((b) => b.toString(16).padStart(2, "0"))
    .join("");
}

/** What `make` makes for one shape of `seed`, made once and kept in `made`. */
function oncePerSeed<T>(
  made: Map<string, Promise<T>>,
  seed: Seed,
  make: () => Promise<T>,
): Promise<T> {
  const key = shapeOf(seed);
  let value = made.get(key);
  if (!value) made.set(key, value = make());
  return value;
}

/** The run's migrated embedded snapshot. */
function runEmbeddedTemplate(): Promise<Blob> {
  embeddedTemplate ??= sharedSnapshot("", migratedSnapshot);
  return embeddedTemplate;
}

/**
 * A snapshot of the run, made once for every worker of the run by `make` and kept in a file of the
 * temporary directory (`oi-test-embedded-PID-KEY[-SUFFIX].tar`): the first worker to need it makes
 * it while holding a lock file, the others wait for it. The next run removes the snapshots of runs
 * that have ended.
 */
async function sharedSnapshot(suffix: string, make: () => Promise<Blob>): Promise<Blob> {
  const dir = Deno.env.get("TMPDIR") ?? "/tmp";
  const prefix = "oi-test-embedded-";
  const path = `${dir}/${prefix}${Deno.pid}-${await migrationsKey()}${suffix && `-${suffix}`}.tar`;
  const read = async () => new Blob([await Deno.readFile(path)]);
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      return await read();
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    let lock: Deno.FsFile | undefined;
    try {
      lock = await Deno.open(`${path}.lock`, { createNew: true, write: true });
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
    }
    if (lock) {
      try {
        for (const entry of Deno.readDirSync(dir)) {
          const pid = Number(entry.name.slice(prefix.length).split("-")[0]);
          if (entry.name.startsWith(prefix) && !alive(pid)) {
            await Deno.remove(`${dir}/${entry.name}`).catch(() => {});
          }
        }
        const blob = await make();
        const part = `${path}.${crypto.randomUUID()}`;
        await Deno.writeFile(part, new Uint8Array(await blob.arrayBuffer()));
        await Deno.rename(part, path);
        return blob;
      } finally {
        lock.close();
        await Deno.remove(`${path}.lock`).catch(() => {});
      }
    }
    if (Date.now() > deadline) return await make();
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** A fresh embedded database, migrated, as a snapshot. */
function migratedSnapshot(): Promise<Blob> {
  return snapshotAfter(undefined, migrate);
}

/** An embedded database loaded from `from` (none: a new one), after `work` on it, as a snapshot. */
async function snapshotAfter(
  from: Blob | undefined,
  work: (sql: Sql) => Promise<unknown>,
): Promise<Blob> {
  const server = await startEmbedded("memory://", { from });
  const sql = postgres(embeddedUrl(server), { max: 1, onnotice: silent });
  await work(sql);
  await sql.end();
  const blob = await server.dump();
  await server.close();
  return blob;
}

function embeddedUrl(server: { host: string; port: number }): string {
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
   * Demo data seeded before the test (seedDemo with these options): seeded once per run and
   * shape into a template, which each test gets a copy of.
   */
  seed?: Seed;
}

/**
 * Lends a migrated database on `engine` as its template left it (tests/helpers/db_pools.ts), runs
 * `fn`, then puts the database back.
 */
export async function withTestDb<T>(
  engine: Engine,
  fn: (db: TestDb) => Promise<T>,
  options: TestDbOptions = {},
): Promise<T> {
  let url: string;
  let release: () => Promise<void>;
  if (engine === "postgres") {
    const template = options.seed ? await seededPgTemplate(options.seed) : await runPgTemplate();
    const lease = await leasePostgres(template, PG_ADMIN_URL, pgUrl);
    url = pgUrl(lease.database);
    release = lease.release;
  } else {
    const seed = options.seed;
    const lease = seed
      ? await leaseEmbedded(`seed ${shapeOf(seed)}`, () => seededEmbeddedTemplate(seed))
      : await leaseEmbedded("migrated", runEmbeddedTemplate);
    url = embeddedUrl(lease);
    release = lease.release;
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
    await release();
  }
}

/** Registers `name [postgres]` and `name [embedded]`, each on a database as its template left it. */
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

// Each worker (a test file run alone, or a part of the suite) closes the embedded instances it kept
// between tests after its last test (the templates stay for the other workers).
Deno.test.afterAll(closeIdleDatabases);
