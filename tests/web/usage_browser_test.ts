/**
 * The dashboard's usage section in headless Chromium: the SVG chart of calls per day (a
 * screenshot goes to test-artifacts/web-usage-chart.png), its table alternative, the per-key
 * totals and the 80% and 100% banners. Skipped without Chromium, like browser_test.ts.
 */
import assert from "node:assert/strict";
import { storeToken } from "../../src/accounts/sessions.ts";
import { createApiKey } from "../../src/accounts/api_keys.ts";
import { hashToken, randomToken } from "../../src/web/security.ts";
import { makeKey, setUsed } from "../helpers/app.ts";
import { ENGINES, withTestDb } from "../helpers/db.ts";
import { hasChromium, launchChromium } from "../helpers/browser.ts";
import { webTestApp } from "../helpers/web.ts";

const ARTIFACTS = new URL("../../test-artifacts/", import.meta.url);

Deno.test({
  name: "browser: the usage chart, its table alternative, per-key totals and the banners",
  ignore: !hasChromium,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withTestDb(ENGINES[0], async (db) => {
      await Deno.mkdir(ARTIFACTS, { recursive: true });
      const server = Deno.serve(
        { hostname: "127.0.0.1", port: 0, onListen: () => {} },
        (request) => app.handler(request),
      );
      const base = `http://127.0.0.1:${server.addr.port}`;
      const app = webTestApp(db, { base });
      const { keyId, accountId, email } = await makeKey(db.sql, "free");
      const other = await createApiKey(db.sql, { email, name: "agent" });
      // Calls on known days of this month: key "test" on REST, key "agent" on MCP.
      const now = new Date();
      const day = (d: number) => `${now.toISOString().slice(0, 8)}${String(d).padStart(2, "0")}`;
      const today = now.getUTCDate();
      const plan: [number, number, "rest" | "mcp", number][] = [
        [1, keyId, "rest", 3],
        [1, other.id, "mcp", 2],
        [Math.min(2, today), keyId, "rest", 4],
        [today, other.id, "mcp", 8],
      ];
      for (const [d, key, surface, calls] of plan) {
        await db.sql`
          insert into usage_daily (account_id, key_id, surface, day, calls)
          values (${accountId}, ${key}, ${surface}, ${day(d)}, ${calls})
          on conflict (account_id, day, key_id, surface) do update
            set calls = usage_daily.calls + excluded.calls`;
      }
      await setUsed(db.sql, accountId, 17);
      const perDay = new Map<string, number>();
      for (const [d, , , calls] of plan) perDay.set(day(d), (perDay.get(day(d)) ?? 0) + calls);

      const browser = await launchChromium({ viewport: { width: 900, height: 900 } });
      const page = browser.context.pages()[0] ?? await browser.context.newPage();
      const problems: string[] = [];
      page.on("console", (m) => {
        if (m.type() === "error") problems.push(m.text());
      });
      page.on("pageerror", (e) => problems.push(String(e)));
      try {
        const token = randomToken();
        await storeToken(db.sql, {
          hash: await hashToken(token),
          accountId,
          purpose: "signin",
          ttlSeconds: 600,
        });
        await page.goto(`${base}/account/link?token=${token}`);
        await page.click("button:has-text('Sign in')");
        await page.waitForSelector("#usage-chart");

        // The chart: one bar per day so far, drawn by the server (the page has no script).
        assert.equal(await page.locator("script").count(), 0);
        assert.equal(await page.locator("#usage-chart rect.bar").count(), today);
        assert.equal(await page.locator("#usage-chart").getAttribute("role"), "img");
        const box = await page.locator("#usage-chart").boundingBox();
        assert.ok(
          box && box.width > 300 && box.height > 60,
          `chart is drawn: ${JSON.stringify(box)}`,
        );
        const tallest = await page.locator("#usage-chart rect.bar").evaluateAll((bars) =>
          Math.max(...bars.map((b) => Number(b.getAttribute("height"))))
        );
        assert.ok(tallest > 50, "the busiest day has a tall bar");
        await page.locator("#usage-detail").screenshot({
          path: new URL("web-usage-chart.png", ARTIFACTS).pathname,
        });

        // The table alternative holds the same numbers, one row per day.
        await page.click("text=Calls per day as a table");
        const rows = await page.locator("#usage-days tbody tr").evaluateAll((trs) =>
          trs.map((
            tr,
          ) => [
            tr.querySelector("th")!.textContent!.trim(),
            tr.querySelector("td")!.textContent!.trim(),
          ])
        );
        assert.equal(rows.length, today);
        for (const [date, calls] of rows) assert.equal(Number(calls), perDay.get(date) ?? 0, date);
        const described = await page.locator("#usage-chart").getAttribute("aria-describedby");
        assert.equal(
          await page.locator(`#${described}`).count(),
          1,
          "the chart points at the table",
        );

        // Per key and per surface.
        const keys = await page.locator("#usage-keys tbody tr").evaluateAll((trs) =>
          trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent!.trim()))
        );
        const agentCalls = plan.filter((p) => p[1] === other.id).reduce((n, p) => n + p[3], 0);
        const testCalls = plan.filter((p) => p[1] === keyId).reduce((n, p) => n + p[3], 0);
        assert.deepEqual(
          keys.map((k) => [k[0], Number(k[2])]).sort(),
          [
            ["agent", agentCalls],
            ["test", testCalls],
          ].sort(),
        );
        assert.match(
          await page.locator("#usage-surfaces").textContent() ?? "",
          new RegExp(`REST API: ${testCalls} calls; MCP tools:\\s+${agentCalls} calls`),
        );

        // 17 of 20 is past 80%: a warning; 20 of 20: an alert.
        assert.equal(await page.locator("#usage-banner").getAttribute("data-level"), "80");
        assert.match(await page.locator("#usage-banner").textContent() ?? "", /85% of this month/);
        await page.screenshot({
          path: new URL("web-usage-dashboard.png", ARTIFACTS).pathname,
          fullPage: true,
        });
        await setUsed(db.sql, accountId, 20);
        await page.goto(`${base}/account`);
        assert.equal(await page.locator("#usage-banner").getAttribute("data-level"), "100");
        assert.equal(await page.locator("#usage-banner").getAttribute("role"), "alert");
        await setUsed(db.sql, accountId, 15);
        await page.goto(`${base}/account`);
        assert.equal(await page.locator("#usage-banner").count(), 0, "no banner below 80%");

        assert.deepEqual(problems, [], "no console errors (a CSP violation would show here)");
      } finally {
        await browser.close();
        await server.shutdown();
      }
    }),
});
