/**
 * Bench of the watches: the new-match computation of an import, and the delivery
 * throughput to a loopback receiver.
 *
 * Matching: W watches of mixed filters are created and an import runs through the import's own
 * writer (ContentWriter, as `deno task admin import` does), all inside one transaction that is
 * rolled back, so reruns start from the same data. Two imports alternate:
 * - `new`: K new opportunities (the acceptance case);
 * - `changed`: K stored opportunities with a new score and title (every row has values before);
 * - `unwatched`: K new opportunities while no watch exists (nothing recorded: the writes alone,
 *   to compare with `new`).
 * Each run prints the writes, the matching (finish(): data version and recordNewMatches) and what
 * it found.
 *
 * Delivery: one event (one opportunity) per watch to a loopback receiver, concurrency 8; the
 * account, watches, jobs and attempts it adds are deleted at the end.
 *
 *   deno task bench:watches [--rows 50000] [--watches 1000] [--written 10000] [--runs 2]
 *   deno task bench:watches --database NAME   # an existing, prepared database
 *
 * Without --database it seeds `--rows` demo opportunities into a database of its own (dropped at
 * the end). With --database it uses that database as it is (migrating it first), and restores
 * everything it changes.
 */
import postgres from "postgres";
import { parseArgs } from "node:util";
import { migrate } from "../src/db/migrate.ts";
import { seedDemo } from "../src/ingest/seed.ts";
import { DEFAULT_SEED, opportunityAt, themeInfos } from "../src/ingest/demo.ts";
import { ContentWriter } from "../src/ingest/writer.ts";
import { createDeliveryWorker } from "../src/watches/worker.ts";
import type { Sql } from "../src/db/open.ts";

function parseFlags() {
  try {
    return parseArgs({
      args: Deno.args,
      strict: true,
      options: {
        rows: { type: "string", default: "50000" },
        watches: { type: "string", default: "1000" },
        written: { type: "string", default: "10000" },
        runs: { type: "string", default: "2" },
        database: { type: "string" },
        help: { type: "boolean", default: false },
      },
    });
  } catch (error) {
    console.error(`${(error as Error).message}: see --help`);
    Deno.exit(2);
  }
}
const { values } = parseFlags();
const USAGE = `Usage: deno task bench:watches [flags]

Times the new-match computation of an import against many watches, then the delivery throughput
to a loopback receiver (the target: 10,000 new rows x 1,000 watches in under 30 s at 1M).

Flags:
  --database NAME  An existing database to use as it is (migrated first; what the bench adds is
                   rolled back or deleted). Without it, a database of its own is seeded and dropped.
  --rows N         Demo opportunities seeded without --database (default 50000)
  --watches N      Watches created (default 1000)
  --written N      Rows each import writes (default 10000)
  --runs N         Runs of each import kind (default 2)
  --help           This text

Environment: TEST_DATABASE_URL, the server's maintenance database
(default postgres://postgres@127.0.0.1:5432/postgres).`;
if (values.help) {
  console.log(USAGE);
  Deno.exit(0);
}
for (const flag of ["rows", "watches", "written", "runs"] as const) {
  if (!/^[1-9][0-9]*$/.test(values[flag])) {
    console.error(`--${flag} must be a positive whole number\n\n${USAGE}`);
    Deno.exit(2);
  }
}
const WATCHES = Number(values.watches);
const WRITTEN = Number(values.written);
const RUNS = Number(values.runs);
const ADMIN = Deno.env.get("TEST_DATABASE_URL") ?? "postgres://postgres@127.0.0.1:5432/postgres";
const own = values.database === undefined;
const name = values.database ?? `oi_bench_watches_${Date.now()}`;
const admin = postgres(ADMIN, { max: 1, onnotice: () => {} });
if (own) await admin.unsafe(`create database ${name}`);
const url = new URL(ADMIN);
url.pathname = `/${name}`;
const sql = postgres(url.toString(), { max: 8, onnotice: () => {} }) as unknown as Sql;
const receiver = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (r) => {
  await r.arrayBuffer();
  return new Response("ok");
});
const port = (receiver.addr as Deno.NetAddr).port;
const seconds = (ms: number) => (ms / 1000).toFixed(2);
const load = () => Deno.loadavg().map((l) => l.toFixed(2)).join(" ");

/** W mixed watches of a new business account: a keyword, a category, a platform, a score floor. */
async function addWatches(db: Sql, email: string): Promise<number> {
  const [account] = await db<{ id: number }[]>`
    insert into accounts (email, plan, email_verified_at)
    values (${email}, 'business', now()) returning id`;
  const categories = (await db`select slug from categories`).map((r) => r.slug as string);
  const words = ["invoice", "ai", "crm", "schedul", "tool", "api", "saas", "email", "team", "data"];
  const platforms = ["reddit", "hackernews", "producthunt", null];
  await db`
    insert into watches (account_id, slot, name, query, q, platform, min_score, category,
      online_only, webhook_url, webhook_secret, email, email_token)
    select ${account.id}, g, 'w' || g, '{}'::jsonb,
      case when g % 2 = 0 then (${words}::text[])[1 + g % 10] end,
      (${platforms}::text[])[1 + g % 4],
      (g % 5) * 15,
      case when g % 3 = 0 then (${categories}::text[])[1 + g % ${categories.length}] end,
      g % 7 <> 0,
      ${`http://127.0.0.1:${port}/hook`}, ${`whsec_${btoa("0123456789abcdef0123456789abcdef")}`},
      g % 4 = 0, 'bench-token-' || g || '-' || ${account.id}
    from generate_series(1, ${WATCHES}) g`;
  return account.id;
}

/** One import of K records through the import's writer, timed, in a transaction rolled back. */
async function importRun(kind: "new" | "changed" | "unwatched", run: number): Promise<void> {
  const themes = themeInfos(DEFAULT_SEED);
  const weight = themes.reduce((sum, t) => sum + t.weight, 0);
  await sql.begin(async (tx) => {
    const db = tx as unknown as Sql;
    if (kind !== "unwatched") await addWatches(db, `bench-${run}@example.com`);
    const existing = kind === "changed"
      ? await db<{ external_id: string; score: number }[]>`
        select external_id, score from opportunities order by id desc limit ${WRITTEN}`
      : [];
    const started = performance.now();
    const writer = await ContentWriter.open(db);
    for (let i = 0; i < WRITTEN; i++) {
      const record = opportunityAt(DEFAULT_SEED + run, i, themes, weight);
      if (!writer.hasTheme(record.theme)) throw new Error(`No theme "${record.theme}" stored`);
      if (kind !== "changed") record.external_id = `bench-new-${run}-${i}`;
      else {
        record.external_id = existing[i].external_id;
        record.score = (existing[i].score + 37) % 101;
      }
      writer.add(record);
      await writer.throttle();
    }
    await writer.flush();
    const written = performance.now();
    await writer.finish();
    const finished = performance.now();
    const [found] = await db<{ batches: number; matches: number; jobs: number }[]>`
      select (select count(*) from watch_batches where matched_at = now())::int as batches,
        (select coalesce(sum(cardinality(opportunity_ids)), 0) from watch_batches
          where matched_at = now())::int as matches,
        (select count(*) from watch_jobs where created_at = now())::int as jobs`;
    console.log(
      `import ${kind} (run ${run}): ${WRITTEN} rows written in ${
        seconds(written - started)
      } s; matching against ${kind === "unwatched" ? 0 : WATCHES} watches ${
        seconds(finished - written)
      } s: ` +
        `${found.matches} new matches in ${found.batches} batches, ${found.jobs} jobs ` +
        `(load ${load()})`,
    );
    throw new Error("rollback");
  }).catch((e) => {
    if (e.message !== "rollback") throw e;
  });
}

let accountId: number | undefined;
try {
  await migrate(sql);
  if (own) {
    const t = performance.now();
    await seedDemo(sql, { opportunities: Number(values.rows) });
    console.log(`seeded ${values.rows} opportunities in ${seconds(performance.now() - t)} s`);
  }
  const [{ rows }] = await sql<{ rows: number }[]>`
    select count(*)::int as rows from opportunities`;
  console.log(`database ${own ? "(own)" : name}: ${rows} opportunities; load ${load()}`);
  for (let run = 1; run <= RUNS; run++) {
    await importRun("new", run);
    await importRun("changed", run);
    await importRun("unwatched", run);
  }

  // Delivery throughput: one event (one opportunity) per watch, to the loopback receiver.
  accountId = await addWatches(sql, `bench-delivery-${Date.now()}@example.com`);
  await sql`
    insert into watch_jobs (watch_id, kind, opportunity_ids, run_at)
    select w.id, 'webhook', array[(select max(id) from opportunities)], now()
    from watches w where w.account_id = ${accountId}`;
  const worker = createDeliveryWorker({
    sql,
    publicBaseUrl: "http://localhost",
    webhook: { urlPolicy: { allow: ["127.0.0.1"] } },
    concurrency: 8,
  });
  const t = performance.now();
  const run = await worker.runOnce();
  const s = (performance.now() - t) / 1000;
  console.log(
    `delivery: ${run.delivered} events to a loopback receiver in ${s.toFixed(2)} s ` +
      `(${(run.delivered / s).toFixed(0)} events/s, concurrency 8; load ${load()})`,
  );
} finally {
  if (accountId !== undefined && !own) {
    // The account's watches, their jobs and attempts go with it (on delete cascade).
    await sql`delete from accounts where id = ${accountId}`;
  }
  await receiver.shutdown();
  await sql.end();
  if (own) await admin.unsafe(`drop database if exists ${name} with (force)`);
  await admin.end();
}
