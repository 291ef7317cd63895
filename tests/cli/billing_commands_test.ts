/**
 * `admin billing show` and `admin billing sync`: the operator reads an account's billing state,
 * and after a missed webhook reads the customer's subscriptions back from (the local) Stripe and
 * applies them, moving the plan.
 */
import assert from "node:assert/strict";
import { runAdmin } from "../../src/cli/admin.ts";
import type { Database } from "../../src/db/open.ts";
import { createAccount, findAccountByEmail } from "../../src/accounts/accounts.ts";
import { createBilling } from "../../src/billing/billing.ts";
import { createStripeClient } from "../../src/billing/stripe.ts";
import { readConfig } from "../../src/platform/config.ts";
import { dbTest } from "../helpers/db.ts";
import { startLocalStripe } from "../helpers/stripe_server.ts";

async function admin(database: Database, env: Record<string, string>, ...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runAdmin(args, {
    database,
    env: { DATABASE_URL: "postgres://nobody@127.0.0.1:1/none", ...env },
    stdout: (s) => out.push(s),
    stderr: (s) => err.push(s),
  });
  return { code, stdout: out.join("\n"), stderr: err.join("\n") };
}

dbTest("admin billing show and sync: a missed webhook applied by hand", async (db, t) => {
  const stripe = await startLocalStripe();
  try {
    const email = "Payer@Example.com";
    const account = await createAccount(db.sql, { email, verified: true });
    await t.step("show: no billing before the first checkout, billing off or on", async () => {
      const shown = await admin(db.database, {}, "billing", "show", "--email", "payer@example.com");
      assert.equal(shown.code, 0, shown.stderr);
      assert.deepEqual(JSON.parse(shown.stdout), {
        account_id: account.id,
        email,
        plan: "free",
        billing: null,
      });
    });
    await t.step("sync refuses when billing is off", async () => {
      const synced = await admin(db.database, {}, "billing", "sync", "--email", email);
      assert.equal(synced.code, 1);
      assert.match(synced.stderr, /Billing is off: set STRIPE_SECRET_KEY/);
    });
    // A checkout completed in Stripe whose webhooks never arrived.
    const config = readConfig({ DATA_DIR: "memory://", ...stripe.env });
    const billing = createBilling({
      sql: db.sql,
      stripe: createStripeClient(config.stripe!),
      prices: config.stripe!.prices,
      publicBaseUrl: "http://localhost:8000",
      formAction: stripe.base,
      log: () => {},
    });
    const url = await billing.checkoutUrl({ id: account.id, email, plan: "free" }, "business");
    stripe.completeCheckout(url.split("/").at(-1)!);
    assert.equal((await findAccountByEmail(db.sql, email))!.plan, "free");
    await t.step("sync reads the subscription back and makes the account Business", async () => {
      const synced = await admin(db.database, stripe.env, "billing", "sync", "--email", email);
      assert.equal(synced.code, 0, synced.stderr);
      const body = JSON.parse(synced.stdout);
      assert.equal(body.synced.applied, true);
      assert.equal(body.synced.before, "free");
      assert.equal(body.synced.after, "business");
      assert.equal(body.plan, "business");
      assert.equal(body.billing.status, "active");
      assert.equal(body.billing.paid_plan, "business");
      assert.equal(body.billing.last_payment, "paid");
      assert.equal((await findAccountByEmail(db.sql, email))!.plan, "business");
    });
    await t.step("sync of an account without a Stripe customer is refused", async () => {
      await createAccount(db.sql, { email: "none@example.com" });
      const synced = await admin(
        db.database,
        stripe.env,
        "billing",
        "sync",
        "--email",
        "none@example.com",
      );
      assert.equal(synced.code, 1);
      assert.match(synced.stderr, /has no Stripe customer yet/);
    });
  } finally {
    await stripe.close();
  }
});
