/**
 * An upgrade as a customer makes it, in headless Chromium: the dashboard's "Upgrade to Pro" button
 * leads to the Checkout page of the local Stripe stand-in (tests/helpers/stripe_server.ts), paying
 * there brings the browser back to the dashboard, which shows Pro at once (before any webhook),
 * and the next API call is held to 1,000. The webhooks that follow change nothing more; Billing
 * opens the portal page and its link comes back. axe-core finds no serious or critical violation
 * on the dashboard before and after. Runs on PostgreSQL when it is among the engines. Skipped
 * without Chromium.
 */
import assert from "node:assert/strict";
import AXE_SOURCE from "axe-core/axe.min.js" with { type: "text" };
import type { Page } from "playwright-core";
import { storeToken } from "../../src/accounts/sessions.ts";
import { findAccountByEmail } from "../../src/accounts/accounts.ts";
import { hashToken, randomToken } from "../../src/web/security.ts";
import { makeKey } from "../helpers/app.ts";
import { ENGINES, withTestDb } from "../helpers/db.ts";
import { hasChromium, launchChromium } from "../helpers/browser.ts";
import { webTestApp } from "../helpers/web.ts";
import { startLocalStripe } from "../helpers/stripe_server.ts";

const ARTIFACTS = new URL("../../test-artifacts/", import.meta.url);

/** The serious and critical axe-core violations of the page, one line each. */
async function axeViolations(page: Page): Promise<string[]> {
  if (!await page.evaluate(() => "axe" in globalThis)) await page.evaluate(AXE_SOURCE);
  const violations: { id: string; impact: string | null; nodes: { html: string }[] }[] = await page
    .evaluate(
      `axe.run(document, { resultTypes: ["violations"] }).then((r) => r.violations)`,
    );
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.impact} ${v.id}: ${v.nodes[0]?.html}`);
}

Deno.test({
  name: "browser: upgrade to Pro through Checkout, back on the dashboard as Pro at once",
  ignore: !hasChromium,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withTestDb(ENGINES.includes("postgres") ? "postgres" : ENGINES[0], async (db) => {
      await Deno.mkdir(ARTIFACTS, { recursive: true });
      const stripe = await startLocalStripe();
      const server = Deno.serve(
        { hostname: "127.0.0.1", port: 0, onListen: () => {} },
        (request) => app.handler(request),
      );
      const base = `http://127.0.0.1:${server.addr.port}`;
      const app = webTestApp(db, { base, env: stripe.env });
      const { key, accountId, email } = await makeKey(db.sql, "free");
      const limit = async () => {
        const response = await app.handler(
          new Request(`${base}/api/v1/usage`, { headers: { "X-API-Key": key } }),
        );
        await response.body?.cancel();
        return Number(response.headers.get("x-quota-limit"));
      };
      const browser = await launchChromium({ viewport: { width: 1000, height: 900 } });
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
        await page.waitForSelector("#upgrade-pro");
        assert.equal(await page.locator("#current-plan").textContent(), "Free");
        assert.equal(await limit(), 20);
        assert.deepEqual(await axeViolations(page), [], "dashboard on Free");
        await page.locator("#usage-title").locator("..").screenshot({
          path: new URL("web-billing-free.png", ARTIFACTS).pathname,
        });

        // The button: a form POST answered with a redirect to Checkout (another origin).
        await page.click("#upgrade-pro");
        await page.waitForURL(`${stripe.base}/checkout/**`);
        assert.equal(await page.locator("#amount").textContent(), "20 USD a month");
        assert.equal(stripe.sessions.size, 1);
        const [session] = [...stripe.sessions.values()];
        assert.equal(session.client_reference_id, String(accountId));

        // Paying brings the browser back; the dashboard reads the session and shows Pro.
        await page.click("#pay");
        await page.waitForURL(`${base}/account?checkout=*`);
        assert.equal(await page.locator("#current-plan").textContent(), "Pro");
        assert.match(
          await page.locator("[role=status]").first().textContent() ?? "",
          /you are on the Pro plan now/,
        );
        assert.equal(await limit(), 1000, "the next call is held to Pro's limit");
        assert.equal((await findAccountByEmail(db.sql, email))!.plan, "pro");
        assert.match(await page.locator("#billing-renewal").textContent() ?? "", /renews on/);
        assert.deepEqual(await axeViolations(page), [], "dashboard on Pro");
        await page.locator("#usage-title").locator("..").screenshot({
          path: new URL("web-billing-pro.png", ARTIFACTS).pathname,
        });

        // The webhooks Stripe sends meanwhile are applied and change nothing more.
        for (const event of stripe.events) {
          const signed = await stripe.signed(event);
          const response = await app.handler(
            new Request(`${base}/billing/webhook`, {
              method: "POST",
              headers: { "Stripe-Signature": signed.signature },
              body: signed.body,
            }),
          );
          assert.equal(response.status, 200);
          await response.body?.cancel();
        }
        assert.equal(await limit(), 1000);

        // Billing opens the portal; its link comes back to the dashboard.
        await page.click("#billing-portal");
        await page.waitForURL(`${stripe.base}/portal/**`);
        await page.click("#portal-return");
        await page.waitForURL(`${base}/account`);
        assert.equal(await page.locator("#current-plan").textContent(), "Pro");
        assert.deepEqual(problems, [], "no console errors (a CSP violation would show here)");
      } finally {
        await browser.close();
        await server.shutdown();
        await stripe.close();
      }
    }),
});
