/**
 * One subscription per account, on both engines, against the local Stripe stand-in: opening
 * Checkout expires the account's earlier open session (also when many open at once), a second
 * subscription paid all the same is cancelled and refunded by the webhook's sync and logged,
 * and Checkout and portal sessions are rate-limited per account (429 with Retry-After).
 */
import assert from "node:assert/strict";
import { dbTest, type TestDb } from "../helpers/db.ts";
import { Browser, csrfIn, signUp, type WebTestApp, webTestApp } from "../helpers/web.ts";
import { type LocalStripe, startLocalStripe, type StripeEvent } from "../helpers/stripe_server.ts";
import { findAccountByEmail } from "../../src/accounts/accounts.ts";
import { SESSION_LIMIT } from "../../src/billing/billing.ts";

interface Customer {
  browser: Browser;
  email: string;
  accountId: number;
}

async function withStripe(
  db: TestDb,
  fn: (stripe: LocalStripe, app: WebTestApp) => Promise<void>,
): Promise<void> {
  const stripe = await startLocalStripe();
  try {
    await fn(stripe, webTestApp(db, { env: stripe.env }));
  } finally {
    await stripe.close();
  }
}

async function customer(app: WebTestApp, name: string, ip: string): Promise<Customer> {
  const browser = new Browser(app, ip);
  const email = `${name}-${crypto.randomUUID().slice(0, 6)}@example.com`;
  await signUp(browser, email);
  const account = (await findAccountByEmail(app.sql, email))!;
  return { browser, email, accountId: account.id };
}

/** Posts a billing form; returns the answer. */
async function post(who: Customer, action: "checkout" | "portal", plan?: string) {
  const page = await who.browser.get("/account");
  return await who.browser.post(`/account/billing/${action}`, {
    ...(plan ? { plan } : {}),
    csrf: csrfIn(page.text),
  });
}

async function openCheckout(who: Customer, plan: "pro" | "business"): Promise<string> {
  const answer = await post(who, "checkout", plan);
  assert.equal(answer.response.status, 303, answer.text.slice(0, 300));
  return answer.response.headers.get("location")!.split("/").at(-1)!;
}

async function deliverAll(app: WebTestApp, stripe: LocalStripe, events: StripeEvent[]) {
  for (const event of events) {
    const signed = await stripe.signed(event);
    const response = await app.handler(
      new Request(`${app.base}/billing/webhook`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "Stripe-Signature": signed.signature },
        body: signed.body,
      }),
    );
    const body = await response.json();
    assert.equal(response.status, 200, JSON.stringify(body));
  }
}

async function planOf(app: WebTestApp, who: Customer): Promise<string> {
  return (await findAccountByEmail(app.sql, who.email))!.plan;
}

dbTest("billing: opening Checkout expires the account's earlier open session", async (db, t) => {
  await withStripe(db, async (stripe, app) => {
    const ann = await customer(app, "ann", "192.0.2.31");
    const first = await openCheckout(ann, "pro");
    const second = await openCheckout(ann, "business");
    await t.step("the first session is expired through the API, the second stays open", () => {
      assert.deepEqual(stripe.expired, [first]);
      assert.equal(stripe.sessions.get(first)!.status, "expired");
      assert.equal(stripe.sessions.get(second)!.status, "open");
      assert.ok(stripe.requests.includes(`POST /v1/checkout/sessions/${first}/expire`));
    });
    await t.step("the first tab cannot be paid any more; the second can", async () => {
      assert.throws(() => stripe.completeCheckout(first), /expired/);
      await deliverAll(app, stripe, stripe.completeCheckout(second));
      assert.equal(await planOf(app, ann), "business");
      assert.equal(stripe.subscriptions.size, 1);
    });
    await t.step("of five Checkouts opened at once exactly one stays open", async () => {
      const bob = await customer(app, "bob", "192.0.2.32");
      const page = await bob.browser.get("/account");
      const csrf = csrfIn(page.text);
      const answers = await Promise.all(
        [1, 2, 3, 4, 5].map(() =>
          bob.browser.post("/account/billing/checkout", { plan: "pro", csrf })
        ),
      );
      const ids = answers.map((a) => {
        assert.equal(
          a.response.status,
          303,
          JSON.stringify(app.logs.filter((l) => l.level === "error").slice(-2)),
        );
        return a.response.headers.get("location")!.split("/").at(-1)!;
      });
      const open = ids.filter((id) => stripe.sessions.get(id)!.status === "open");
      assert.equal(
        open.length,
        1,
        JSON.stringify(ids.map((id) => stripe.sessions.get(id)!.status)),
      );
      assert.equal(ids.filter((id) => stripe.expired.includes(id)).length, 4);
    });
  });
});

dbTest(
  "billing: a second subscription paid all the same is cancelled, refunded and logged",
  async (db, t) => {
    await withStripe(db, async (stripe, app) => {
      const cat = await customer(app, "cat", "192.0.2.33");
      // Tab one is paid; before its webhook arrives, tab two opens (the first can no longer be
      // expired: it is complete) and is paid too.
      const first = await openCheckout(cat, "pro");
      const paidFirst = stripe.completeCheckout(first);
      const second = await openCheckout(cat, "business");
      const paidSecond = stripe.completeCheckout(second);
      const [kept, duplicate] = [...stripe.subscriptions.values()].map((s) => s.id);
      await t.step("the earlier session could not be expired: logged, not an error", () => {
        assert.deepEqual(stripe.expired, []);
        assert.ok(app.logs.some((l) => l.message === "earlier Checkout session not expired"));
      });
      await deliverAll(app, stripe, [...paidFirst, ...paidSecond]);
      await t.step("the second subscription is cancelled at once, without proration", () => {
        assert.equal(stripe.subscriptions.get(duplicate)!.status, "canceled");
        assert.equal(stripe.subscriptions.get(kept)!.status, "active");
        assert.deepEqual(stripe.cancellations, [
          { id: duplicate, prorate: "false", invoiceNow: "false" },
        ]);
      });
      await t.step("its payment is refunded in full, once", () => {
        const refunds = [...stripe.refunds.values()];
        assert.equal(refunds.length, 1);
        assert.equal(refunds[0].amount, 5000);
        assert.equal(refunds[0].reason, "duplicate");
        assert.deepEqual(refunds[0].metadata, {
          account_id: String(cat.accountId),
          subscription: duplicate,
        });
      });
      await t.step(
        "the account keeps the first subscription's plan, and it is logged",
        async () => {
          assert.equal(await planOf(app, cat), "pro");
          const line = app.logs.find((l) =>
            l.message === "second subscription of an account cancelled and refunded"
          );
          assert.ok(line, JSON.stringify(app.logs));
          assert.equal(line.account_id, cat.accountId);
          assert.equal(line.kept, kept);
          assert.equal(line.cancelled, duplicate);
          assert.equal(line.refunded_cents, 5000);
        },
      );
      await t.step("the cancellation's own event and deliveries again change nothing", async () => {
        const deleted = stripe.events.filter((e) =>
          e.type === "customer.subscription.deleted" && e.data.object.id === duplicate
        );
        assert.equal(deleted.length, 1);
        await deliverAll(app, stripe, deleted);
        const again = structuredClone(paidSecond).map((e) => ({ ...e, id: `${e.id}x` }));
        await deliverAll(app, stripe, again);
        assert.equal(await planOf(app, cat), "pro");
        assert.equal(stripe.refunds.size, 1);
        assert.equal(stripe.cancellations.length, 1);
        const { text } = await cat.browser.get("/account");
        assert.match(text, /<strong id="current-plan">Pro<\/strong>/);
      });
    });
  },
);

dbTest(
  "billing: Checkout and portal sessions are rate-limited per account (429, Retry-After)",
  async (db, t) => {
    await withStripe(db, async (stripe, app) => {
      const dan = await customer(app, "dan", "192.0.2.34");
      const eve = await customer(app, "eve", "192.0.2.34");
      const { limit, windowSeconds } = SESSION_LIMIT;
      for (let i = 0; i < limit; i++) {
        const answer = await post(dan, i % 2 === 0 ? "checkout" : "portal", "pro");
        assert.equal(answer.response.status, 303, `session ${i + 1}`);
      }
      const sessions = stripe.sessions.size;
      const requests = stripe.requests.length;
      for (const action of ["checkout", "portal"] as const) {
        await t.step(
          `one ${action} more is a 429 page with Retry-After, nothing made`,
          async () => {
            const answer = await post(dan, action, "business");
            assert.equal(answer.response.status, 429);
            assert.match(answer.response.headers.get("content-type")!, /text\/html/);
            const after = Number(answer.response.headers.get("retry-after"));
            assert.ok(after >= 1 && after <= windowSeconds, String(after));
            assert.match(answer.text, /Too many Checkout or Billing pages/);
            assert.match(answer.text, /Nothing was\s+charged/);
            assert.equal(stripe.sessions.size, sessions);
            assert.equal(stripe.requests.length, requests, "no call to Stripe");
          },
        );
      }
      await t.step("another account (same network) is not held by it", async () => {
        await openCheckout(eve, "pro");
      });
      await t.step("a refused form (no plan) is not counted", async () => {
        const answer = await post(eve, "checkout", "gold");
        assert.equal(answer.response.status, 422);
        const [row] = await db.sql`
          select coalesce(sum(hits), 0)::int as n from web_rate_limits
          where bucket = ${`billing:session:${eve.accountId}`}`;
        assert.equal(row.n, 1);
      });
    });
  },
);
