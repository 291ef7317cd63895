import { sha256Hex } from "../platform/crypto.ts";
import type { Sql } from "./open.ts";

/** One numbered migration file of `sql/`. */
export interface Migration {
  version: number;
  name: string;
  text: string;
  checksum: string;
}

const SQL_DIR = new URL("../../sql/", import.meta.url);
// Any fixed number; every process of the service takes this lock to migrate.
const MIGRATION_LOCK = 4_2_0_1_7;

/** Reads `sql/NNNN_name.sql` in order; a gap or a duplicate number is an error. */
export async function readMigrations(dir: URL = SQL_DIR): Promise<Migration[]> {
  const found: Migration[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (!entry.isFile || !entry.name.endsWith(".sql")) continue;
    const match = /^(\d{4})_([a-z0-9_]+)\.sql$/.exec(entry.name);
    if (!match) throw new Error(`Migration file "${entry.name}" is not named NNNN_name.sql`);
    const text = await Deno.readTextFile(new URL(entry.name, dir));
    found.push({
      version: Number(match[1]),
      name: match[2],
      text,
      checksum: await sha256Hex(text),
    });
  }
  found.sort((a, b) => a.version - b.version);
  found.forEach((m, i) => {
    if (m.version !== i + 1) {
      throw new Error(
        `Migrations must be numbered 0001, 0002, ... without gaps; found ${m.version}`,
      );
    }
  });
  return found;
}

/**
 * Applies every migration not yet recorded, in order, in one transaction under an advisory
 * lock, so two instances starting at once apply each migration exactly once. An applied
 * migration whose file has changed since, or one recorded but missing, fails loudly.
 * Returns the versions applied by this call.
 */
export async function migrate(sql: Sql, migrations?: Migration[]): Promise<number[]> {
  const all = migrations ?? await readMigrations();
  return await sql.begin(async (tx) => {
    // A migration may rewrite large tables: no statement time-out of the pool applies here.
    await tx`set local statement_timeout = 0`;
    await tx`select pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    await tx`
      create table if not exists schema_migrations (
        version integer primary key,
        name text not null,
        checksum text not null,
        applied_at timestamptz not null default now()
      )`;
    const applied = await tx<{ version: number; name: string; checksum: string }[]>`
      select version, name, checksum from schema_migrations order by version`;
    for (const row of applied) {
      const file = all.find((m) => m.version === row.version);
      if (!file) {
        throw new Error(
          `Migration ${row.version} (${row.name}) is applied but its file is missing from sql/`,
        );
      }
      if (file.checksum !== row.checksum) {
        throw new Error(
          `Migration ${row.version} (${row.name}) was edited after it was applied; ` +
            `add a new migration instead`,
        );
      }
    }
    const done: number[] = [];
    for (const m of all.filter((m) => !applied.some((a) => a.version === m.version))) {
      await tx.unsafe(m.text);
      await tx`
        insert into schema_migrations (version, name, checksum)
        values (${m.version}, ${m.name}, ${m.checksum})`;
      done.push(m.version);
    }
    return done;
  });
}
