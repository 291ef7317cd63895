/**
 * The narrow search table (sql/0006_search_table.sql): kept in step with `opportunities` by every
 * insert, update and delete; narrow (its vectors out of line); and the three ways a page of a
 * keyword search is found (walk, bitmap, planner) give the same page, on both engines.
 */
import assert from "node:assert/strict";
import {
  countOpportunities,
  findPage,
  type PagePlan,
  pagePlan,
} from "../../src/catalog/lists/opportunities.ts";
import { OpportunityQuerySchema } from "../../src/catalog/schemas.ts";
import type { Sql } from "../../src/db/open.ts";
import { dbTest } from "../helpers/db.ts";

const COLUMNS = "id, theme_id, score, is_online_deliverable, created_at, platform, " +
  "channel_name, recommendation, search::text";

/** The rows of opportunity_search that differ from what `opportunities` holds now, both ways. */
async function outOfStep(sql: Sql): Promise<number> {
  const [{ n }] = await sql.unsafe<{ n: number }[]>(`
    select count(*)::int as n from (
      (select ${COLUMNS} from opportunities except all select ${COLUMNS} from opportunity_search)
      union all
      (select ${COLUMNS} from opportunity_search except all select ${COLUMNS} from opportunities)
    ) d`);
  return n;
}

dbTest("the search table follows every insert, update and delete of opportunities", async (db) => {
  const sql = db.sql;
  const [{ n }] = await sql<{ n: number }[]>`select count(*)::int as n from opportunity_search`;
  assert.equal(n, 300);
  assert.equal(await outOfStep(sql), 0, "after the seed");

  await sql`update opportunities set score = 100 - score, is_online_deliverable = not
    is_online_deliverable where id % 3 = 0`;
  await sql`update opportunities set title = title || ' zyxwordadded' where id % 5 = 0`;
  assert.equal(await outOfStep(sql), 0, "after updates of filter columns and text");
  const query = OpportunityQuerySchema.parse({ q: "zyxwordadded", online_only: false });
  assert.equal(await countOpportunities(sql, query), 60, "the new word is counted");

  const before = await sql<{ xmin: string }[]>`select xmin::text from opportunity_search`;
  await sql`update opportunities set updated_at = now()`;
  const after = await sql<{ xmin: string }[]>`select xmin::text from opportunity_search`;
  assert.deepEqual(after, before, "an update of no searched column writes nothing there");

  await sql`delete from evidence_quotes where opportunity_id in (
    select id from opportunities where id % 7 = 0)`;
  await sql`update blog_posts set related_opportunity_id = null
    where related_opportunity_id % 7 = 0`;
  await sql`delete from opportunities where id % 7 = 0`;
  assert.equal(await outOfStep(sql), 0, "after deletes");
}, { seed: { opportunities: 300 } });

dbTest("the search table is narrow: its vectors are stored out of line", async (db) => {
  const sql = db.sql;
  const [row] = await sql<{ narrow: number; wide: number }[]>`
    select pg_relation_size('opportunity_search')::float8 / 400 as narrow,
      pg_relation_size('opportunities')::float8 / 400 as wide`;
  // About 100 bytes a row here against 1 to 2 KB in opportunities; a vector kept in the row
  // would make it 600 bytes or more.
  assert.ok(row.narrow < 250, `opportunity_search holds ${row.narrow} bytes a row`);
  assert.ok(row.narrow * 4 < row.wide, `${row.narrow} against ${row.wide} bytes a row`);
}, { seed: { opportunities: 400 } });

dbTest("every plan of a keyword search page finds the same page", async (db) => {
  const sql = db.sql;
  const [{ platform }] = await sql<{ platform: string }[]>`
    select lower(platform) as platform from opportunities limit 1`;
  const [{ category }] = await sql<{ category: string }[]>`
    select c.slug as category from categories c join themes t on t.category_id = c.id
    join opportunities o on o.theme_id = t.id group by 1 order by count(*) desc limit 1`;
  const cases: Record<string, string | number | boolean>[] = [];
  for (
    const q of ["the", "ai", "app", '"web app"', "a -the", "tool OR crm", "c++", "--"]
  ) {
    const extras: Record<string, string | number>[] = [{}, { platform }, { category }, {
      min_score: 70,
    }];
    for (const extra of extras) {
      for (const sort of ["score", "newest", "relevance"]) {
        for (const [page, page_size] of [[1, 20], [3, 7], [40, 5]]) {
          cases.push({ q, ...extra, sort, page, page_size });
        }
      }
    }
    cases.push({ q, online_only: false, page: 2, page_size: 10 });
  }
  const plans: PagePlan[] = ["planner", "walk", "bitmap"];
  let nonEmpty = 0;
  for (const params of cases) {
    const query = OpportunityQuerySchema.parse(params);
    // Forced plans (transactions) on PostgreSQL only, as the service does; run side by side.
    const force = db.engine === "postgres";
    const [first, ...others] = await Promise.all(
      plans.map(async (plan) => (await findPage(sql, query, plan, force)).map((item) => item.id)),
    );
    if (first.length > 0) nonEmpty++;
    assert.equal(
      await countOpportunities(sql, query, { forcePlans: force }),
      await countOpportunities(sql, query),
      `the count in opportunity_search against opportunities: ${JSON.stringify(params)}`,
    );
    for (const [i, ids] of others.entries()) {
      assert.deepEqual(ids, first, `${plans[i + 1]} against planner: ${JSON.stringify(params)}`);
    }
  }
  assert.ok(nonEmpty > cases.length / 3, `${nonEmpty} of ${cases.length} pages held rows`);
}, { seed: { opportunities: 400 } });

Deno.test("a page walks the sort index only when matches are common enough", () => {
  const plan = (total: number, params: Record<string, string | number>) =>
    pagePlan(OpportunityQuerySchema.parse({ q: "x", ...params }), total);
  assert.equal(plan(850_000, {}), "walk");
  assert.equal(plan(19_999, {}), "bitmap", "few matches: found through the index");
  assert.equal(plan(50_000, { page: 100, page_size: 100 }), "bitmap", "a deep page");
  assert.equal(plan(850_000, { page: 100, page_size: 100 }), "walk");
  assert.equal(plan(850_000, { sort: "relevance" }), "planner", "relevance ranks every match");
  assert.equal(plan(850_000, { sort: "newest" }), "walk");
});
