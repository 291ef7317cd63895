/** The demo data's mention history: two years per theme, varied, agreeing with the figures. */
import assert from "node:assert/strict";
import { seedDemo } from "../../src/ingest/seed.ts";
import { weeklySeries } from "../../src/ingest/trends.ts";
import { thirtyDays, TREND_STATUSES } from "../../src/catalog/trend_rule.ts";
import { DEMO_WEEKS } from "../../src/ingest/demo_trends.ts";
import { dbTest } from "../helpers/db.ts";

dbTest(
  "seedDemo writes two years of weekly points that agree with the 30-day figures",
  async ({ sql }) => {
    const first = await seedDemo(sql, { opportunities: 20 });
    const themes = await sql<
      { id: number; mentions_30d: number; mentions_prev_30d: number; trend_status: string }[]
    >`select id, mentions_30d, mentions_prev_30d, trend_status from themes order by id`;
    assert.equal(first.theme_mentions, themes.length * DEMO_WEEKS);
    const series = await weeklySeries(sql);
    assert.equal(series.size, themes.length);
    for (const theme of themes) {
      const weeks = series.get(theme.id)!;
      assert.equal(weeks.length, DEMO_WEEKS);
      assert.equal(theme.mentions_30d, thirtyDays(weeks), `theme ${theme.id}`);
      assert.equal(theme.mentions_prev_30d, thirtyDays(weeks, 4), `theme ${theme.id}`);
    }
    // Every status occurs: the shapes are varied.
    assert.deepEqual(
      [...new Set(themes.map((t) => t.trend_status))].sort(),
      [...TREND_STATUSES].sort(),
    );
    // Seeding again changes nothing, the derived figures included.
    const again = await seedDemo(sql, { opportunities: 20 });
    assert.equal(again.changed, false);
  },
);
