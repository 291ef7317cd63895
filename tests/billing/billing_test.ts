/**
 * Stripe Billing end to end on both engines, with the real `stripe` library talking to a local
 * stand-in for Stripe's API (tests/helpers/stripe_server.ts) and webhook events signed by the
 * library's test helper: upgrade through Checkout and webhooks, a switch up at once, a downgrade
 * and a cancellation at the end of the period, a failed payment then recovery or the end, the
 * same event twice, events out of order, forged and stale signatures, a session of one account
 * never changing another, and billing off without configuration.
 */
import assert from "node:assert/strict";
import { dbTest, type TestDb } from "../helpers/db.ts";
import { Browser, csrfIn, signUp, type WebTestApp, webTestApp } from "../helpers/web.ts";
import { type LocalStripe, startLocalStripe, type StripeEvent } from "../helpers/stripe_server.ts";
import { setUsed } from "../helpers/app.ts";
import { findAccountByEmail } from "../../src/accounts/accounts.ts";
import { createApiKey } from "../../src/accounts/api_keys.ts";
import type { Plan } from "../../src/platform/plans.ts";

interface Customer {
  browser: Browser;
  email: string;
  accountId: number;
  key: string;
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

async function customer(app: WebTestApp, name: string, ip = "192.0.2.10"): Promise<Customer> {
  const browser = new Browser(app, ip);
  const email = `${name}-${crypto.randomUUID().slice(0, 6)}@example.com`;
  await signUp(browser, email);
  const account = (await findAccountByEmail(app.sql, email))!;
  const key = (await createApiKey(app.sql, { email, name: "k" })).key;
  return { browser, email, accountId: account.id, key };
}

/** POSTs an event to the webhook as Stripe does; returns the status and body. */
async function deliver(
  app: WebTestApp,
  stripe: LocalStripe,
  event: StripeEvent,
  sign: { timestamp?: number; secret?: string; body?: string } = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const signed = await stripe.signed(event, sign);
  const response = await app.handler(
    new Request(`${app.base}/billing/webhook`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "Stripe-Signature": signed.signature },
      body: sign.body ?? signed.body,
    }),
  );
  assert.match(response.headers.get("content-type") ?? "", /application\/json/);
  return { status: response.status, body: await response.json() };
}

async function deliverAll(app: WebTestApp, stripe: LocalStripe, events: StripeEvent[]) {
  for (const event of events) {
    const answer = await deliver(app, stripe, event);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
  }
}

/** The plan and the limit the next API call is held to. */
async function planOf(app: WebTestApp, who: Customer): Promise<{ plan: Plan; limit: number }> {
  const response = await app.handler(
    new Request(`${app.base}/api/v1/usage`, { headers: { "X-API-Key": who.key } }),
  );
  assert.equal(response.status, 200);
  await response.body?.cancel();
  const account = (await findAccountByEmail(app.sql, who.email))!;
  return { plan: account.plan, limit: Number(response.headers.get("x-quota-limit")) };
}

/** Clicks "Upgrade to <plan>": the dashboard answers a redirect to the Checkout page. */
async function startCheckout(who: Customer, plan: "pro" | "business"): Promise<string> {
  const page = await who.browser.get("/account");
  const answer = await who.browser.post("/account/billing/checkout", {
    plan,
    csrf: csrfIn(page.text),
  });
  assert.equal(answer.response.status, 303);
  return answer.response.headers.get("location")!;
}

function sessionIdOf(checkoutUrl: string): string {
  return checkoutUrl.split("/").at(-1)!;
}

/** A customer on `plan` through Checkout and the webhooks; returns the subscription id. */
async function subscribed(
  app: WebTestApp,
  stripe: LocalStripe,
  who: Customer,
  plan: "pro" | "business",
): Promise<{ subscription: string; events: StripeEvent[] }> {
  const events = stripe.completeCheckout(sessionIdOf(await startCheckout(who, plan)));
  await deliverAll(app, stripe, events);
  const subscription = [...stripe.subscriptions.values()].at(-1)!.id;
  return { subscription, events };
}

dbTest(
  "billing: upgrade through Checkout and webhooks, the limit rising at once",
  async (db, t) => {
    await withStripe(db, async (stripe, app) => {
      const ann = await customer(app, "ann");
      await t.step("the dashboard offers Pro and Business with their prices", async () => {
        const { text } = await ann.browser.get("/account");
        assert.match(text, /Upgrade to Pro: 20 USD a month/);
        assert.match(text, /Upgrade to Business: 50 USD a month/);
        assert.match(text, /Pro: 1,000 calls a month, 20 USD a month/);
      });
      await t.step("the dashboard allows its forms to redirect to Checkout", async () => {
        const { response } = await ann.browser.get("/account");
        assert.match(
          response.headers.get("content-security-policy")!,
          /form-action 'self' http:\/\/127/,
        );
      });
      const checkout = await startCheckout(ann, "pro");
      await t.step("the button redirects to a Checkout session of the account's customer", () => {
        assert.ok(checkout.startsWith(`${stripe.base}/checkout/cs_`), checkout);
        const session = stripe.sessions.get(sessionIdOf(checkout))!;
        assert.equal(session.client_reference_id, String(ann.accountId));
        assert.equal(session.price, stripe.prices.pro);
        assert.equal(stripe.customers.size, 1);
      });
      await t.step("a second click reuses the customer", async () => {
        await startCheckout(ann, "business");
        assert.equal(stripe.customers.size, 1);
        assert.equal(stripe.requests.filter((r) => r === "POST /v1/customers").length, 1);
      });
      await t.step("nothing changes before Stripe says the payment went through", async () => {
        assert.deepEqual(await planOf(app, ann), { plan: "free", limit: 20 });
      });
      await t.step(
        "the webhooks make the account Pro: the next call's limit is 1,000",
        async () => {
          await setUsed(db.sql, ann.accountId, 15);
          // The second click expired the first session: only the newest one can be paid.
          const latest = await startCheckout(ann, "pro");
          await deliverAll(app, stripe, stripe.completeCheckout(sessionIdOf(latest)));
          assert.deepEqual(await planOf(app, ann), { plan: "pro", limit: 1000 });
          const { text } = await ann.browser.get("/account");
          assert.match(text, /<strong id="current-plan">Pro<\/strong>/);
          assert.match(text, /15<\/strong> of 1000 calls used/, "the month's calls stay");
          assert.match(text, /Your subscription renews on/);
          assert.match(text, /Last payment: paid/);
          assert.doesNotMatch(text, /Upgrade to Pro/);
          assert.match(text, /id="billing-portal"/);
        },
      );
      await t.step("a switch to Business in the portal takes effect at once", async () => {
        const subscription = [...stripe.subscriptions.values()][0].id;
        await setUsed(db.sql, ann.accountId, 900);
        await deliverAll(app, stripe, stripe.switchNow(subscription, stripe.prices.business));
        assert.deepEqual(await planOf(app, ann), { plan: "business", limit: 5000 });
        const { text } = await ann.browser.get("/account");
        assert.match(text, /900<\/strong> of 5000 calls used/);
      });
      await t.step("Billing opens the customer's portal", async () => {
        const page = await ann.browser.get("/account");
        const answer = await ann.browser.post("/account/billing/portal", {
          csrf: csrfIn(page.text),
        });
        assert.equal(answer.response.status, 303);
        assert.match(answer.response.headers.get("location")!, /\/portal\/bps_/);
      });
      await t.step("with a live subscription, an upgrade button leads to the portal", async () => {
        const location = await startCheckout(ann, "business");
        assert.match(location, /\/portal\/bps_/);
      });
    });
  },
);

dbTest("billing: a downgrade and a cancellation wait for the end of the period", async (db, t) => {
  await withStripe(db, async (stripe, app) => {
    const bob = await customer(app, "bob");
    const { subscription } = await subscribed(app, stripe, bob, "business");
    assert.equal((await planOf(app, bob)).plan, "business");
    await t.step(
      "a downgrade scheduled in the portal keeps Business until the period ends",
      async () => {
        await deliverAll(app, stripe, stripe.scheduleSwitch(subscription, stripe.prices.pro));
        assert.deepEqual(await planOf(app, bob), { plan: "business", limit: 5000 });
        const { text } = await bob.browser.get("/account");
        assert.match(text, /Your plan changes to Pro \(1,000 calls a month\) on <time/);
      },
    );
    await t.step("at the end of the period the account is Pro", async () => {
      await deliverAll(app, stripe, stripe.endPeriod(subscription));
      assert.deepEqual(await planOf(app, bob), { plan: "pro", limit: 1000 });
      const { text } = await bob.browser.get("/account");
      assert.match(text, /Your subscription renews on/);
    });
    await t.step("a cancellation keeps Pro until the end of the period", async () => {
      await deliverAll(app, stripe, stripe.cancelAtPeriodEnd(subscription));
      assert.deepEqual(await planOf(app, bob), { plan: "pro", limit: 1000 });
      const { text } = await bob.browser.get("/account");
      assert.match(text, /Your subscription is cancelled: it ends on <time/);
    });
    await t.step("when Stripe ends the subscription the account is Free", async () => {
      await deliverAll(app, stripe, stripe.endPeriod(subscription));
      assert.deepEqual(await planOf(app, bob), { plan: "free", limit: 20 });
      const { text } = await bob.browser.get("/account");
      assert.match(text, /Upgrade to Pro/, "a new subscription can be bought");
    });
  });
});

dbTest(
  "billing: a failed payment keeps the plan, mails the owner, then recovers",
  async (db, t) => {
    await withStripe(db, async (stripe, app) => {
      const cat = await customer(app, "cat");
      const { subscription } = await subscribed(app, stripe, cat, "pro");
      const mails = app.outbox.length;
      await t.step("the plan stays while Stripe retries; the owner gets one mail", async () => {
        await deliverAll(app, stripe, stripe.failPayment(subscription, 3));
        assert.deepEqual(await planOf(app, cat), { plan: "pro", limit: 1000 });
        assert.equal(app.outbox.length, mails + 1);
        const mail = app.outbox.at(-1)!;
        assert.equal(mail.to, cat.email);
        assert.match(mail.subject, /payment for the Pro plan failed/);
        assert.match(mail.text, /Stripe will try again on/);
        const { text } = await cat.browser.get("/account");
        assert.match(text, /Your last payment\s+failed. Stripe tries again on <time/);
      });
      await t.step("a successful retry shows the payment as paid, the plan unchanged", async () => {
        await deliverAll(app, stripe, stripe.recoverPayment(subscription));
        assert.deepEqual(await planOf(app, cat), { plan: "pro", limit: 1000 });
        const { text } = await cat.browser.get("/account");
        assert.match(text, /Last payment: paid/);
        assert.doesNotMatch(text, /Your last payment\s+failed/);
      });
    });
  },
);

dbTest(
  "billing: a failed payment then the end of retries drops the account to Free",
  async (db, t) => {
    await withStripe(db, async (stripe, app) => {
      const dan = await customer(app, "dan");
      const { subscription } = await subscribed(app, stripe, dan, "pro");
      await deliverAll(app, stripe, stripe.failPayment(subscription, 3));
      assert.equal((await planOf(app, dan)).plan, "pro");
      await t.step("when Stripe cancels after the last retry, the account is Free", async () => {
        await deliverAll(app, stripe, stripe.endAfterFailures(subscription));
        assert.deepEqual(await planOf(app, dan), { plan: "free", limit: 20 });
        assert.match(
          app.outbox.at(-1)!.text,
          /the subscription has ended: the account is on the Free/,
        );
        const { text } = await dan.browser.get("/account");
        assert.match(text, /Your subscription has ended after its payment failed/);
        assert.doesNotMatch(text, /role="alert"/);
        assert.match(text, /Upgrade to Pro/);
      });
    });
  },
);

dbTest("billing: the same event twice is applied once", async (db, t) => {
  await withStripe(db, async (stripe, app) => {
    const eve = await customer(app, "eve");
    const { subscription } = await subscribed(app, stripe, eve, "pro");
    const [failed] = stripe.failPayment(subscription, 3);
    const mails = app.outbox.length;
    const first = await deliver(app, stripe, failed);
    const second = await deliver(app, stripe, failed);
    await t.step("the second delivery answers 200 duplicate and sends no second mail", () => {
      assert.equal(first.status, 200);
      assert.equal(second.status, 200);
      assert.equal(second.body.outcome, "duplicate");
      assert.equal(app.outbox.length, mails + 1);
    });
  });
});

dbTest("billing: events out of order never undo a newer state", async (db, t) => {
  await withStripe(db, async (stripe, app) => {
    const fay = await customer(app, "fay");
    const checkout = await startCheckout(fay, "pro");
    const created = stripe.completeCheckout(sessionIdOf(checkout));
    const subscription = [...stripe.subscriptions.values()].at(-1)!.id;
    const switched = stripe.switchNow(subscription, stripe.prices.business);
    await t.step("the newest event first gives Business", async () => {
      await deliverAll(app, stripe, [...switched].reverse());
      assert.equal((await planOf(app, fay)).plan, "business");
    });
    await t.step("the older events arriving late leave Business", async () => {
      await deliverAll(app, stripe, [...created].reverse());
      assert.deepEqual(await planOf(app, fay), { plan: "business", limit: 5000 });
    });
    await t.step("a late 'failed' after the recovery sends no mail and shows paid", async () => {
      const failed = stripe.failPayment(subscription, 3);
      const recovered = stripe.recoverPayment(subscription);
      const mails = app.outbox.length;
      await deliverAll(app, stripe, recovered);
      await deliverAll(app, stripe, failed);
      assert.equal(app.outbox.length, mails);
      const { text } = await fay.browser.get("/account");
      assert.match(text, /Last payment: paid/);
    });
  });
});

dbTest("billing: a forged or stale signature is 400 and changes nothing", async (db, t) => {
  await withStripe(db, async (stripe, app) => {
    const gus = await customer(app, "gus");
    const events = stripe.completeCheckout(sessionIdOf(await startCheckout(gus, "pro")));
    const created = events[0];
    const unchanged = async () => {
      assert.deepEqual(await planOf(app, gus), { plan: "free", limit: 20 });
      const [row] = await db.sql`select count(*)::int as n from billing_events`;
      assert.equal(row.n, 0, "no event recorded");
    };
    await t.step("signed with another secret", async () => {
      const answer = await deliver(app, stripe, created, { secret: "whsec_forged" });
      assert.equal(answer.status, 400);
      assert.equal(answer.body.error, "invalid_signature");
      await unchanged();
    });
    await t.step("a body changed after signing", async () => {
      const tampered = JSON.stringify({ ...created, id: "evt_other" });
      assert.equal((await deliver(app, stripe, created, { body: tampered })).status, 400);
      await unchanged();
    });
    await t.step("a signature older than the 5-minute tolerance (a replay)", async () => {
      const old = Math.floor(Date.now() / 1000) - 301;
      assert.equal((await deliver(app, stripe, created, { timestamp: old })).status, 400);
      await unchanged();
    });
    await t.step("no signature, a garbage signature, a body that is not JSON", async () => {
      const tries: Record<string, string>[] = [{}, { "Stripe-Signature": "t=1,v1=zz" }];
      for (const headers of tries) {
        const response = await app.handler(
          new Request(`${app.base}/billing/webhook`, { method: "POST", headers, body: "{" }),
        );
        assert.equal(response.status, 400);
        await response.body?.cancel();
      }
      const notJson = await stripe.signed(created);
      const response = await app.handler(
        new Request(`${app.base}/billing/webhook`, {
          method: "POST",
          headers: { "Stripe-Signature": notJson.signature },
          body: "not json",
        }),
      );
      assert.equal(response.status, 400);
      await response.body?.cancel();
      await unchanged();
    });
    await t.step("GET is 405", async () => {
      const response = await app.handler(new Request(`${app.base}/billing/webhook`));
      assert.equal(response.status, 405);
      await response.body?.cancel();
    });
    await t.step("the genuine delivery then applies", async () => {
      await deliverAll(app, stripe, events);
      assert.equal((await planOf(app, gus)).plan, "pro");
    });
  });
});

dbTest("billing: a checkout session of one account never changes another", async (db, t) => {
  await withStripe(db, async (stripe, app) => {
    const hal = await customer(app, "hal", "192.0.2.21");
    const ivy = await customer(app, "ivy", "192.0.2.22");
    const halCheckout = sessionIdOf(await startCheckout(hal, "business"));
    await startCheckout(ivy, "pro");
    const events = stripe.completeCheckout(halCheckout);
    await t.step("Ivy opening Hal's return link changes neither account", async () => {
      const answer = await ivy.browser.get(`/account?checkout=${halCheckout}`);
      assert.equal(answer.response.status, 303);
      assert.equal((await planOf(app, ivy)).plan, "free");
      assert.equal((await planOf(app, hal)).plan, "free");
    });
    await t.step("a completed session naming Ivy for Hal's customer is ignored", async () => {
      const completed = events.find((e) => e.type === "checkout.session.completed")!;
      completed.data.object.client_reference_id = String(ivy.accountId);
      const answer = await deliver(app, stripe, completed);
      assert.equal(answer.status, 200);
      assert.equal(answer.body.outcome, "account mismatch");
      assert.equal((await planOf(app, ivy)).plan, "free");
      assert.equal((await planOf(app, hal)).plan, "free");
    });
    await t.step(
      "an event of a customer that is not ours changes nothing and is logged",
      async () => {
        const stranger = structuredClone(events[0]);
        stranger.id = "evt_stranger";
        stranger.data.object.customer = "cus_unknown";
        const answer = await deliver(app, stripe, stranger);
        assert.equal(answer.status, 200);
        assert.equal(answer.body.outcome, "unknown customer");
        assert.ok(app.logs.some((l) => l.customer === "cus_unknown"));
      },
    );
    await t.step("Hal's own return link makes Hal Business at once, Ivy still Free", async () => {
      const answer = await hal.browser.get(`/account?checkout=${halCheckout}`);
      assert.equal(answer.response.status, 200);
      assert.match(answer.text, /you are on the Business plan now/);
      assert.deepEqual(await planOf(app, hal), { plan: "business", limit: 5000 });
      assert.equal((await planOf(app, ivy)).plan, "free");
    });
  });
});

dbTest("billing: off without configuration, everything works as before", async (db, t) => {
  const app = webTestApp(db);
  const jo = await customer(app, "jo");
  await t.step("the dashboard shows the prices and how to ask for a change", async () => {
    const { response, text } = await jo.browser.get("/account");
    assert.equal(response.status, 200);
    assert.match(text, /Pro: 1,000 calls a month, 20 USD a month/);
    assert.match(text, /plan changes are made by our team/);
    assert.doesNotMatch(text, /Upgrade to/);
    assert.doesNotMatch(text, /billing-portal/);
    assert.match(response.headers.get("content-security-policy")!, /form-action 'self';/);
  });
  await t.step("the billing form answers 404 on the dashboard", async () => {
    const page = await jo.browser.get("/account");
    const answer = await jo.browser.post("/account/billing/checkout", {
      plan: "pro",
      csrf: csrfIn(page.text),
    });
    assert.equal(answer.response.status, 404);
    assert.match(answer.text, /Plans are changed by our team/);
  });
  await t.step("the webhook is 404 JSON", async () => {
    const response = await app.handler(
      new Request(`${app.base}/billing/webhook`, { method: "POST", body: "{}" }),
    );
    assert.equal(response.status, 404);
    assert.equal((await response.json()).error, "not_found");
  });
  await t.step("the home page shows the list prices and says plans are changed by us", async () => {
    const response = await app.handler(new Request(`${app.base}/`));
    const text = await response.text();
    assert.match(text, /20 USD a month/);
    assert.match(text, /50 USD a month/);
    assert.match(text, /Plans are changed by us/);
  });
});

dbTest(
  "billing: Stripe unreachable is 503 for a webhook (delivered again) and a clear error",
  async (db, t) => {
    const stripe = await startLocalStripe();
    const app = webTestApp(db, { env: stripe.env });
    const kim = await customer(app, "kim");
    const events = stripe.completeCheckout(sessionIdOf(await startCheckout(kim, "pro")));
    await stripe.close();
    await t.step("the webhook answers 503 and does not count the event as seen", async () => {
      const answer = await deliver(app, stripe, events[0]);
      assert.equal(answer.status, 503);
      assert.equal(answer.body.error, "service_unavailable");
      const [row] = await db.sql`select count(*)::int as n from billing_events`;
      assert.equal(row.n, 0);
      assert.equal((await planOf(app, kim)).plan, "free");
    });
    await t.step(
      "an upgrade click answers the dashboard with an error, nothing charged",
      async () => {
        const page = await kim.browser.get("/account");
        const answer = await kim.browser.post("/account/billing/portal", {
          csrf: csrfIn(page.text),
        });
        assert.equal(answer.response.status, 503);
        assert.match(answer.text, /Stripe could not be reached/);
      },
    );
  },
);
