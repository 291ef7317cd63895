/**
 * From Stripe's subscriptions to the state kept (src/billing/state.ts): which subscription decides
 * the plan, and the plan, dates and payment state of one, on objects shaped as the pinned API
 * version returns them (the period on the item, the invoice's subscription under `parent`).
 */
import assert from "node:assert/strict";
import type Stripe from "stripe";
import { chooseSubscription, stateOf } from "../../src/billing/state.ts";

const PRICES = { pro: "price_pro", business: "price_business" };
const T = 1_800_000_000;

function subscription(
  id: string,
  status: string,
  price: string,
  extra: Record<string, unknown> = {},
): Stripe.Subscription {
  return {
    id,
    object: "subscription",
    status,
    created: T,
    cancel_at: null,
    cancel_at_period_end: false,
    schedule: null,
    latest_invoice: null,
    items: {
      object: "list",
      data: [{ price: { id: price }, current_period_start: T, current_period_end: T + 100 }],
    },
    ...extra,
  } as unknown as Stripe.Subscription;
}

Deno.test("chooseSubscription: live first (highest plan, then newest), else the newest ended", async (t) => {
  await t.step("a live Pro beats a newer cancelled Business", () => {
    const chosen = chooseSubscription([
      subscription("sub_old", "active", "price_pro"),
      subscription("sub_new", "canceled", "price_business", { created: T + 50 }),
    ], PRICES);
    assert.equal(chosen?.id, "sub_old");
  });
  await t.step("of two live ones, the higher plan", () => {
    const chosen = chooseSubscription([
      subscription("sub_pro", "active", "price_pro", { created: T + 9 }),
      subscription("sub_biz", "past_due", "price_business"),
    ], PRICES);
    assert.equal(chosen?.id, "sub_biz");
  });
  await t.step("a subscription never paid decides nothing", () => {
    assert.equal(
      chooseSubscription([subscription("sub_x", "incomplete", "price_pro")], PRICES),
      undefined,
    );
    const chosen = chooseSubscription([
      subscription("sub_x", "incomplete_expired", "price_business", { created: T + 9 }),
      subscription("sub_y", "canceled", "price_pro"),
    ], PRICES);
    assert.equal(chosen?.id, "sub_y");
  });
});

Deno.test("stateOf: the plan while live, Free once ended, dates and the last payment", async (t) => {
  await t.step("past_due keeps the plan; the failed invoice and the next retry are kept", () => {
    const state = stateOf(
      subscription("sub_1", "past_due", "price_pro", {
        latest_invoice: {
          id: "in_1",
          status: "open",
          attempt_count: 1,
          next_payment_attempt: T + 10,
          status_transitions: { paid_at: null },
        },
      }),
      PRICES,
    );
    assert.equal(state.plan, "pro");
    assert.equal(state.lastPayment, "failed");
    assert.equal(state.lastInvoiceId, "in_1");
    assert.equal(state.nextPaymentAttempt?.getTime(), (T + 10) * 1000);
  });
  await t.step("unpaid and canceled give Free", () => {
    for (const status of ["unpaid", "canceled", "paused"]) {
      assert.equal(stateOf(subscription("s", status, "price_business"), PRICES).plan, "free");
    }
  });
  await t.step("cancel_at_period_end ends at the period's end", () => {
    const state = stateOf(
      subscription("s", "active", "price_pro", { cancel_at_period_end: true }),
      PRICES,
    );
    assert.equal(state.plan, "pro");
    assert.equal(state.cancelAt?.getTime(), (T + 100) * 1000);
  });
  await t.step("a price that is not configured leaves the plan undecided", () => {
    const state = stateOf(subscription("s", "active", "price_other"), PRICES);
    assert.equal(state.plan, undefined);
  });
  await t.step("a schedule's next phase is the pending plan", () => {
    const state = stateOf(
      subscription("s", "active", "price_business", {
        schedule: {
          id: "sub_sched_1",
          end_behavior: "release",
          phases: [
            { start_date: T, end_date: T + 100, items: [{ price: "price_business" }] },
            { start_date: T + 100, end_date: T + 200, items: [{ price: "price_pro" }] },
          ],
        },
      }),
      PRICES,
    );
    assert.equal(state.plan, "business");
    assert.equal(state.pendingPlan, "pro");
    assert.equal(state.pendingAt?.getTime(), (T + 100) * 1000);
  });
});
