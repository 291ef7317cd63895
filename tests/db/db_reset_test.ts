/**
 * The databases that tests reuse (tests/helpers/db_pools.ts, db_reset.ts) come back to each test as
 * their template left them, on both engines: a test's rows, sequences and session do not reach the
 * next test on the same database, and a test that changes the schema, a setting or the planner's
 * statistics gets its database thrown away.
 */
import assert from "node:assert/strict";
import { type Engine, ENGINES, type TestDbOptions, withTestDb } from "../helpers/db.ts";
import type { Sql } from "../../src/db/open.ts";
import postgres from "postgres";

const seeded: TestDbOptions = { seed: { opportunities: 50 } };

/** Which database this is: its name and PGlite's start time (distinct for each instance). */
async function instance(sql: Sql): Promise<string> {
  const [{ started }] = await sql<{ started: string }[]>`
    select current_database() || ' ' || pg_postmaster_start_time()::text as started`;
  return started;
}

/** Everything a test could leave behind: every table's rows, sequences, the session's state. */
async function state(sql: Sql): Promise<Record<string, unknown>> {
  // First, and not prepared: the statements this function prepares are not the last test's.
  const [session] = await sql.unsafe(
    `select current_setting('statement_timeout') as timeout,
      to_regclass('pg_temp.pool_scratch')::text as scratch,
      (select count(*)::int from pg_locks where locktype = 'advisory') as locks,
      (select count(*)::int from pg_prepared_statements) as prepared`,
    [],
    { prepare: false },
  );
  const tables = await sql<{ name: string }[]>`
    select format('%I.%I', schemaname, tablename) as name from pg_tables
    where schemaname = 'public' order by 1`;
  const out: Record<string, unknown> = {};
  for (const { name } of tables) {
    const [{ rows, digest }] = await sql.unsafe(
      `select count(*)::int as rows, md5(coalesce(string_agg(t::text, ',' order by t::text), ''))
       as digest from ${name} t`,
    );
    out[name] = `${rows} ${digest}`;
  }
  const sequences = await sql<{ name: string }[]>`
    select format('%I.%I', schemaname, sequencename) as name from pg_sequences order by 1`;
  for (const { name } of sequences) {
    const [{ value }] = await sql.unsafe(
      `select last_value::text || is_called as value from ${name}`,
    );
    out[name] = value;
  }
  out.session = { ...session };
  return out;
}

for (const engine of ENGINES as Engine[]) {
  Deno.test({
    name:
      `reused databases: a test's rows, sequences and session do not reach the next test [${engine}]`,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async () => {
      const before = await withTestDb(engine, ({ sql }) => state(sql), seeded);
      assert.match(String(before["public.opportunities"]), /^50 /);
      // postgres.js prepares one statement of its own on connecting (the array types).
      assert.deepEqual(before.session, { timeout: "0", scratch: null, locks: 0, prepared: 1 });
      const used = await withTestDb(engine, async ({ sql, url }) => {
        const [{ id }] = await sql`select min(id) as id from opportunities`;
        await sql`update opportunities set title = 'Changed by a test' where id = ${id}`;
        // Cascades to its evidence quotes: two tables lose rows of the template.
        await sql`delete from opportunities where id = (select max(id) from opportunities)`;
        await sql`insert into accounts (email) values ('pool@example.com')`;
        await sql`update data_version set version = version + 100`;
        await sql`set statement_timeout = 1234`;
        await sql`create temp table pool_scratch (x int)`;
        await sql`select pg_advisory_lock(42)`;
        const started = await instance(sql);
        // A transaction still open on another connection when the test ends.
        const other = postgres(url, { max: 1, onnotice: () => {} });
        let opened: () => void = () => {};
        const inserted = new Promise<void>((resolve) => opened = resolve);
        other.begin(async (tx) => {
          await tx`insert into accounts (email) values ('open@example.com')`;
          opened();
          await new Promise(() => {});
        }).catch(() => {});
        await inserted;
        return started;
      }, seeded);
      const after = await withTestDb(
        engine,
        async ({ sql }) => ({ state: await state(sql), instance: await instance(sql) }),
        seeded,
      );
      assert.equal(after.instance, used, "the next test got the same instance");
      assert.deepEqual(after.state, before);
    },
  });

  Deno.test({
    name:
      `reused databases: a test that changes the schema or analyzes gets its database thrown away [${engine}]`,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async () => {
      for (
        const change of [
          "create table pool_probe (id int)",
          "create index pool_probe_idx on accounts (created_at)",
          "analyze accounts",
          "do $$ begin execute format('alter database %I set work_mem = ''7MB''', current_database()); end $$",
        ]
      ) {
        const used = await withTestDb(engine, async ({ sql }) => {
          await sql.unsafe(change);
          return await instance(sql);
        });
        const next = await withTestDb(engine, async ({ sql }) => ({
          instance: await instance(sql),
          probe: (await sql`select to_regclass('public.pool_probe')::text as t`)[0].t,
          index: (await sql`select to_regclass('public.pool_probe_idx')::text as t`)[0].t,
        }));
        assert.notEqual(next.instance, used, `a new instance after: ${change}`);
        assert.equal(next.probe, null);
        assert.equal(next.index, null);
        // And an unchanged instance is kept: the one after it is the same.
        const again = await withTestDb(engine, ({ sql }) => instance(sql));
        assert.equal(again, next.instance, `kept after a test that changed nothing (${change})`);
      }
    },
  });
}
