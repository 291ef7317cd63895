/**
 * Every database test runs twice, on the local PostgreSQL and on the embedded database, each
 * time on a fresh migrated database of its own:
 * - PostgreSQL: a template database migrated once per run, and a copy of it per test
 *   (`create database ... template`: about 0.3 s, where migrating took 2-4 s); each copy is
 *   dropped after its test; a template of demo data (`seed`) after the file's last test.
 * - Embedded: PGlite is a single session (a `SET search_path` would leak to every connection),
 *   so each test gets its own instance, loaded from a snapshot migrated once per run (0.3 s
 *   instead of 2 s for a new one; making the snapshot took 5-8 s, once per file before).
 * - `seed`: demo data seeded once per worker and shape (a test file run alone, or a part of the
 *   suite: tests/parts/parts.ts), in a template each test copies.
 * - The templates of a run outlive it (the files of `deno test --parallel` share no teardown): the
 *   next run drops those of runs that have ended (`oi_tpl_PID_KEY` databases,
 *   `oi-test-embedded-PID-KEY.tar` in the temporary directory).
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

/** The demo data a test starts with (seedDemo's options), seeded once per worker and shape. */
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
 * The run's template database, migrated once for every file of the run (the files of
 * `deno test --parallel` share the process, so its pid names the run): `oi_tpl_PID_KEY`. Made
 * under an advisory lock, migrated under another name and renamed when done. It outlives the run:
 * the next run drops the templates of runs that have ended.
 */
function runPgTemplate(): Promise<string> {
  pgTemplate ??= (async () => {
    const name = `oi_tpl_${Deno.pid}_${await migrationsKey()}`;
    const admin = postgres(PG_ADMIN_URL, { max: 1, onnotice: silent });
    try {
      await admin`select pg_advisory_lock(hashtext(${name}))`;
      const [found] = await admin`select 1 from pg_database where datname = ${name}`;
      if (!found) {
        const old = await admin<{ datname: string }[]>`
          select datname from pg_database where datname ~ '^oi_tpl_[0-9]+_[0-9a-f]+$'`;
        for (const { datname } of old) {
          if (!alive(Number(datname.split("_")[2]))) {
            await admin.unsafe(`drop database if exists ${datname} with (force)`);
          }
        }
        const building = `${name}_new`;
        await admin.unsafe(`drop database if exists ${building} with (force)`);
        await admin.unsafe(`create database ${building}`);
        // Its connection ends before any copy: a template with a session open cannot be copied.
        const setup = postgres(pgUrl(building), { max: 1, onnotice: silent });
        await migrate(setup);
        await setup.end();
        await admin.unsafe(`alter database ${building} rename to ${name}`);
      }
      await admin`select pg_advisory_unlock(hashtext(${name}))`;
      return name;
    } finally {
      await admin.end();
    }
  })();
  return pgTemplate;
}

/** The file's template database with `seed`'s demo data, seeded on first use; its name. */
function seededPgTemplate(seed: Seed): Promise<string> {
  return oncePerSeed(pgSeeded, seed, async () => {
    const name = randomName("oi_tpl");
    const admin = postgres(PG_ADMIN_URL, { max: 1, onnotice: silent });
    await admin.unsafe(`create database ${name} template ${await runPgTemplate()}`);
    await admin.end();
    const setup = postgres(pgUrl(name), { max: 1, onnotice: silent });
    await seedDemo(setup, seed);
    await setup.end();
    return name;
  });
}

/** The file's embedded snapshot with `seed`'s demo data, made on first use. */
function seededEmbeddedTemplate(seed: Seed): Promise<Blob> {
  return oncePerSeed(
    embeddedSeeded,
    seed,
    async () => snapshotAfter(await runEmbeddedTemplate(), (sql) => seedDemo(sql, seed)),
  );
}

/** What `make` makes for one shape of `seed`, made once and kept in `made`. */
function oncePerSeed<T>(
  made: Map<string, Promise<T>>,
  seed: Seed,
  make: () => Promise<T>,
): Promise<T> {
  const key = JSON.stringify(seed);
  let value = made.get(key);
  if (!value) made.set(key, value = make());
  return value;
}

/**
 * The run's embedded snapshot, migrated once for every file of the run and kept in a file of the
 * temporary directory (`oi-test-embedded-PID-KEY.tar`): the first file to need it makes it while
 * holding a lock file, the others wait for it. The next run removes the snapshots of runs that
 * have ended.
 */
function runEmbeddedTemplate(): Promise<Blob> {
  embeddedTemplate ??= (async () => {
    const dir = Deno.env.get("TMPDIR") ?? "/tmp";
    const prefix = "oi-test-embedded-";
    const path = `${dir}/${prefix}${Deno.pid}-${await migrationsKey()}.tar`;
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
          const blob = await migratedSnapshot();
          const part = `${path}.${crypto.randomUUID()}`;
          await Deno.writeFile(part, new Uint8Array(await blob.arrayBuffer()));
          await Deno.rename(part, path);
          return blob;
        } finally {
          lock.close();
          await Deno.remove(`${path}.lock`).catch(() => {});
        }
      }
      if (Date.now() > deadline) return await migratedSnapshot();
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();
  return embeddedTemplate;
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
   * Demo data seeded before the test (seedDemo with these options): seeded once per worker and
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
    const template = options.seed ? await seededPgTemplate(options.seed) : await runPgTemplate();
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
      : await runEmbeddedTemplate();
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

// Each worker (a test file run alone, or a part of the suite) drops its templates of demo data after
// its last test, whether its tests use dbTest or withTestDb directly (the run's template stays for
// the other workers).
Deno.test.afterAll(dropWorkerTemplates);

/** Drops the worker's PostgreSQL templates of demo data. */
async function dropWorkerTemplates(): Promise<void> {
  const names = await Promise.all(pgSeeded.values());
  pgSeeded.clear();
  if (names.length === 0) return;
  const admin = postgres(PG_ADMIN_URL, { max: 1, onnotice: silent });
  for (const name of names) await admin.unsafe(`drop database if exists ${name} with (force)`);
  await admin.end();
}
