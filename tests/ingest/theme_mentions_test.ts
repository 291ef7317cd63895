/** Theme mention points in the import: upserts, the 30-day figures, status and growth stored. */
import assert from "node:assert/strict";
import { ImportError, importLines } from "../../src/ingest/import.ts";
import { growth, thirtyDays, trendStatus } from "../../src/catalog/trend_rule.ts";
import type { Sql } from "../../src/db/open.ts";
import { dbTest } from "../helpers/db.ts";
import { FIXTURE_LINES, loadFixture } from "../helpers/app.ts";
import { DECLINING, mondayBefore, RISING, STEADY, weeklyLines } from "../helpers/trends.ts";

interface ThemeFigures {
  slug: string;
  mentions_30d: number;
  mentions_prev_30d: number;
  trend_status: string | null;
  growth_7d: number | null;
  growth_90d: number | null;
  growth_1y: number | null;
  trend_change: number;
}

async function figures(sql: Sql, slug: string): Promise<ThemeFigures> {
  const [row] = await sql<ThemeFigures[]>`
    select slug, mentions_30d, mentions_prev_30d, trend_status, growth_7d, growth_90d,
      growth_1y, trend_change
    from themes where slug = ${slug}`;
  return row;
}

async function version(sql: Sql): Promise<number> {
  const [{ v }] = await sql<{ v: number }[]>`select version::int as v from data_version`;
  return v;
}

const ALL = [
  ...weeklyLines("invoice-chasing", RISING),
  ...weeklyLines("legacy-docs", DECLINING),
  ...weeklyLines("flaky-ci", STEADY),
];

dbTest(
  "importLines stores points and derives the 30-day figures, status and growth",
  async ({ sql }) => {
    await loadFixture(sql);
    const before = await version(sql);
    const summary = await importLines(sql, ALL);
    assert.equal(summary.theme_mentions, ALL.length);
    assert.equal(summary.changed, true);
    assert.equal(await version(sql), before + 1);
    const [{ n }] = await sql`select count(*)::int as n from theme_mentions`;
    assert.equal(n, ALL.length);
    for (
      const [slug, series] of [["invoice-chasing", RISING], ["legacy-docs", DECLINING]] as const
    ) {
      const row = await figures(sql, slug);
      assert.equal(row.mentions_30d, thirtyDays(series), slug);
      assert.equal(row.mentions_prev_30d, thirtyDays(series, 4), slug);
      assert.equal(row.trend_status, trendStatus(series), slug);
      assert.equal(row.growth_7d, growth(series, 1), slug);
      assert.equal(row.growth_90d, growth(series, 13), slug);
      assert.equal(row.growth_1y, growth(series, 52), slug);
    }
    assert.equal((await figures(sql, "invoice-chasing")).trend_status, "rising");
    assert.equal((await figures(sql, "legacy-docs")).trend_status, "declining");
    assert.equal((await figures(sql, "flaky-ci")).trend_status, "steady");
    // The fixture said 300 against 100; the points say otherwise and win.
    const rising = await figures(sql, "invoice-chasing");
    assert.equal(rising.mentions_30d, Math.round((150 + 170 + 190 + 210) * 30 / 28));
    assert.equal(rising.mentions_prev_30d, Math.round((95 + 105 + 95 + 105) * 30 / 28));

    // The same file again changes nothing.
    const again = await importLines(sql, ALL);
    assert.equal(again.changed, false);
    assert.equal(await version(sql), before + 1);
  },
);

dbTest("a point is upserted, and the figures follow it", async ({ sql }) => {
  await loadFixture(sql);
  await importLines(sql, weeklyLines("invoice-chasing", RISING));
  const last = mondayBefore(0);
  await importLines(sql, [
    JSON.stringify({ type: "theme_mentions", theme: "invoice-chasing", date: last, mentions: 910 }),
  ]);
  const [{ mentions, n }] = await sql`
    select (select mentions from theme_mentions where day = ${last}) as mentions,
      (select count(*)::int from theme_mentions) as n`;
  assert.equal(mentions, 910);
  assert.equal(n, RISING.length);
  const series = [...RISING.slice(0, -1), 910];
  assert.equal((await figures(sql, "invoice-chasing")).mentions_30d, thirtyDays(series));
  assert.equal((await figures(sql, "invoice-chasing")).growth_7d, growth(series, 1));
});

dbTest(
  "daily points count in their week; a theme record cannot undo the points",
  async ({ sql }) => {
    await loadFixture(sql);
    // Seven daily points of 10 in the newest week, and one weekly point of 70 four weeks before.
    const days = Array.from({ length: 7 }, (_, i) =>
      JSON.stringify({
        type: "theme_mentions",
        theme: "flaky-ci",
        date: new Date(Date.parse(mondayBefore(0)) + i * 86_400_000).toISOString().slice(0, 10),
        mentions: 10,
      }));
    await importLines(sql, [
      ...days,
      ...weeklyLines("flaky-ci", [70, 0, 0, 0, 0]).slice(0, 1),
    ]);
    const row = await figures(sql, "flaky-ci");
    assert.equal(row.mentions_30d, thirtyDays([70, 0, 0, 0, 70]));
    assert.equal(row.mentions_prev_30d, thirtyDays([70, 0, 0, 0, 70], 4));
    // Importing the theme record again (with its old figures) leaves the points' figures.
    await importLines(sql, FIXTURE_LINES.filter((l) => l.includes('"slug":"flaky-ci"')));
    assert.deepEqual(await figures(sql, "flaky-ci"), row);
  },
);

dbTest("a bad point is refused with its line, and nothing is written", async ({ sql }, t) => {
  await loadFixture(sql);
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ["unknown theme", { theme: "nope", date: "2026-11-02", mentions: 1 }, /Unknown theme "nope"/],
    ["impossible date", { theme: "flaky-ci", date: "2026-02-30", mentions: 1 }, /date/],
    ["not a date", { theme: "flaky-ci", date: "last week", mentions: 1 }, /date/],
    ["far future", { theme: "flaky-ci", date: "2099-01-05", mentions: 1 }, /week ahead/],
    ["negative", { theme: "flaky-ci", date: "2026-11-02", mentions: -1 }, /mentions/],
    ["fraction", { theme: "flaky-ci", date: "2026-11-02", mentions: 1.5 }, /mentions/],
    ["missing mentions", { theme: "flaky-ci", date: "2026-11-02" }, /mentions" is missing/],
  ];
  for (const [what, record, message] of cases) {
    await t.step(what, async () => {
      const lines = [
        ...weeklyLines("flaky-ci", [1, 2]),
        JSON.stringify({ type: "theme_mentions", ...record }),
      ];
      await assert.rejects(importLines(sql, lines), (error: unknown) => {
        assert.ok(error instanceof ImportError);
        assert.equal(error.line, 3);
        assert.match(error.message, message);
        return true;
      });
      const [{ n }] = await sql`select count(*)::int as n from theme_mentions`;
      assert.equal(n, 0);
    });
  }
});

dbTest("each status change is recorded once", async ({ sql }) => {
  await loadFixture(sql);
  const flat = STEADY.map(() => 100);
  await importLines(sql, weeklyLines("invoice-chasing", flat));
  await importLines(sql, weeklyLines("invoice-chasing", flat));
  await importLines(sql, weeklyLines("invoice-chasing", [...flat.slice(4), 200, 220, 240, 260]));
  await importLines(sql, weeklyLines("invoice-chasing", [...flat.slice(4), 200, 220, 240, 260]));
  const changes = await sql<{ from_status: string | null; to_status: string }[]>`
    select c.from_status, c.to_status from theme_status_changes c
    join themes t on t.id = c.theme_id where t.slug = 'invoice-chasing' order by c.id`;
  assert.deepEqual(changes.map((c) => [c.from_status, c.to_status]), [
    [null, "steady"],
    ["steady", "rising"],
  ]);
});
