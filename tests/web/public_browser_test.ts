/**
 * The public catalogue in headless Chromium: every page (home, the catalogue with and without
 * filters, a theme, a category, an opportunity) at 1280 and 375 px has no serious or critical axe
 * violation, valid HTML, no script, nothing wider than the screen and no paid field; the blog's
 * tag pills are pills; and a visitor walks from `/` to an opportunity's page through the
 * catalogue and through a theme's page by clicking links, never receiving JSON. Screenshots go
 * to test-artifacts/web-public-*.png. Skipped without Chromium.
 */
import assert from "node:assert/strict";
import { HtmlValidate } from "html-validate";
import { importLines } from "../../src/ingest/import.ts";
import { loadFixture } from "../helpers/app.ts";
import { axeViolations, CHROMIUM, hasChromium, launchChromium } from "../helpers/browser.ts";
import { ENGINES, withTestDb } from "../helpers/db.ts";
import { serveOnPort } from "../helpers/web.ts";
import { publicLeaks, writePaidFields, writePaidThemeFields } from "../helpers/paid_fields.ts";
import { RISING, weeklyLines } from "../helpers/trends.ts";

if (!hasChromium) console.warn(`Skipping the public site browser test: ${CHROMIUM} is missing`);

const ARTIFACTS = new URL("../../test-artifacts/", import.meta.url);
const WIDTHS = [{ width: 1280, height: 900 }, { width: 375, height: 812 }];

Deno.test({
  name: "browser: the public catalogue at 1280 and 375 px, the tag pills, and a visitor's walk",
  ignore: !hasChromium,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withTestDb(ENGINES[0], async (db) => {
      await Deno.mkdir(ARTIFACTS, { recursive: true });
      const ids = await loadFixture(db.sql);
      await importLines(db.sql, weeklyLines("flaky-ci", RISING));
      await writePaidFields(db.sql, ids["opp-1"]);
      const [{ id: themeId }] = await db.sql`select id from themes where slug = 'flaky-ci'`;
      await writePaidThemeFields(db.sql, themeId);
      const served = serveOnPort(db);
      const browser = await launchChromium();
      const page = browser.context.pages()[0] ?? await browser.context.newPage();
      const problems: string[] = [];
      page.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
      page.on("pageerror", (e) => problems.push(`page error: ${e}`));
      // Every document the browser receives while walking: none may be JSON.
      const documents: { url: string; type: string }[] = [];
      page.on("response", (r) => {
        if (r.request().resourceType() === "document") {
          documents.push({ url: r.url(), type: r.headers()["content-type"] ?? "" });
        }
      });
      const validator = new HtmlValidate({ extends: ["html-validate:recommended"] });
      try {
        await t_pages();
        await t_pills();
        await t_walk();
        assert.deepEqual(problems, []);
      } finally {
        await browser.close();
        await served.close();
      }

      async function t_pages() {
        const paths = [
          "/",
          "/opportunities",
          "/opportunities?q=invoice&category=small-business",
          "/themes/flaky-ci",
          "/categories/developer-tools",
          `/opportunities/${ids["opp-1"]}/retry-aware-ci-dashboard-for-flaky-tests`,
        ];
        for (const { width, height } of WIDTHS) {
          await page.setViewportSize({ width, height });
          for (const path of paths) {
            const response = await page.goto(served.base + path);
            const where = `${path} at ${width} px`;
            assert.equal(response?.status(), 200, where);
            const received = await response!.text();
            assert.deepEqual(await axeViolations(page), [], where);
            const report = await validator.validateString(received);
            assert.equal(report.valid, true, `${where}: ${JSON.stringify(report.results)}`);
            const overflow = await page.evaluate(
              "document.documentElement.scrollWidth - document.documentElement.clientWidth",
            );
            assert.equal(overflow, 0, `${where}: fits the screen`);
            // The home page's only script is its copy buttons' (hidden without it).
            if (path !== "/") assert.equal(await page.locator("script").count(), 0, where);
            assert.deepEqual(publicLeaks(received), [], `${where}: no paid field in the HTML`);
            assert.deepEqual(publicLeaks(await page.content()), [], `${where}: nor in the DOM`);
            const name = path.replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "") || "home";
            await page.screenshot({
              path: new URL(`web-public-${width}-${name.slice(0, 40)}.png`, ARTIFACTS).pathname,
              fullPage: true,
            });
          }
        }
      }

      async function t_pills() {
        await page.setViewportSize(WIDTHS[0]);
        await page.goto(`${served.base}/blog`);
        assert.ok(await page.locator(".posts .tags li").count() > 0, "the fixture has tags");
        const style = await page.evaluate(`(() => {
          const s = getComputedStyle(document.querySelector(".posts .tags li"));
          return { padding: parseFloat(s.paddingTop), border: parseFloat(s.borderBottomWidth) };
        })()`) as { padding: number; border: number };
        // A pill: the tag's own small padding and no rule under it (not the article row's).
        assert.ok(style.padding < 4, `tag padding ${style.padding}px`);
        assert.equal(style.border, 0, "no row border under a tag");
      }

      async function t_walk() {
        await page.setViewportSize(WIDTHS[1]);
        documents.length = 0;
        // Through the catalogue: the home page's link, then the first opportunity.
        await page.goto(`${served.base}/`);
        await Promise.all([
          page.waitForURL(/\/opportunities$/),
          page.click("a[href='/opportunities']"),
        ]);
        await Promise.all([
          page.waitForURL(/\/opportunities\/\d+\/[a-z0-9-]+$/),
          page.click("#results-title ~ ul.opps a >> nth=0"),
        ]);
        assert.match(await page.locator("h1").textContent() ?? "", /Retry-aware CI dashboard/);
        // Through a theme: the opportunity's theme page, then its best opportunity.
        await Promise.all([
          page.waitForURL(/\/themes\/flaky-ci$/),
          page.click("dd a[href='/themes/flaky-ci']"),
        ]);
        await Promise.all([
          page.waitForURL(/\/opportunities\/\d+\/[a-z0-9-]+$/),
          page.click("#best-title ~ ul.opps a >> nth=1"),
        ]);
        assert.match(await page.locator("h1").textContent() ?? "", /Test quarantine bot/);
        // And the question box: a GET form whose answer is a page of its own.
        await page.goto(`${served.base}/`);
        await Promise.all([
          page.waitForURL(/\/opportunities$/),
          page.click("a[href='/opportunities']"),
        ]);
        await page.fill("#f-q", "invoice");
        await Promise.all([page.waitForURL(/q=invoice/), page.click("button[type=submit]")]);
        assert.match(await page.locator("#results-title").textContent() ?? "", /match "invoice"/);
        // The category of a theme, then back into the catalogue filtered by it.
        await page.goto(`${served.base}/themes/flaky-ci`);
        await Promise.all([
          page.waitForURL(/\/categories\/developer-tools$/),
          page.click("dd a[href='/categories/developer-tools']"),
        ]);
        assert.ok(documents.length >= 7, JSON.stringify(documents));
        for (const d of documents) assert.match(d.type, /^text\/html/, d.url);
      }
    }),
});
