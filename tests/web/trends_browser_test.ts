/**
 * The Trends page of the account area and the theme chart of a public opportunity page, in
 * headless Chromium at 1280 and 375 px: axe-core finds no serious or critical violation, the
 * HTML is valid, nothing is wider than the screen, no script; each chart is an SVG image named
 * by its title whose table (behind "The numbers") holds the same 26 weeks as the API's
 * weekly_mentions. A screenshot goes to test-artifacts/web-trends-*.png. Skipped without Chromium.
 */
import assert from "node:assert/strict";
import { HtmlValidate } from "html-validate";
import { storeToken } from "../../src/accounts/sessions.ts";
import { importLines } from "../../src/ingest/import.ts";
import { hashToken, randomToken } from "../../src/web/security.ts";
import { loadFixture, makeKey } from "../helpers/app.ts";
import { axeViolations, CHROMIUM, hasChromium, launchChromium } from "../helpers/browser.ts";
import { ENGINES, withTestDb } from "../helpers/db.ts";
import { serveOnPort } from "../helpers/web.ts";
import { DECLINING, RISING, STEADY, weeklyLines } from "../helpers/trends.ts";

if (!hasChromium) console.warn(`Skipping the trends browser test: ${CHROMIUM} is missing`);

const ARTIFACTS = new URL("../../test-artifacts/", import.meta.url);
const WIDTHS = [{ width: 1280, height: 900 }, { width: 375, height: 812 }];

Deno.test({
  name: "browser: the Trends page and an opportunity's theme chart at 1280 and 375 px",
  ignore: !hasChromium,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withTestDb(ENGINES[0], async (db) => {
      await Deno.mkdir(ARTIFACTS, { recursive: true });
      const ids = await loadFixture(db.sql);
      await importLines(db.sql, [
        ...weeklyLines("flaky-ci", RISING),
        ...weeklyLines("legacy-docs", DECLINING),
        ...weeklyLines("invoice-chasing", STEADY),
      ]);
      const served = serveOnPort(db);
      const { key, accountId } = await makeKey(db.sql, "pro");
      const [{ id: themeId }] = await db.sql`select id from themes where slug = 'flaky-ci'`;
      const theme = await (await fetch(`${served.base}/api/v1/themes/${themeId}`, {
        headers: { "X-API-Key": key },
      })).json();
      const weeks = theme.weekly_mentions.map((p: { start: string; mentions: number }) => [
        p.start,
        String(p.mentions),
      ]);
      assert.equal(weeks.length, 26);
      // opp-1 is of flaky-ci, and its title is short enough for html-validate's long-title.
      const oppId = ids["opp-1"];

      const browser = await launchChromium();
      const page = browser.context.pages()[0] ?? await browser.context.newPage();
      const problems: string[] = [];
      page.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
      page.on("pageerror", (e) => problems.push(`page error: ${e}`));
      const validator = new HtmlValidate({ extends: ["html-validate:recommended"] });
      try {
        const token = randomToken();
        await storeToken(db.sql, {
          hash: await hashToken(token),
          accountId,
          purpose: "signin",
          ttlSeconds: 600,
        });
        await page.goto(`${served.base}/account/link?token=${token}`);
        await page.click("button:has-text('Sign in')");
        await page.waitForSelector("a[href='/account/trends']");

        for (const { width, height } of WIDTHS) {
          await page.setViewportSize({ width, height });
          const pages = [
            [`${served.base}/account/trends`, `#chart-${themeId}`],
            [`${served.base}/account/trends?status=rising`, `#chart-${themeId}`],
            [`${served.base}/opportunities/${oppId}`, "#theme-chart"],
          ];
          for (const [url, chart] of pages) {
            const response = await page.goto(url);
            assert.equal(response?.status(), 200, url);
            const where = `${url} at ${width} px`;
            assert.deepEqual(await axeViolations(page), [], where);
            const report = await validator.validateString(await response!.text());
            assert.equal(report.valid, true, `${where}: ${JSON.stringify(report.results)}`);
            const overflow = await page.evaluate(
              "document.documentElement.scrollWidth - document.documentElement.clientWidth",
            );
            assert.equal(overflow, 0, `${where}: fits the screen`);
            assert.equal(await page.locator("script").count(), 0, where);

            // The chart: an SVG image with a title, drawn with a visible size.
            const svg = page.locator(`${chart} svg`);
            assert.equal(await svg.getAttribute("role"), "img", where);
            const title = await page.locator(`${chart} svg title`).textContent();
            assert.match(title ?? "", /Weekly mentions of Flaky CI pipelines/, where);
            const box = await svg.boundingBox();
            assert.ok(
              box && box.width > 250 && box.height > 60,
              `${where}: ${JSON.stringify(box)}`,
            );
            assert.equal(await page.locator(`${chart} svg path`).count(), 1, where);
            // Its table: the same weeks as the API.
            const table = await svg.getAttribute("aria-describedby");
            await page.click(`${chart} summary`);
            const rows = await page.locator(`#${table} tbody tr`).evaluateAll((trs) =>
              trs.map((tr) => [
                tr.querySelector("th")!.textContent!.trim(),
                tr.querySelector("td")!.textContent!.trim(),
              ])
            );
            assert.deepEqual(rows, weeks, where);
            await page.locator(chart).screenshot({
              path: new URL(`web-trends-${width}-${chart.slice(1)}.png`, ARTIFACTS)
                .pathname,
            });
          }
        }
        // The status filter: only rising themes on the rising page.
        await page.goto(`${served.base}/account/trends?status=declining`);
        const names = await page.locator("section.card h2").allTextContents();
        assert.deepEqual(names, ["Outdated internal docs"]);
        assert.deepEqual(problems, []);
      } finally {
        await browser.close();
        await served.close();
      }
    }),
});

Deno.test({
  name: "GET /account/trends signed out goes to the sign-in page",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withTestDb(ENGINES[0], async (db) => {
      const served = serveOnPort(db);
      try {
        const res = await fetch(`${served.base}/account/trends`, { redirect: "manual" });
        assert.equal(res.status, 303);
        assert.equal(res.headers.get("location"), "/account");
        await res.body?.cancel();
      } finally {
        await served.close();
      }
    }),
});
