/**
 * Billing's SQL (src/billing/store.ts) on both engines: a state read after a later ticket is never
 * overwritten by one read before it (two webhooks finishing in the other order), the plan moves
 * with the state in the same write, an event id is claimed once, and a customer is stored once.
 */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { createAccount, findAccountByEmail } from "../../src/accounts/accounts.ts";
import {
  applyState,
  claimEvent,
  readTicket,
  releaseEvent,
  saveCustomer,
} from "../../src/billing/store.ts";
import type { SubscriptionState } from "../../src/billing/state.ts";

function state(plan: "free" | "pro" | "business", status = "active"): SubscriptionState {
  return {
    subscriptionId: "sub_1",
    status,
    plan,
    paidPlan: plan === "free" ? undefined : plan,
    currentPeriodEnd: null,
    cancelAt: null,
    pendingPlan: null,
    pendingAt: null,
    lastInvoiceId: null,
    lastPayment: null,
    lastPaymentAt: null,
    nextPaymentAttempt: null,
  };
}

dbTest("applyState: a read that began earlier never overwrites a later one", async (db, t) => {
  const account = await createAccount(db.sql, { email: "store@example.com", verified: true });
  assert.equal(await saveCustomer(db.sql, account.id, "cus_a"), "cus_a");
  await t.step("a second customer for the account is not stored", async () => {
    assert.equal(await saveCustomer(db.sql, account.id, "cus_b"), "cus_a");
  });
  const early = await readTicket(db.sql);
  const late = await readTicket(db.sql);
  assert.ok(late > early, "tickets increase");
  await t.step("the later read, finishing first, moves the plan", async () => {
    const applied = await applyState(db.sql, account.id, late, state("business"));
    assert.deepEqual(applied, { applied: true, before: "free", after: "business" });
  });
  await t.step("the earlier read, finishing last, is refused", async () => {
    const applied = await applyState(db.sql, account.id, early, state("free", "canceled"));
    assert.deepEqual(applied, { applied: false, before: "business", after: "business" });
    assert.equal((await findAccountByEmail(db.sql, account.email))!.plan, "business");
  });
  await t.step("an undecided plan keeps the account's", async () => {
    const next = await readTicket(db.sql);
    const applied = await applyState(db.sql, account.id, next, {
      ...state("pro"),
      plan: undefined,
    });
    assert.deepEqual(applied, { applied: true, before: "business", after: "business" });
  });
});

dbTest("claimEvent: an event id is claimed once, and again after a release", async (db) => {
  assert.equal(await claimEvent(db.sql, "evt_1", "invoice.paid"), true);
  assert.equal(await claimEvent(db.sql, "evt_1", "invoice.paid"), false);
  await releaseEvent(db.sql, "evt_1");
  assert.equal(await claimEvent(db.sql, "evt_1", "invoice.paid"), true);
});
