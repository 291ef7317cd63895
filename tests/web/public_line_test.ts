/**
 * The line between public and paid about themes (docs/DECISIONS.md, the public line): the growth
 * windows up to 90 days follow from the 26 weeks a public page shows, so they are public, on the
 * theme's page, in the sitemap's pages and in the Free overview; the 1-year window, the full
 * history and lists by status stay paid, on every surface alike.
 */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { callTool, loadFixture, makeKey, testApp } from "../helpers/app.ts";
import { PAID_THEME, PUBLIC_THEME, writePaidThemeFields } from "../helpers/paid_fields.ts";

interface OverviewTheme {
  slug: string;
  growth: Record<"7d" | "30d" | "90d" | "1y", number | null>;
}

dbTest("growth up to 90 days is public, the 1-year window paid, on every surface", async (
  db,
  t,
) => {
  await loadFixture(db.sql);
  const [{ id }] = await db.sql`select id from themes where slug = 'flaky-ci'`;
  await writePaidThemeFields(db.sql, id);
  // The 30-day window is trend_change, generated from the 30-day counts.
  const [{ change }] = await db.sql<{ change: number }[]>`
    select trend_change::float8 as change from themes where id = ${id}`;
  const windows = { ...PUBLIC_THEME, trend_change: change };
  const app = testApp(db);

  await t.step("the theme's public page shows 7, 30 and 90 days, not the year", async () => {
    const res = await app.get("/themes/flaky-ci");
    assert.equal(res.status, 200);
    const page = await res.text();
    for (
      const value of [windows.growth_7d, windows.trend_change, windows.growth_90d]
    ) {
      assert.ok(page.includes(`+${value}%`), `${value} on the page`);
    }
    assert.ok(!page.includes(String(PAID_THEME.growth_1y)), "the 1-year window is paid");
    assert.match(page, /1 year/, "the page says what the Pro plan adds");
  });
  await t.step("the sitemap lists the theme's page", async () => {
    const xml = await (await app.get("/sitemap.xml")).text();
    assert.ok(xml.includes("<loc>https://oppintel.example/themes/flaky-ci</loc>"), xml);
  });
  for (const [plan, yearShown] of [["free", false], ["pro", true]] as const) {
    await t.step(
      `the overview for ${plan}: 7 to 90 days, the year ${yearShown ? "too" : "not"}`,
      async () => {
        const { key } = await makeKey(db.sql, plan);
        const rest = await app.get("/api/v1/overview", key);
        assert.equal(rest.status, 200);
        const tool = await callTool(app, key, "get_overview", {});
        for (const body of [await rest.json(), tool.structuredContent]) {
          const theme = (body.trending as OverviewTheme[]).find((x) => x.slug === "flaky-ci")!;
          assert.equal(theme.growth["7d"], PUBLIC_THEME.growth_7d);
          assert.equal(theme.growth["30d"], windows.trend_change);
          assert.equal(theme.growth["90d"], PUBLIC_THEME.growth_90d);
          assert.equal(theme.growth["1y"], yearShown ? PAID_THEME.growth_1y : null);
          if (!yearShown) assert.ok(!JSON.stringify(body).includes(String(PAID_THEME.growth_1y)));
        }
      },
    );
  }
  await t.step("the Pro theme call keeps every window", async () => {
    const { key: free } = await makeKey(db.sql, "free");
    assert.equal((await app.get(`/api/v1/themes/${id}`, free)).status, 403);
    const { key } = await makeKey(db.sql, "pro");
    const body = await (await app.get(`/api/v1/themes/${id}`, key)).json();
    assert.equal(body.theme.growth["1y"], PAID_THEME.growth_1y);
  });
});
