/**
 * The front door in headless Chromium (Debian's /usr/bin/chromium, driven by playwright-core):
 * the home page, the API reference and an article at desktop and phone widths, each screenshot
 * into a temporary folder (its path is printed) and checked by axe-core, injected into the page,
 * for violations of impact serious or critical; every request stays on our origin and no console
 * error (a CSP violation shows as one) occurs. On /docs, "Try it out" with a key sends it in
 * X-API-Key, and the key is found in no storage afterwards. Skipped without Chromium.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { buildHandler } from "../../main.ts";
import { readConfig } from "../../src/platform/config.ts";
import { loadFixture, makeKey } from "../helpers/app.ts";
import { axeViolations, CHROMIUM, hasChromium, launchChromium } from "../helpers/browser.ts";
import { ENGINES, type TestDb, withTestDb } from "../helpers/db.ts";

if (!hasChromium) {
  console.warn(`Skipping the front-door browser test: ${CHROMIUM} is missing`);
}

const WIDTHS = [{ name: "desktop", width: 1280, height: 900 }, {
  name: "phone",
  width: 375,
  height: 812,
}];

/** A server on a free loopback port running the composed service on `db`. */
function serve(db: TestDb) {
  let handler: (request: Request) => Promise<Response> = () =>
    Promise.resolve(new Response(null, { status: 503 }));
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request) => handler(request),
  );
  const base = `http://127.0.0.1:${server.addr.port}`;
  const config = readConfig({ DATA_DIR: "memory://", PUBLIC_BASE_URL: base });
  handler = buildHandler(db.database, config, { log: () => {} });
  return { base, server };
}

/** Watches a page for requests to other origins and for console errors. */
function watch(page: Page, base: string): string[] {
  const problems: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(`console: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`page error: ${e}`));
  page.on("request", (r) => {
    if (!r.url().startsWith(`${base}/`)) problems.push(`request to another origin: ${r.url()}`);
  });
  page.on("response", (r) => {
    if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
  });
  return problems;
}

Deno.test({
  name: "browser: /, /docs/api and an article at two widths: screenshots, axe, nothing external",
  ignore: !hasChromium,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withTestDb(ENGINES[0], async (db) => {
      await loadFixture(db.sql);
      const { base, server } = serve(db);
      const shots = await Deno.makeTempDir({ prefix: "oi-front-screenshots-" });
      console.log(`Screenshots in ${shots}`);
      const browser = await launchChromium();
      const page = browser.context.pages()[0] ?? await browser.context.newPage();
      const problems = watch(page, base);
      try {
        for (const { name, width, height } of WIDTHS) {
          await page.setViewportSize({ width, height });
          for (
            const [label, path, ready] of [
              ["home", "/", "#home-title"],
              ["docs", "/docs/api", ".opblock"],
              ["article", "/blog/ci-analysis", "article h1"],
            ]
          ) {
            await page.goto(base + path);
            await page.waitForSelector(ready);
            await page.screenshot({ path: `${shots}/${label}-${name}.png`, fullPage: true });
            assert.deepEqual(await axeViolations(page), [], `${path} at ${width} px`);
          }
          // Nothing is wider than the screen: the phone layout does not scroll sideways.
          await page.goto(`${base}/`);
          const overflow = await page.evaluate(
            "document.documentElement.scrollWidth - document.documentElement.clientWidth",
          );
          assert.equal(overflow, 0, `/ fits ${width} px`);
        }
        assert.deepEqual(problems, []);
      } finally {
        await browser.close();
        await server.shutdown();
      }
    }),
});

Deno.test({
  name: "browser: /docs/api tries an endpoint with the reader's key and stores the key nowhere",
  ignore: !hasChromium,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withTestDb(ENGINES[0], async (db) => {
      await loadFixture(db.sql);
      const { key } = await makeKey(db.sql, "free");
      const { base, server } = serve(db);
      const browser = await launchChromium({ viewport: { width: 1280, height: 900 } });
      const page = browser.context.pages()[0] ?? await browser.context.newPage();
      const problems = watch(page, base);
      const sent: { url: string; key: string | undefined }[] = [];
      page.on("request", (r) => sent.push({ url: r.url(), key: r.headers()["x-api-key"] }));
      try {
        await page.goto(`${base}/docs/api`);
        await page.waitForSelector(".opblock");
        assert.equal(await page.locator("button.btn.authorize.unlocked").count(), 1);

        // Authorize with the key in the header scheme, then close the dialog.
        await page.click("button.btn.authorize");
        const dialog = page.locator(".auth-container").filter({ hasText: "ApiKeyHeader" });
        await dialog.locator("input").fill(key);
        assert.deepEqual(await axeViolations(page), [], "with the Authorize dialog open");
        await dialog.locator("button.authorize").click();
        await page.locator("button.btn-done").first().click();
        assert.equal(await page.locator("button.btn.authorize.locked").count(), 1);
        assert.deepEqual(await axeViolations(page), [], "after authorizing");

        // Try GET /api/v1/overview.
        // Swagger UI names an operation by its tag and operationId (the tags of openapi_tags.ts).
        const op = page.locator('[id^="operations-"][id$="-getOverview"]');
        await op.locator(".opblock-summary-control").click();
        await op.locator("button.try-out__btn").click();
        await op.locator("button.execute").click();
        await op.locator(".live-responses-table .response .response-col_status").first().waitFor();
        assert.equal(
          (await op.locator(".live-responses-table .response .response-col_status").first()
            .textContent())
            ?.trim(),
          "200",
        );
        const call = sent.find((r) => r.url === `${base}/api/v1/overview`);
        assert.equal(call?.key, key, "the key travels in X-API-Key");
        assert.deepEqual(await axeViolations(page), [], "with a tried operation");

        // The key is in no storage the page or the browser keeps.
        const stored: Record<string, string> = await page.evaluate(`(async () => ({
          local: JSON.stringify(Object.entries(localStorage)),
          session: JSON.stringify(Object.entries(sessionStorage)),
          cookie: document.cookie,
          indexedDb: JSON.stringify(await indexedDB.databases()),
          caches: JSON.stringify(await caches.keys()),
        }))()`);
        for (const [where, value] of Object.entries(stored)) {
          assert.ok(!value.includes(key), `the key is not in ${where}`);
        }
        assert.equal(stored.local, "[]", "nothing in localStorage");
        assert.equal(stored.session, "[]", "nothing in sessionStorage");
        assert.deepEqual(await browser.context.cookies(), [], "no cookie");

        // A reload forgets it.
        await page.reload();
        await page.waitForSelector(".opblock");
        assert.equal(await page.locator("button.btn.authorize.unlocked").count(), 1);
        assert.deepEqual(problems, []);
      } finally {
        await browser.close();
        await server.shutdown();
      }
    }),
});
