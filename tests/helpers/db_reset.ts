/**
 * A database put back as it was between tests, on PostgreSQL and on the embedded engine alike
 * (tests/helpers/db_pools.ts reuses databases with it). Making a database for each test cost 1-1.5 s
 * on the embedded engine (loading PGlite from a snapshot; an empty cluster alone 0.9 s: PostgreSQL's
 * start in WASM, not the data) and 0.4-0.5 s on PostgreSQL (`create database ... template`, then
 * `drop`), for some 300 tests of each.
 *
 * - `keepBaseline`, when a database is made: every non-empty table is copied into the schema
 *   `oi_test_baseline`, and the sequences' values, a fingerprint of the schema and settings, and
 *   the transaction id are kept.
 * - `resetToBaseline`, after a test whose connections are all gone: the session is reset
 *   (`discard all`: PGlite is one session, so its settings, prepared statements, temporary tables,
 *   locks and listens are the test's), and the fingerprint is read again. A test that changed the
 *   schema, a setting, a role or the planner's statistics (`analyze`, `truncate`, a migration)
 *   loses the database, and the next test gets a new one.
 * - Otherwise each table whose row count changed or that holds a row written after the kept
 *   transaction id gets its rows back: the rows written since are deleted and the missing ones
 *   copied back from `oi_test_baseline` (all of them in a table without a primary key), with
 *   triggers and foreign keys quiet (`session_replication_role = replica`); every sequence is set
 *   back to its value.
 *
 * tests/db/db_reset_test.ts shows that a test's rows, sequences, settings and schema changes do not
 * reach the next test, on both engines.
 */

/** How the reset reaches a database: statements with parameters, and scripts of several. */
export interface Executor {
  query<T>(text: string, params?: unknown[]): Promise<T[]>;
  exec(script: string): Promise<void>;
}

const BASELINE = "oi_test_baseline";

/** A table put back after each test. */
interface Table {
  name: string;
  /** Rows at the start. */
  rows: number;
  /** The copy in oi_test_baseline (tables with rows). */
  copy?: string;
  /** Its columns that take values (not generated), quoted and joined. */
  columns: string;
  /** Its primary key's columns, quoted, or empty: rows are then put back all together. */
  key: string[];
}

/** What putting a database back needs. */
export interface Baseline {
  tables: Table[];
  /** Counts every table's rows, and those written after $1 (a transaction id). */
  changes: string;
  /** Sets every sequence back (empty when there is none). */
  sequences: string;
  fingerprint: string;
  /** The fingerprint's lines, kept when TEST_POOL_LOG=1 to say what changed. */
  lines: string;
  xid: string;
}

/** TEST_POOL_LOG=1 says on standard error why a database was not kept. */
export const POOL_LOG = Deno.env.get("TEST_POOL_LOG") === "1";

/** What tells a test's change to the schema, the settings, roles or planner statistics. */
const FINGERPRINT = `
with rels as (
  select c.oid, c.relname, n.nspname from pg_class c join pg_namespace n on n.oid = c.relnamespace
  where n.nspname not in ('pg_catalog', 'information_schema', '${BASELINE}')
    and n.nspname not like 'pg\\_toast%' and n.nspname not like 'pg\\_temp%'
)
select md5(string_agg(line, E'\\n' order by line)) as fingerprint from (
  select format('class %s.%s %s %s %s %s %s', rels.nspname, rels.relname, c.relkind, c.relfilenode,
    c.relpages, c.reltuples, c.relpersistence) as line from rels join pg_class c using (oid)
  union all select format('column %s %s %s %s %s', rels.relname, a.attname, a.atttypid,
    a.attnotnull, a.attgenerated) from pg_attribute a join rels on rels.oid = a.attrelid
    where a.attnum > 0 and not a.attisdropped
  union all select format('default %s %s %s', rels.relname, d.adnum, md5(d.adbin::text))
    from pg_attrdef d join rels on rels.oid = d.adrelid
  union all select format('index %s %s %s %s %s %s', i.indexrelid, rels.relname, i.indisunique,
    i.indkey, i.indclass, md5(concat(i.indexprs::text, i.indpred::text))) from pg_index i
    join rels on rels.oid = i.indrelid
  union all select format('trigger %s %s %s', rels.relname, t.tgname, t.tgenabled)
    from pg_trigger t join rels on rels.oid = t.tgrelid
  union all select format('constraint %s %s %s %s', rels.relname, k.conname, k.contype,
    md5(concat(k.conbin::text, k.conkey::text, k.confkey::text, k.confrelid)))
    from pg_constraint k join rels on rels.oid = k.conrelid
  union all select format('rule %s %s', rels.relname, md5(r.ev_action::text))
    from pg_rewrite r join rels on rels.oid = r.ev_class
  union all select format('statistic %s %s %s %s', rels.relname, s.staattnum,
    s.stanullfrac, s.stadistinct) from pg_statistic s join rels on rels.oid = s.starelid
  union all select format('sequence %s %s %s %s', rels.relname, q.seqincrement,
    q.seqmin, q.seqmax) from pg_sequence q join rels on rels.oid = q.seqrelid
  union all select format('function %s %s %s %s', p.oid, p.proname, p.proargtypes, md5(p.prosrc))
    from pg_proc p
    join pg_namespace n on n.oid = p.pronamespace
    where n.nspname not in ('pg_catalog', 'information_schema')
  union all select format('type %s %s %s', t.oid, t.typname, t.typtype) from pg_type t
    join pg_namespace n on n.oid = t.typnamespace
    where n.nspname not in ('pg_catalog', 'information_schema', '${BASELINE}')
      and n.nspname not like 'pg\\_toast%' and n.nspname not like 'pg\\_temp%'
  union all select format('enum %s %s', e.enumtypid, e.enumlabel) from pg_enum e
  union all select format('schema %s', nspname) from pg_namespace
    where nspname not like 'pg\\_temp%' and nspname not like 'pg\\_toast\\_temp%'
  union all select format('extension %s %s', extname, extversion) from pg_extension
  union all select format('role %s %s %s', rolname, rolsuper, rolcanlogin) from pg_roles
  union all select format('setting %s %s', setdatabase, setconfig) from pg_db_role_setting
    where setdatabase in (0, (select oid from pg_database where datname = current_database()))
  -- An extension's settings appear when it is first loaded (plpgsql, pg_trgm): only set ones count.
  union all select format('set %s=%s', name, setting) from pg_settings
    where name not like '%.%' or source <> 'default'
) lines`;

/** The transaction id that rows written from now on are newer than. */
async function currentXid(db: Executor): Promise<string> {
  const [{ xid }] = await db.query<{ xid: string }>(
    "select (txid_current() % 4294967296)::text as xid",
  );
  return xid;
}

async function fingerprint(db: Executor): Promise<string> {
  const [row] = await db.query<{ fingerprint: string }>(FINGERPRINT);
  return row.fingerprint;
}

async function fingerprintLines(db: Executor): Promise<string> {
  const rows = await db.query<{ line: string }>(
    FINGERPRINT.replace(/select md5\(string_agg[^\n]*\n/, "select line from (\n").replace(
      "lines",
      "lines order by 1",
    ),
  );
  return rows.map((r) => r.line).join("\n");
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** Copies what the database holds now, to put it back after each test. */
export async function keepBaseline(db: Executor): Promise<Baseline> {
  // The key as JSON text: a connection that fetched no array types reads arrays as text.
  const found = await db.query<{ name: string; columns: string; key: string | null }>(`
    select format('%I.%I', n.nspname, c.relname) as name,
      (select string_agg(quote_ident(a.attname), ', ' order by a.attnum) from pg_attribute a
        where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
          and a.attgenerated = '') as columns,
      (select to_json(array_agg(quote_ident(a.attname) order by a.attnum))::text from pg_index i
        join pg_attribute a on a.attrelid = c.oid and a.attnum = any(i.indkey)
        where i.indrelid = c.oid and i.indisprimary) as key
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relkind = 'r' and n.nspname not in ('pg_catalog', 'information_schema')
      and n.nspname not like 'pg\\_toast%'
    order by 1`);
  const tables: Table[] = found.map((t) => ({ ...t, rows: 0, key: JSON.parse(t.key ?? "[]") }));
  const counts = tables.map((t, i) => `select ${i} as i, count(*)::int as n from ${t.name}`);
  if (tables.length > 0) {
    for (const { i, n } of await db.query<{ i: number; n: number }>(counts.join(" union all "))) {
      tables[i].rows = n;
    }
  }
  const copies = [`create schema ${BASELINE}`];
  for (const [i, table] of tables.entries()) {
    if (table.rows === 0) continue;
    table.copy = `${BASELINE}.${quote(`t${i}`)}`;
    copies.push(`create table ${table.copy} as select * from ${table.name}`);
  }
  await db.exec(copies.join(";\n"));
  const changes = tables.map((t, i) =>
    `select ${i} as i, count(*)::int as n, ` +
    `count(*) filter (where xmin::text::bigint > $1::bigint)::int as fresh from ${t.name}`
  ).join(" union all ");
  // Each sequence's value as setval takes it (pg_sequences: no last value until first called).
  const seqs = await db.query<{ name: string; value: string; called: boolean }>(`
    select format('%I.%I', schemaname, sequencename) as name,
      coalesce(last_value, start_value)::text as value, last_value is not null as called
    from pg_sequences order by 1`);
  const values = seqs.map(({ name, value, called }) =>
    `setval('${name.replaceAll("'", "''")}', ${value}, ${called})`
  );
  await db.exec("discard all");
  return {
    tables,
    changes: tables.length > 0 ? changes : "",
    sequences: values.length > 0 ? `select ${values.join(", ")}` : "",
    fingerprint: await fingerprint(db),
    lines: POOL_LOG ? await fingerprintLines(db) : "",
    xid: await currentXid(db),
  };
}

/**
 * Puts the database back as `baseline` kept it, once no connection of the test is left; false
 * when it cannot be (its schema, settings or statistics changed), and it is to be thrown away.
 */
export async function resetToBaseline(db: Executor, baseline: Baseline): Promise<boolean> {
  await db.exec("discard all");
  if (await fingerprint(db) !== baseline.fingerprint) {
    if (POOL_LOG) {
      const now = new Set((await fingerprintLines(db)).split("\n"));
      const then = new Set(baseline.lines.split("\n"));
      console.error("changed, gone:", [...then].filter((l) => !now.has(l)).slice(0, 10));
      console.error("changed, new:", [...now].filter((l) => !then.has(l)).slice(0, 10));
    }
    return false;
  }
  const statements: string[] = [];
  const counted = baseline.changes
    ? await db.query<{ i: number; n: number; fresh: number }>(baseline.changes, [baseline.xid])
    : [];
  for (const { i, n, fresh } of counted) {
    const table = baseline.tables[i];
    if (n === table.rows && fresh === 0) continue;
    if (!table.copy) {
      statements.push(`delete from ${table.name}`);
      continue;
    }
    const insert = `insert into ${table.name} (${table.columns}) overriding system value ` +
      `select ${table.columns} from ${table.copy} s`;
    if (table.key.length === 0) {
      statements.push(`delete from ${table.name}`, insert);
    } else {
      const same = table.key.map((k) => `t.${k} = s.${k}`).join(" and ");
      statements.push(
        `delete from ${table.name} where xmin::text::bigint > ${baseline.xid}`,
        `${insert} where not exists (select 1 from ${table.name} t where ${same})`,
      );
    }
  }
  if (statements.length > 0) {
    await db.exec(
      ["begin", "set local session_replication_role = replica", ...statements, "commit"]
        .join(";\n"),
    );
  }
  if (baseline.sequences) await db.exec(baseline.sequences);
  baseline.xid = await currentXid(db);
  return true;
}
