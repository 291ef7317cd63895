/**
 * Every combination of the list filters, with every sort, page and cursor page, answers what a
 * plain count(*) and order by over opportunities answer: a randomised sweep (fixed seed, so that
 * a failure can be replayed) through the list as the service answers it (the total and the score
 * bands from the summary counts, src/catalog/lists/score_band.ts; the bands of the sub-score orders
 * from the pair counts of the cubes, src/catalog/lists/sub_band.ts), on both engines.
 */
import assert from "node:assert/strict";
import { createContent } from "../../src/catalog/content.ts";
import {
  type OpportunityQuery,
  OpportunityQuerySchema,
  RECOMMENDATIONS,
} from "../../src/catalog/schemas.ts";
import type { Sql } from "../../src/db/open.ts";
import { readDataVersion } from "../../src/catalog/common.ts";
import { dbTest } from "../helpers/db.ts";
import { MemoryBudget } from "../../src/platform/memory.ts";
import { random, type Values, valuesOf } from "../helpers/sweep_values.ts";

/** The plain `where` of a list's filters, written apart from the service's own. */
function plainWhere(sql: Sql, q: OpportunityQuery) {
  return sql`
    where (${!q.online_only} or o.is_online_deliverable)
      and (${q.platform ?? null}::text is null or lower(o.platform) = lower(${q.platform ?? null}))
      and (${q.channel ?? null}::text is null or o.channel_name = ${q.channel ?? null})
      and o.score >= ${q.min_score}
      and (${q.recommendation ?? null}::text is null or o.recommendation = ${
    q.recommendation ?? null
  })
      and (${q.category ?? null}::text is null or o.theme_id in (
        select t.id from themes t join categories c on c.id = t.category_id
        where c.slug = ${q.category ?? null}))
      and o.pain_point_intensity >= ${q.min_pain_point_intensity ?? 0}
      and o.willingness_to_pay_score >= ${q.min_willingness_to_pay ?? 0}
      and o.tech_difficulty <= ${q.max_tech_difficulty ?? 10}
      and o.sustainability_score >= ${q.min_sustainability ?? 0}
      and (${q.theme ?? null}::text is null or o.theme_id in (
        select t.id from themes t where t.slug = ${q.theme ?? null}))`;
}

/** The plain order of a list: the sort's column, then score, newest, id. */
export function plainOrder(sql: Sql, sort: OpportunityQuery["sort"]) {
  const rest = sql`o.score desc, o.created_at desc, o.id desc`;
  switch (sort) {
    case "newest":
      return sql`o.created_at desc, o.id desc`;
    case "pain_point_intensity":
      return sql`o.pain_point_intensity desc, ${rest}`;
    case "willingness_to_pay":
      return sql`o.willingness_to_pay_score desc, ${rest}`;
    case "tech_difficulty":
      return sql`o.tech_difficulty asc, ${rest}`;
    case "sustainability":
      return sql`o.sustainability_score desc, ${rest}`;
    default:
      return rest;
  }
}

/** The ids of the whole list and its total, by a plain count(*) and order by. */
async function reference(sql: Sql, q: OpportunityQuery): Promise<number[]> {
  const rows = await sql<{ id: number }[]>`
    select id from opportunities o ${plainWhere(sql, q)}
    order by ${plainOrder(sql, q.sort)}`;
  const [{ n }] = await sql<{ n: number }[]>`
    select count(*)::int as n from opportunities o ${plainWhere(sql, q)}`;
  assert.equal(n, rows.length);
  return rows.map((r) => r.id);
}

function randomQuery(next: () => number, values: Values): Record<string, unknown> {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)];
  const maybe = <T>(list: readonly T[], p: number): T | undefined =>
    next() < p ? pick(list) : undefined;
  return {
    platform: maybe(values.platforms, 0.5),
    channel: maybe(values.channels, 0.15),
    category: maybe(values.categories, 0.25),
    theme: maybe(values.themes, 0.2),
    recommendation: maybe(RECOMMENDATIONS, 0.5),
    min_score: next() < 0.8 ? Math.floor(next() * 91) : 0,
    online_only: next() < 0.7,
    min_pain_point_intensity: next() < 0.25 ? Math.floor(next() * 11) : undefined,
    min_willingness_to_pay: next() < 0.25 ? Math.floor(next() * 11) : undefined,
    max_tech_difficulty: next() < 0.25 ? Math.floor(next() * 11) : undefined,
    min_sustainability: next() < 0.25 ? Math.floor(next() * 11) : undefined,
    sort: next() < 0.5 ? undefined : pick([
      "score",
      "newest",
      "pain_point_intensity",
      "willingness_to_pay",
      "tech_difficulty",
      "sustainability",
    ]),
    page_size: pick([1, 3, 7, 20, 100]),
  };
}

/**
 * Sweeps `n` random combinations; returns how many had rows. With `index`, every list is answered
 * from the list index (src/catalog/lists/list_index.ts) at the database's data version, and the
 * sweep checks that it was; without, from the statements. With `budget`, the answer cache is on and
 * everything draws from that memory budget (src/platform/memory.ts).
 */
async function sweep(
  sql: Sql,
  seed: number,
  n: number,
  when: string,
  index = false,
  budget?: MemoryBudget,
): Promise<number> {
  const content = createContent(sql, { publicBaseUrl: "https://x.test" }, {
    maxEntries: budget ? undefined : 0,
    listIndex: index ? "wait" : "off",
    budget,
  });
  const version = await readDataVersion(sql);
  const values = await valuesOf(sql);
  const next = random(seed);
  let nonEmpty = 0;
  for (let i = 0; i < n; i++) {
    const base = randomQuery(next, values);
    const all = await reference(sql, OpportunityQuerySchema.parse(base));
    if (all.length > 0) nonEmpty++;
    const size = base.page_size as number;
    const pages = Math.max(1, Math.ceil(all.length / size));
    // Any page up to one past the end, within the depth limit.
    const page = Math.min(1 + Math.floor(next() * (pages + 1)), Math.floor(10_000 / size));
    const label = `${when}: ${JSON.stringify({ ...base, page })}`;
    const query = OpportunityQuerySchema.parse({ ...base, page });
    const answer = await content.listOpportunities(version, query);
    assert.equal(answer.total, all.length, `total of ${label}`);
    const from = (page - 1) * size;
    assert.deepEqual(answer.items.map((o) => o.id), all.slice(from, from + size), label);
    assert.equal(answer.next_cursor === null, from + size >= all.length, `cursor of ${label}`);
    // Two pages further by cursor from there.
    let cursor = answer.next_cursor;
    for (let k = 1; k <= 2 && cursor; k++) {
      const more = await content.listOpportunities(
        version,
        OpportunityQuerySchema.parse({ ...base, cursor }),
      );
      const at = from + k * size;
      assert.deepEqual(more.items.map((o) => o.id), all.slice(at, at + size), `${label} +${k}`);
      assert.equal(more.total, all.length, `total of ${label} +${k}`);
      assert.equal(more.page, null);
      cursor = more.next_cursor;
    }
  }
  const used = content.listIndex();
  if (budget) {
    // The index is asked for, but the budget held none of it: every list went to PostgreSQL.
    assert.equal(used?.answered, 0, `${when}: lists answered from an index the budget refused`);
    assert.ok(budget.used() <= budget.limit, `${when}: ${budget.used()} bytes held`);
  } else if (index) {
    assert.equal(used?.passed, 0, `${when}: lists the index did not answer`);
    assert.ok(used!.answered >= n, `${when}: ${used!.answered} lists from the index`);
    assert.equal(used!.version, version);
  } else assert.equal(used, null);
  return nonEmpty;
}

dbTest("every combination of filters, sorts and pages equals count(*) and order by", async (db) => {
  const sql = db.sql;
  // Many rows per score, so that pages start and end inside score buckets.
  const nonEmpty = await sweep(sql, 38, 350, "after the seed");
  assert.ok(nonEmpty >= 150, `only ${nonEmpty} combinations match anything`);

  // Updates move rows between buckets and filters; the counts follow them.
  await sql`update opportunities set score = 100 - score where id % 3 = 0`;
  await sql`update opportunities set platform = upper(platform), recommendation = 'Skip'
    where id % 7 = 1`;
  await sql`update opportunities set pain_point_intensity = 10 - pain_point_intensity,
    tech_difficulty = (tech_difficulty + 3) % 11 where id % 5 = 2`;
  await sql`update opportunities set theme_id = (select min(id) from themes) where id % 5 = 2`;
  await sweep(sql, 39, 150, "after updates");
}, { seed: { opportunities: 1200 } });

dbTest("the list index answers every combination as count(*) and order by do", async (db) => {
  const sql = db.sql;
  const nonEmpty = await sweep(sql, 40, 350, "after the seed", true);
  assert.ok(nonEmpty >= 150, `only ${nonEmpty} combinations match anything`);
  // The same updates, and the version they would bump: a new index is read at the new version.
  await sql`update opportunities set score = 100 - score where id % 3 = 0`;
  await sql`update opportunities set platform = upper(platform), recommendation = 'Skip'
    where id % 7 = 1`;
  await sql`update opportunities set pain_point_intensity = 10 - pain_point_intensity,
    tech_difficulty = (tech_difficulty + 3) % 11, created_at = created_at - interval '1 day'
    where id % 5 = 2`;
  await sql`update opportunities set theme_id = (select min(id) from themes) where id % 5 = 2`;
  await sql`update data_version set version = version + 1`;
  await sweep(sql, 41, 150, "after updates", true);
}, { seed: { opportunities: 1200 } });

dbTest(
  "with a tiny memory budget, every combination still equals count(*) and order by",
  async (db) => {
    const sql = db.sql;
    // 16 KB: less than the list index (about 800 KB here) or the cubes (about 60 KB), room for
    // a few answers.
    const budget = new MemoryBudget(16 * 1024);
    const nonEmpty = await sweep(sql, 42, 150, "tiny budget", true, budget);
    assert.ok(nonEmpty >= 60, `only ${nonEmpty} combinations match anything`);
    const { refused, parts } = budget.report();
    assert.ok("list_index" in refused, `refused: ${JSON.stringify(refused)}`);
    assert.ok("cubes" in refused, `refused: ${JSON.stringify(refused)}`);
    assert.equal(parts.list_index, undefined);
  },
  { seed: { opportunities: 1200 } },
);
