/**
 * Idea match and similar find their candidates (candidateIds) through the search index only: a
 * few rows of a word wanted without an order were planned as a table scan expecting to meet them
 * early, and when they sat together at the table's end the scan read every row's search vector
 * (2 s at a million rows, a 503 under load). On a small table the planner prefers that scan for
 * every statement, so any scan of opportunity_search here is one the index should have served.
 * PostgreSQL only: the embedded engine keeps no table statistics to read.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import {
  candidateIds,
  opportunityTerms,
  textTerms,
} from "../../src/catalog/questions/similarity.ts";
import { seedDemo } from "../../src/ingest/seed.ts";
import type { Sql } from "../../src/db/open.ts";
import { withTestDb } from "../helpers/db.ts";

/**
 * Runs `work` on a connection of its own and waits until its backend has exited: a backend
 * reports its table statistics at the latest when it exits.
 */
async function onOwnConnection<T>(url: string, sql: Sql, work: (own: Sql) => Promise<T>) {
  const own = postgres(url, { max: 1, onnotice: () => {} });
  let pid = 0;
  try {
    [{ pid }] = await own<{ pid: number }[]>`select pg_backend_pid() as pid`;
    return await work(own);
  } finally {
    await own.end();
    for (let i = 0; i < 100; i++) {
      const [{ n }] = await sql<{ n: number }[]>`
        select count(*)::int as n from pg_stat_activity where pid = ${pid}`;
      if (n === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

Deno.test({
  name: "idea match and similar find candidates without scanning opportunity_search [postgres]",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withTestDb("postgres", async ({ sql, url }) => {
      const asked = await onOwnConnection(url, sql, async (prep) => {
        await seedDemo(prep, { opportunities: 300 });
        const ids = await prep<{ id: number }[]>`select id from opportunities order by id limit 5`;
        const texts = ["Chase late invoices for freelance designers", "the cost of cloud bills"];
        return [
          ...await Promise.all(ids.map(async ({ id }) => ({
            id,
            terms: await opportunityTerms(prep, id),
          }))),
          ...await Promise.all(texts.map(async (text) => ({
            id: 0,
            terms: await textTerms(prep, text),
          }))),
        ];
      });
      const [{ schema }] = await sql<{ schema: string }[]>`select current_schema() as schema`;
      const scans = async () => {
        const [row] = await sql<{ n: number }[]>`
          select pg_stat_clear_snapshot(), (select seq_scan::int from pg_stat_user_tables
            where schemaname = ${schema} and relname = 'opportunity_search') as n`;
        return row.n;
      };
      const before = await scans();
      await onOwnConnection(url, sql, async (own) => {
        for (const { id, terms } of asked) {
          const found = await candidateIds(own, terms, id);
          assert.ok(found.length > 0, `candidates of ${id || "an idea"}`);
        }
      });
      assert.equal(await scans(), before, "no sequential scan of opportunity_search");
    }),
});
