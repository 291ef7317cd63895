/**
 * Returning from Checkout (`/account?checkout=cs_...`) reads Stripe only for the account's own
 * open session, and only a few times a minute: a made-up or another account's session id is
 * turned away before any call to Stripe, and reloading the return page cannot make the service
 * read Stripe once per request. Both engines, the real `stripe` library against the local
 * stand-in (tests/helpers/stripe_server.ts).
 */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { Browser, csrfIn, signUp, type WebTestApp, webTestApp } from "../helpers/web.ts";
import { startLocalStripe } from "../helpers/stripe_server.ts";
import { findAccountByEmail } from "../../src/accounts/accounts.ts";
import { RETURN_LIMIT } from "../../src/billing/billing.ts";

async function member(app: WebTestApp, name: string, ip: string): Promise<Browser> {
  const browser = new Browser(app, ip);
  await signUp(browser, `${name}-${crypto.randomUUID().slice(0, 6)}@example.com`);
  return browser;
}

async function openCheckout(browser: Browser): Promise<string> {
  const page = await browser.get("/account");
  const answer = await browser.post("/account/billing/checkout", {
    plan: "pro",
    csrf: csrfIn(page.text),
  });
  assert.equal(answer.response.status, 303);
  return answer.response.headers.get("location")!.split("/").at(-1)!;
}

dbTest("the return from Checkout reads Stripe for the account's own session, throttled", async (
  db,
  t,
) => {
  const stripe = await startLocalStripe();
  try {
    const app = webTestApp(db, { env: stripe.env });
    const reads = () => stripe.requests.filter((r) => r.startsWith("GET /v1/checkout/sessions/"));
    const ivy = await member(app, "ivy", "192.0.2.31");
    const hal = await member(app, "hal", "192.0.2.32");
    await openCheckout(ivy);
    const halSession = await openCheckout(hal);

    await t.step("40 returns with sessions not the account's: no read of Stripe", async () => {
      const before = reads().length;
      for (let i = 0; i < 20; i++) {
        const made = `cs_test_${crypto.randomUUID().replaceAll("-", "")}`;
        assert.equal((await ivy.get(`/account?checkout=${made}`)).response.status, 303);
        assert.equal((await ivy.get(`/account?checkout=${halSession}`)).response.status, 303);
      }
      assert.equal(reads().length, before);
    });
    await t.step("40 returns with its own session: at most the limit's reads", async () => {
      const own = await openCheckout(ivy);
      const before = reads().length;
      // The limit holds per fixed window of the database's clock: a loop that crosses into the
      // next window may read the limit once more.
      const window = async () => {
        const [row] = await app.sql<{ w: number }[]>`
          select floor(extract(epoch from clock_timestamp()) / ${RETURN_LIMIT.windowSeconds}::int)::int
            as w`;
        return row.w;
      };
      const first = await window();
      for (let i = 0; i < 40; i++) {
        const answer = await ivy.get(`/account?checkout=${own}`);
        assert.equal(answer.response.status, 200);
        assert.match(answer.text, /Stripe has not confirmed the payment yet/);
      }
      const windows = await window() - first + 1;
      const made = reads().length - before;
      assert.ok(
        made >= 1 && made <= RETURN_LIMIT.limit * windows,
        `${made} reads, ${windows} windows`,
      );
    });
    await t.step("the completed own session still applies at once", async () => {
      stripe.completeCheckout(halSession);
      const answer = await hal.get(`/account?checkout=${halSession}`);
      assert.equal(answer.response.status, 200);
      assert.match(answer.text, /you are on the Pro plan now/);
      const email = answer.text.match(/[\w.-]+@example\.com/)?.[0];
      if (email) assert.equal((await findAccountByEmail(app.sql, email))?.plan, "pro");
    });
  } finally {
    await stripe.close();
  }
});
