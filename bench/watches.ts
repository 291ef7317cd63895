/**
 * Small bench of the watches' matching (the lead runs it at 1M rows): seeds N demo
 * opportunities into a fresh PostgreSQL database, creates W watches with mixed filters, then
 * times, inside a transaction that is rolled back, the new-match statement for K rows written
 * by that transaction (what an import of K rows runs at its end); then times the delivery of
 * one event per watch to a loopback receiver.
 *   deno run -A bench/watches.ts [--rows 50000] [--watches 1000] [--written 10000]
 */
import postgres from "postgres";
import { parseArgs } from "node:util";
import { migrate } from "../src/db/migrate.ts";
import { seedDemo } from "../src/ingest/seed.ts";
import { recordNewMatches } from "../src/watches/matching.ts";
import { createDeliveryWorker } from "../src/watches/worker.ts";
import type { Sql } from "../src/db/open.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    rows: { type: "string", default: "50000" },
    watches: { type: "string", default: "1000" },
    written: { type: "string", default: "10000" },
  },
});
const ROWS = Number(values.rows);
const WATCHES = Number(values.watches);
const WRITTEN = Number(values.written);
const ADMIN = Deno.env.get("TEST_DATABASE_URL") ?? "postgres://postgres@127.0.0.1:5432/postgres";
const name = `oi_bench_watches_${Date.now()}`;
const admin = postgres(ADMIN, { max: 1, onnotice: () => {} });
await admin.unsafe(`create database ${name}`);
const url = new URL(ADMIN);
url.pathname = `/${name}`;
const sql = postgres(url.toString(), { max: 8, onnotice: () => {} }) as unknown as Sql;
const receiver = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (r) => {
  await r.arrayBuffer();
  return new Response("ok");
});
try {
  await migrate(sql);
  let t = performance.now();
  await seedDemo(sql, { opportunities: ROWS });
  console.log(`seeded ${ROWS} opportunities in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  const [account] = await sql`
    insert into accounts (email, plan, email_verified_at)
    values ('bench@example.com', 'business', now()) returning id`;
  const categories = (await sql`select slug from categories`).map((r) => r.slug as string);
  const words = ["invoice", "ai", "crm", "schedul", "tool", "api", "saas", "email", "team", "data"];
  const platforms = ["reddit", "hackernews", "producthunt", null];
  const port = (receiver.addr as Deno.NetAddr).port;
  // Mixed watches: a keyword, a category, a platform, a score floor, or a few together.
  await sql`
    insert into watches (account_id, slot, name, query, q, platform, min_score, category,
      online_only, webhook_url, webhook_secret, email_token)
    select ${account.id}, g, 'w' || g, '{}'::jsonb,
      case when g % 2 = 0 then (${words}::text[])[1 + g % 10] end,
      (${platforms}::text[])[1 + g % 4],
      (g % 5) * 15,
      case when g % 3 = 0 then (${categories}::text[])[1 + g % ${categories.length}] end,
      g % 7 <> 0,
      ${`http://127.0.0.1:${port}/hook`}, ${`whsec_${btoa("0123456789abcdef0123456789abcdef")}`},
      'bench-token-' || g
    from generate_series(1, ${WATCHES}) g`;
  let matches = 0;
  let ms = 0;
  await sql.begin(async (tx) => {
    const db = tx as unknown as Sql;
    await db`
      update opportunities set updated_at = now()
      where id in (select id from opportunities order by id desc limit ${WRITTEN})`;
    t = performance.now();
    const summary = await recordNewMatches(db);
    ms = performance.now() - t;
    matches = summary.matches;
    console.log(
      `matching: ${WRITTEN} written rows x ${WATCHES} watches at ${ROWS} rows: ` +
        `${(ms / 1000).toFixed(2)} s, ${summary.matches} new matches, ${summary.jobs} jobs`,
    );
    await db`select 1 from watch_jobs limit 0`;
    throw new Error("rollback");
  }).catch((e) => {
    if (e.message !== "rollback") throw e;
  });
  // Delivery throughput: one event (one opportunity) per watch, to the loopback receiver.
  await sql`
    insert into watch_jobs (watch_id, kind, opportunity_ids, run_at)
    select id, 'webhook', array[(select max(id) from opportunities)], now() from watches`;
  const worker = createDeliveryWorker({
    sql,
    publicBaseUrl: "http://localhost",
    webhook: { urlPolicy: { allow: ["127.0.0.1"] } },
    concurrency: 8,
  });
  t = performance.now();
  const run = await worker.runOnce();
  const seconds = (performance.now() - t) / 1000;
  console.log(
    `delivery: ${run.delivered} events to a loopback receiver in ${seconds.toFixed(2)} s ` +
      `(${(run.delivered / seconds).toFixed(0)} events/s, concurrency 8)`,
  );
  void matches;
} finally {
  await receiver.shutdown();
  await sql.end();
  await admin.unsafe(`drop database if exists ${name} with (force)`);
  await admin.end();
}
