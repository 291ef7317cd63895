/**
 * The public pages this change adds, in headless Chromium at 1280 and 375 px: an opportunity's
 * page (reached as a reader would, through its `url` in the API), a documentation page and the
 * documentation's index. Each: axe-core finds no serious or critical violation, the HTML the
 * browser received is valid, nothing is wider than the screen, no request leaves the origin and
 * no console error occurs. On the opportunity page: no paid field of its record (values written
 * only for this test) anywhere in the HTML, and canonical and Open Graph tags naming its url.
 * Skipped without Chromium.
 */
import assert from "node:assert/strict";
import { HtmlValidate } from "html-validate";
import { loadFixture, makeKey } from "../helpers/app.ts";
import { axeViolations, CHROMIUM, hasChromium, launchChromium } from "../helpers/browser.ts";
import { ENGINES, withTestDb } from "../helpers/db.ts";
import { serveOnPort } from "../helpers/web.ts";
import { PAID, paidIn, writePaidFields } from "../helpers/paid_fields.ts";

if (!hasChromium) {
  console.warn(`Skipping the opportunity page browser test: ${CHROMIUM} is missing`);
}

const WIDTHS = [{ width: 1280, height: 900 }, { width: 375, height: 812 }];

Deno.test({
  name: "browser: an opportunity page and the docs at 1280 and 375 px: axe, valid, no paid field",
  ignore: !hasChromium,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withTestDb(ENGINES[0], async (db) => {
      const ids = await loadFixture(db.sql);
      await writePaidFields(db.sql, ids["opp-1"]);
      const served = serveOnPort(db);
      const { key } = await makeKey(db.sql, "free");
      const detail = await (await fetch(`${served.base}/api/v1/opportunities/${ids["opp-1"]}`, {
        headers: { "X-API-Key": key },
      })).json();
      assert.ok(paidIn(JSON.stringify(detail)).length > 0, "the record holds the paid values");
      const browser = await launchChromium();
      const page = browser.context.pages()[0] ?? await browser.context.newPage();
      const problems: string[] = [];
      page.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
      page.on("pageerror", (e) => problems.push(`page error: ${e}`));
      page.on("request", (r) => {
        if (!r.url().startsWith(`${served.base}/`)) problems.push(`elsewhere: ${r.url()}`);
      });
      const validator = new HtmlValidate({ extends: ["html-validate:recommended"] });
      try {
        for (const { width, height } of WIDTHS) {
          await page.setViewportSize({ width, height });
          for (const url of [detail.url, `${served.base}/docs/mcp`, `${served.base}/docs`]) {
            const response = await page.goto(url);
            assert.equal(response?.status(), 200, url);
            const received = await response!.text();
            const where = `${url} at ${width} px`;
            assert.deepEqual(await axeViolations(page), [], where);
            const report = await validator.validateString(received);
            assert.equal(report.valid, true, `${where}: ${JSON.stringify(report.results)}`);
            const overflow = await page.evaluate(
              "document.documentElement.scrollWidth - document.documentElement.clientWidth",
            );
            assert.equal(overflow, 0, `${where}: fits the screen`);
            if (url !== detail.url) continue;
            assert.deepEqual(paidIn(received), [], `${where}: no paid field in the HTML`);
            assert.deepEqual(paidIn(await page.content()), [], `${where}: nor in the DOM`);
            assert.equal(
              await page.getAttribute('link[rel="canonical"]', "href"),
              detail.url,
            );
            for (const [property, value] of [["og:url", detail.url], ["og:title", detail.title]]) {
              assert.equal(
                await page.getAttribute(`meta[property="${property}"]`, "content"),
                value,
                property,
              );
            }
            assert.ok(await page.getAttribute('meta[property="og:description"]', "content"));
            assert.equal(await page.textContent("h1"), detail.title);
          }
        }
        assert.deepEqual(problems, []);
        assert.ok(Object.keys(PAID).length >= 6);
      } finally {
        await browser.close();
        await served.close();
      }
    }),
});
