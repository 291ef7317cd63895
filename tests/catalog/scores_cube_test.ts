/**
 * The sub-scores' summary in memory (src/catalog/lists/scores_cube.ts) counts as PostgreSQL does
 * over the same summary, platform case and all, and gives way to PostgreSQL past its size bound. On
 * both engines. (tests/catalog/list_sweep_test.ts checks it against count(*) too.)
 */
import assert from "node:assert/strict";
import { scoreCountsFromSummary } from "../../src/catalog/lists/counts.ts";
import { OpportunityQuerySchema } from "../../src/catalog/schemas.ts";
import {
  countsOfCubes,
  loadScoresCube,
  pairCountsOfCubes,
  scoreCountsOfCubes,
} from "../../src/catalog/lists/scores_cube.ts";
import { VersionedCache } from "../../src/catalog/cache.ts";
import { dbTest } from "../helpers/db.ts";

dbTest("the cube counts bounded lists as the summary does in PostgreSQL", async ({ sql }) => {
  await sql`update opportunities set platform = upper(platform) where id % 4 = 0`;
  const cube = await loadScoresCube(sql);
  assert.ok(cube, "the cube is held");
  const [{ rows }] = await sql<{ rows: number }[]>`
    select count(*)::int as rows from opportunity_counts_by_scores where n > 0`;
  assert.equal(cube.rows, rows);
  const filters = [
    { min_pain_point_intensity: 5 },
    { max_tech_difficulty: 3, platform: "REDDIT" },
    { min_willingness_to_pay: 4, recommendation: "Build", min_score: 40 },
    { min_sustainability: 6, online_only: true, platform: "hackernews" },
    { min_sustainability: 2, platform: "nowhere" },
    { min_pain_point_intensity: 10, max_tech_difficulty: 0 },
  ];
  let nonEmpty = 0;
  for (const raw of filters) {
    const { page: _p, page_size: _s, sort: _o, cursor: _c, ...filter } = OpportunityQuerySchema
      .parse(raw);
    const expected = await scoreCountsFromSummary(sql, filter);
    assert.deepEqual(scoreCountsOfCubes([cube], filter), expected, JSON.stringify(raw));
    if (expected.total > 0) nonEmpty++;
  }
  assert.ok(nonEmpty >= 3, `${nonEmpty} filters match anything`);
  assert.equal(await loadScoresCube(sql, rows - 1), undefined, "past its bound, no cube");
}, { seed: { opportunities: 400 } });

dbTest(
  "a category's or theme's bounded counts come from its themes' cubes, kept per version",
  async ({ sql }) => {
    const [{ category, theme }] = await sql<{ category: string; theme: string }[]>`
    select g.slug as category, t.slug as theme from themes t join categories g on g.id = t.category_id
    where t.id = (select theme_id from opportunities group by 1 order by count(*) desc limit 1)`;
    // The channel of the most rows in that theme.
    const [{ channel }] = await sql<{ channel: string }[]>`
      select o.channel_name as channel from opportunities o join themes t on t.id = o.theme_id
      where t.slug = ${theme} group by 1 order by count(*) desc limit 1`;
    const shelf = new VersionedCache(Infinity, Infinity);
    const cases = [
      { category, min_pain_point_intensity: 3 },
      { theme, max_tech_difficulty: 6, recommendation: "Validate" },
      { category, theme, min_willingness_to_pay: 2 },
      { category: "no-such-category", min_sustainability: 1 },
      { channel, min_sustainability: 1 },
      { channel, theme, max_tech_difficulty: 8 },
      { channel, category, min_pain_point_intensity: 2, platform: "REDDIT" },
      { channel, category: "no-such-category", min_pain_point_intensity: 2 },
      { theme, channel: "r/anything", min_sustainability: 1 },
    ];
    let nonEmpty = 0;
    for (const raw of cases) {
      const { page: _p, page_size: _s, sort: _o, cursor: _c, ...filter } = OpportunityQuerySchema
        .parse(raw);
      const expected = await scoreCountsFromSummary(sql, filter);
      assert.deepEqual(await countsOfCubes(sql, filter, 1, shelf), expected, JSON.stringify(raw));
      if (raw.channel && expected.total > 0) nonEmpty++;
    }
    assert.ok(nonEmpty >= 2, `${nonEmpty} channel cases match anything`);
    // Names that name nothing add nothing to the shelf: its keys come from the catalogue.
    const kept = shelf.stats().entries;
    for (let i = 0; i < 20; i++) {
      const { page: _p, page_size: _s, sort: _o, cursor: _c, ...filter } = OpportunityQuerySchema
        .parse({
          category: `nothing-${i}`,
          theme: `none-${i}`,
          min_sustainability: 1,
          ...(i % 2 ? { channel: `nowhere-${i}` } : {}),
        });
      assert.equal((await countsOfCubes(sql, filter, 1, shelf))?.total, 0);
    }
    assert.equal(shelf.stats().entries, kept);
    // Kept for version 1 (a later write is not seen), read again for version 2.
    const filter = OpportunityQuerySchema.parse({ theme, min_pain_point_intensity: 1 });
    const before = await countsOfCubes(sql, filter, 1, shelf);
    await sql`delete from opportunities where id in (
    select o.id from opportunities o join themes t on t.id = o.theme_id
    where t.slug = ${theme} and o.pain_point_intensity >= 1 and o.is_online_deliverable limit 5)`;
    assert.deepEqual(await countsOfCubes(sql, filter, 1, shelf), before);
    const after = await countsOfCubes(sql, filter, 2, shelf);
    assert.equal(after!.total, before!.total - 5);
    assert.deepEqual(after, await scoreCountsFromSummary(sql, filter));
  },
  { seed: { opportunities: 400 } },
);

dbTest(
  "the cubes count each (sub-score, score) pair of a sub-score order as a group by does",
  async ({ sql }) => {
    await sql`update opportunities set platform = upper(platform) where id % 4 = 0`;
    const [{ category, theme }] = await sql<{ category: string; theme: string }[]>`
    select g.slug as category, t.slug as theme from themes t join categories g on g.id = t.category_id
    where t.id = (select theme_id from opportunities group by 1 order by count(*) desc limit 1)`;
    const [{ channel }] = await sql<{ channel: string }[]>`
      select channel_name as channel from opportunities group by 1 order by count(*) desc limit 1`;
    const shelf = new VersionedCache(Infinity, Infinity);
    const cases = [
      {},
      { channel, min_score: 20 },
      { channel, category, max_tech_difficulty: 8 },
      { channel: "r/anything" },
      { platform: "Reddit", min_score: 30 },
      { recommendation: "Build", online_only: false },
      { min_pain_point_intensity: 4, max_tech_difficulty: 7 },
      { category, min_sustainability: 3 },
      { theme, recommendation: "Validate" },
      { platform: "nowhere" },
    ];
    const sorts = [
      ["pain_point_intensity", sql`o.pain_point_intensity`],
      ["willingness_to_pay", sql`o.willingness_to_pay_score`],
      ["tech_difficulty", sql`-o.tech_difficulty`],
      ["sustainability", sql`o.sustainability_score`],
    ] as const;
    let nonEmpty = 0;
    for (const raw of cases) {
      const query = OpportunityQuerySchema.parse(raw);
      const { page: _p, page_size: _s, sort: _o, cursor: _c, ...filter } = query;
      for (const [sort, key] of sorts) {
        const rows = await sql<{ key: number; score: number; n: number }[]>`
          select ${key} as key, o.score, count(*)::int as n from opportunities o
          where (${!query.online_only} or o.is_online_deliverable)
            and (${query.platform ?? null}::text is null
              or lower(o.platform) = lower(${query.platform ?? null}))
            and o.score >= ${query.min_score}
            and (${query.recommendation ?? null}::text is null
              or o.recommendation = ${query.recommendation ?? null})
            and o.pain_point_intensity >= ${query.min_pain_point_intensity ?? 0}
            and o.willingness_to_pay_score >= ${query.min_willingness_to_pay ?? 0}
            and o.tech_difficulty <= ${query.max_tech_difficulty ?? 10}
            and o.sustainability_score >= ${query.min_sustainability ?? 0}
            and (${raw.category ?? null}::text is null or o.theme_id in (
              select t.id from themes t join categories g on g.id = t.category_id
              where g.slug = ${raw.category ?? null}))
            and (${query.channel ?? null}::text is null or o.channel_name = ${
          query.channel ?? null
        })
            and (${raw.theme ?? null}::text is null
              or o.theme_id = (select t.id from themes t where t.slug = ${raw.theme ?? null}))
          group by 1, 2 order by 1 desc, 2 desc`;
        const counted = await pairCountsOfCubes(sql, filter, sort, { version: 1, shelf });
        assert.deepEqual(counted, {
          total: rows.reduce((sum, r) => sum + r.n, 0),
          keys: rows.map((r) => r.key),
          scores: rows.map((r) => r.score),
          counts: rows.map((r) => r.n),
        }, `${sort} ${JSON.stringify(raw)}`);
        if (rows.length > 1) nonEmpty++;
      }
    }
    assert.ok(nonEmpty >= 24, `${nonEmpty} cases with pairs`);
  },
  { seed: { opportunities: 400 } },
);
