/**
 * What is public about themes (docs/DECISIONS.md, fourth phase): a theme's name, summary, status
 * and 26 weeks of mentions; lists by status and growth windows are Pro. /account/trends follows it:
 * a signed-in Free account sees no theme's growth nor a list, only what the Pro plan adds and where
 * to upgrade; a Pro account sees the themes with their windows.
 */
import assert from "node:assert/strict";
import { importLines } from "../../src/ingest/import.ts";
import { loadFixture } from "../helpers/app.ts";
import { ENGINES, withTestDb } from "../helpers/db.ts";
import { RISING, weeklyLines } from "../helpers/trends.ts";
import { Browser, signUp, webTestApp } from "../helpers/web.ts";

for (const engine of ENGINES) {
  Deno.test({
    name: `GET /account/trends shows theme lists to Pro and the upgrade to Free (${engine})`,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: () =>
      withTestDb(engine, async (db) => {
        await loadFixture(db.sql);
        await importLines(db.sql, weeklyLines("flaky-ci", RISING));
        const app = webTestApp(db);
        const browser = new Browser(app);
        await signUp(browser, "trends-free@example.com");

        const free = await browser.get("/account/trends?status=rising");
        assert.equal(free.response.status, 200);
        assert.match(free.text, /need the Pro plan; you are on Free/);
        assert.match(free.text, /href="\/account#usage-title"/);
        assert.doesNotMatch(free.text, /Flaky CI pipelines/);
        assert.doesNotMatch(free.text, /<dt>90 days<\/dt>/);
        assert.doesNotMatch(free.text, /<svg/);

        await db.sql`update accounts set plan = 'pro' where email = 'trends-free@example.com'`;
        const pro = await browser.get("/account/trends?status=rising");
        assert.equal(pro.response.status, 200);
        assert.match(pro.text, /Flaky CI pipelines/);
        assert.match(pro.text, /<dt>90 days<\/dt>/);
        assert.doesNotMatch(pro.text, /you are on Free/);
      }),
  });
}
