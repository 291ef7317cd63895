/**
 * The summary counts (sql/*_list_counts.sql, src/catalog/lists/counts.ts): the total of every
 * filter combination without q equals count(*) of the same filters, after imports, upserts,
 * updates, deletes and a truncate, property-style over many random combinations, on both engines.
 */
import assert from "node:assert/strict";
import { type CountFilter, countFromSummary } from "../../src/catalog/lists/counts.ts";
import { countByScan, countOpportunities } from "../../src/catalog/lists/opportunities.ts";
import { OpportunityQuerySchema, RECOMMENDATIONS } from "../../src/catalog/schemas.ts";
import type { Sql } from "../../src/db/open.ts";
import { importLines } from "../../src/ingest/import.ts";
import { seedDemo } from "../../src/ingest/seed.ts";
import { dbTest } from "../helpers/db.ts";
import { random, type Values, valuesOf } from "../helpers/sweep_values.ts";

function randomFilter(next: () => number, values: Values): CountFilter {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)];
  const maybe = <T>(list: readonly T[], p: number): T | undefined =>
    next() < p ? pick(list) : undefined;
  return OpportunityQuerySchema.parse({
    platform: maybe(values.platforms, 0.4),
    channel: maybe(values.channels, 0.25),
    category: maybe(values.categories, 0.35),
    theme: maybe(values.themes, 0.2),
    recommendation: maybe(RECOMMENDATIONS, 0.4),
    min_score: next() < 0.7 ? Math.floor(next() * 101) : 0,
    online_only: next() < 0.6,
  });
}

/** Checks `n` random combinations (and the unfiltered ones); returns how many were non-zero. */
async function checkCombinations(sql: Sql, seed: number, n: number, when: string) {
  const values = await valuesOf(sql);
  const next = random(seed);
  const filters: CountFilter[] = [
    OpportunityQuerySchema.parse({ online_only: false }),
    OpportunityQuerySchema.parse({}),
  ];
  for (let i = 0; i < n; i++) filters.push(randomFilter(next, values));
  let nonZero = 0;
  for (const filter of filters) {
    const query = OpportunityQuerySchema.parse(filter);
    const expected = await countByScan(sql, query);
    assert.equal(
      await countFromSummary(sql, filter),
      expected,
      `${when}: ${JSON.stringify(filter)}`,
    );
    if (expected > 0) nonZero++;
  }
  // The combinations must not all be empty, or the comparison would prove nothing.
  assert.ok(nonZero >= n / 5, `${when}: only ${nonZero} of ${n} combinations match anything`);
}

async function deleteWhere(sql: Sql, modulo: number): Promise<void> {
  await sql`delete from evidence_quotes where opportunity_id in (
    select id from opportunities where id % ${modulo} = 0)`;
  await sql`update blog_posts set related_opportunity_id = null
    where related_opportunity_id % ${modulo} = 0`;
  await sql`delete from opportunities where id % ${modulo} = 0`;
}

dbTest(
  "the summary counts equal count(*) after imports, upserts, updates and deletes",
  async (db) => {
    const sql = db.sql;
    await checkCombinations(sql, 1, 10, "empty").catch((e) => {
      // An empty catalogue has nothing to match: only the equality matters here.
      if (!String(e.message).includes("combinations match anything")) throw e;
    });
    await seedDemo(sql, { opportunities: 400 });
    await checkCombinations(sql, 2, 150, "after the seed");

    // An upsert of the same external ids with other values (another seed), and new rows.
    await seedDemo(sql, { opportunities: 500, seed: 7 });
    await checkCombinations(sql, 3, 150, "after upserts");

    // Updates of every filter column, some leaving the count where it was.
    await sql`update opportunities set score = 100 - score, is_online_deliverable = not
    is_online_deliverable where id % 3 = 0`;
    await sql`update opportunities set platform = upper(platform), recommendation = 'Skip'
    where id % 5 = 1`;
    await sql`update opportunities set channel_name = 'moved', theme_id = (
    select min(id) from themes) where id % 11 = 2`;
    await sql`update opportunities set updated_at = now()`;
    await checkCombinations(sql, 4, 150, "after updates");

    // A theme moves to another category: counted under its new category.
    await sql`update themes set category_id = (select max(id) from categories)
    where id = (select min(id) from themes)`;
    await checkCombinations(sql, 5, 100, "after a theme moved");

    await deleteWhere(sql, 4);
    await checkCombinations(sql, 6, 150, "after deletes");

    // An import of records through the import command (the JSON Lines path), in one transaction.
    const [theme] = await sql<{ slug: string }[]>`select slug from themes order by id limit 1`;
    const lines = Array.from({ length: 30 }, (_, i) =>
      JSON.stringify({
        type: "opportunity",
        external_id: `count-test-${i}`,
        theme: theme.slug,
        platform: i % 2 ? "Reddit" : "github",
        channel_name: i % 3 ? "SaaS" : "Issues",
        title: `Counted opportunity ${i}`,
        description: "A record imported by the summary count test",
        recommendation: RECOMMENDATIONS[i % 3],
        score: (i * 7) % 101,
        pain_point_intensity: 5,
        willingness_to_pay_score: 5,
        tech_difficulty: 5,
        sustainability_score: 5,
        target_audience: "Testers",
        monetization_model: "Subscription",
        market_size_estimate: "Small",
        key_features: [],
        competitors: [],
        differentiation: "None",
        risks: [],
        evidence_count: 1,
        merged_from_count: 1,
        is_online_deliverable: i % 4 !== 0,
        created_at: "2026-05-01T10:00:00Z",
        evidence: [{
          quote: "We need this",
          platform: "reddit",
          channel_name: "SaaS",
          source_url: null,
          posted_at: "2026-04-01T00:00:00Z",
        }],
      }));
    await importLines(sql, lines);
    await checkCombinations(sql, 8, 150, "after an import");

    // The list's own count answers from the summary, the same number.
    const query = OpportunityQuerySchema.parse({ platform: "reddit", min_score: 40 });
    assert.equal(await countOpportunities(sql, query), await countByScan(sql, query));

    await sql`truncate opportunities cascade`;
    const [{ n }] = await sql<{ n: number }[]>`
    select (select count(*) from opportunity_counts) + (select count(*) from
      opportunity_counts_by_theme) + (select count(*) from opportunity_counts_by_platform) as n`;
    assert.equal(Number(n), 0, "a truncate empties the summaries");
  },
);

dbTest("the summary is not read for a list with q", async (db) => {
  const sql = db.sql;
  // Summaries wrong on purpose: a count with q must not come from them.
  await sql`update opportunity_counts_by_platform set n = n + 1000`;
  const withQ = OpportunityQuerySchema.parse({ q: "invoice", online_only: false });
  assert.equal(await countOpportunities(sql, withQ), await countByScan(sql, withQ));
  const withoutQ = OpportunityQuerySchema.parse({ online_only: false });
  assert.notEqual(await countOpportunities(sql, withoutQ), await countByScan(sql, withoutQ));
}, { seed: { opportunities: 200 } });
