/**
 * A real browser on another origin calls the API with fetch: the preflight for X-API-Key passes,
 * the JSON arrives, and the quota headers are readable from script. Runs in Debian's headless
 * Chromium (installed by .ci/run); without it the test is ignored with a warning.
 */
import assert from "node:assert/strict";
import { loadFixture, makeKey, testApp } from "../helpers/app.ts";
import { withTestDb } from "../helpers/db.ts";
import { CHROMIUM, hasChromium, launchChromium } from "../helpers/browser.ts";

if (!hasChromium) console.warn(`Skipping the CORS browser test: ${CHROMIUM} is missing`);

Deno.test({
  name: "a browser page on another origin can fetch the API with X-API-Key",
  ignore: !hasChromium,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withTestDb("postgres", async (db) => {
      await loadFixture(db.sql);
      const { key } = await makeKey(db.sql, "pro");
      const app = testApp(db);
      const api = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, app.handler);
      // The page's origin: another port is another origin.
      const page = Deno.serve(
        { hostname: "127.0.0.1", port: 0, onListen: () => {} },
        () =>
          new Response("<!doctype html><title>elsewhere</title>", {
            headers: { "Content-Type": "text/html" },
          }),
      );
      const browser = await launchChromium();
      try {
        const tab = await browser.context.newPage();
        await tab.goto(`http://127.0.0.1:${page.addr.port}/`);
        const apiBase = `http://localhost:${api.addr.port}`;
        const seen = await tab.evaluate(async ([base, apiKey]) => {
          const res = await fetch(`${base}/api/v1/opportunities?page_size=2`, {
            headers: { "X-API-Key": apiKey },
          });
          const body = await res.json();
          return {
            status: res.status,
            items: body.items.length,
            total: body.total,
            remaining: res.headers.get("X-Quota-Remaining"),
          };
        }, [apiBase, key]);
        assert.deepEqual(seen, { status: 200, items: 2, total: 5, remaining: "999" });
        const preflights = app.logs.filter((e) => e.method === "OPTIONS");
        assert.equal(preflights.length, 1, "the browser sent a preflight for X-API-Key");
        assert.equal(preflights[0].status, 204);
      } finally {
        await browser.close();
        await api.shutdown();
        await page.shutdown();
      }
    }),
});
