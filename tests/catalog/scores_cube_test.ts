/**
 * The sub-scores' summary in memory (src/catalog/scores_cube.ts) counts as PostgreSQL does over
 * the same summary, platform case and all, and gives way to PostgreSQL past its size bound. On
 * both engines. (tests/catalog/list_sweep_test.ts checks it against count(*) too.)
 */
import assert from "node:assert/strict";
import { scoreCountsFromSummary } from "../../src/catalog/counts.ts";
import { OpportunityQuerySchema } from "../../src/catalog/schemas.ts";
import { loadScoresCube, scoreCountsOfCube } from "../../src/catalog/scores_cube.ts";
import { seedDemo } from "../../src/ingest/seed.ts";
import { dbTest } from "../helpers/db.ts";

dbTest("the cube counts bounded lists as the summary does in PostgreSQL", async ({ sql }) => {
  await seedDemo(sql, { opportunities: 400 });
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
    assert.deepEqual(scoreCountsOfCube(cube, filter), expected, JSON.stringify(raw));
    if (expected.total > 0) nonEmpty++;
  }
  assert.ok(nonEmpty >= 3, `${nonEmpty} filters match anything`);
  assert.equal(await loadScoresCube(sql, rows - 1), undefined, "past its bound, no cube");
});
