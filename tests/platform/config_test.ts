/**
 * readConfig's Stripe Billing variables: all four set or none; a partial or malformed set stops
 * the start with a message naming the variable; STRIPE_API_BASE only on loopback, only with keys.
 */
import assert from "node:assert/strict";
import { readConfig } from "../../src/platform/config.ts";

const BASE = { DATA_DIR: "memory://" };
const STRIPE = {
  STRIPE_SECRET_KEY: "sk_test_51abc",
  STRIPE_WEBHOOK_SECRET: "whsec_abc123",
  STRIPE_PRICE_PRO: "price_1Pro",
  STRIPE_PRICE_BUSINESS: "price_1Business",
};

function refusal(env: Record<string, string>): string {
  try {
    readConfig({ ...BASE, ...env });
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`Accepted ${JSON.stringify(env)}`);
}

Deno.test("readConfig: Stripe Billing is off without its variables, on with all four", async (t) => {
  await t.step("none (or all empty) turns billing off", () => {
    assert.equal(readConfig(BASE).stripe, undefined);
    const empty = Object.fromEntries(Object.keys(STRIPE).map((k) => [k, " "]));
    assert.equal(readConfig({ ...BASE, ...empty }).stripe, undefined);
  });
  await t.step("all four turn it on", () => {
    const stripe = readConfig({ ...BASE, ...STRIPE }).stripe!;
    assert.equal(stripe.secretKey, "sk_test_51abc");
    assert.equal(stripe.webhookSecret, "whsec_abc123");
    assert.deepEqual({ ...stripe.prices }, { pro: "price_1Pro", business: "price_1Business" });
    assert.equal(stripe.apiBase, undefined);
  });
  await t.step("a restricted key is accepted", () => {
    assert.ok(readConfig({ ...BASE, ...STRIPE, STRIPE_SECRET_KEY: "rk_live_x1" }).stripe);
  });
});

Deno.test("readConfig: a partial or malformed Stripe set names the variable", async (t) => {
  await t.step("each missing variable is named", () => {
    for (const name of Object.keys(STRIPE)) {
      const partial: Record<string, string> = { ...STRIPE };
      delete partial[name];
      assert.match(
        refusal(partial),
        new RegExp(`^Invalid configuration: ${name}: must be set too`),
      );
    }
  });
  await t.step("a publishable key, a wrong secret, a product id", () => {
    assert.match(
      refusal({ ...STRIPE, STRIPE_SECRET_KEY: "pk_test_1" }),
      /STRIPE_SECRET_KEY: must be a Stripe secret or restricted key \(starting with sk_ or rk_\)/,
    );
    assert.match(
      refusal({ ...STRIPE, STRIPE_WEBHOOK_SECRET: "secret" }),
      /STRIPE_WEBHOOK_SECRET: .*whsec_/,
    );
    assert.match(refusal({ ...STRIPE, STRIPE_PRICE_PRO: "prod_1" }), /STRIPE_PRICE_PRO: .*price_/);
  });
  await t.step("one price for both plans", () => {
    assert.match(
      refusal({ ...STRIPE, STRIPE_PRICE_BUSINESS: STRIPE.STRIPE_PRICE_PRO }),
      /STRIPE_PRICE_BUSINESS: must differ/,
    );
  });
  await t.step("STRIPE_API_BASE: loopback only, and only with the keys", () => {
    const local = readConfig({ ...BASE, ...STRIPE, STRIPE_API_BASE: "http://127.0.0.1:12111" });
    assert.equal(local.stripe!.apiBase!.origin, "http://127.0.0.1:12111");
    assert.match(
      refusal({ ...STRIPE, STRIPE_API_BASE: "https://api.example.com" }),
      /STRIPE_API_BASE: tests only/,
    );
    assert.match(refusal({ STRIPE_API_BASE: "http://127.0.0.1:1" }), /STRIPE_API_BASE: set only/);
  });
});
