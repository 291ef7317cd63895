/** Operator commands for Stripe Billing: show an account's billing, sync it from Stripe. */
import { findAccountByEmail } from "../accounts/accounts.ts";
import { AccountError } from "../platform/errors.ts";
import { readConfig } from "../platform/config.ts";
import { logMailer } from "../platform/mailer.ts";
import { setUpBilling } from "../billing/setup.ts";
import { billingOfAccount, type BillingRecord } from "../billing/store.ts";
import type { Sql } from "../db/open.ts";
import { type Command, text } from "./args.ts";
import { emailFlag } from "./flags.ts";

const SHOW_SHAPE = "{account_id, email, plan, billing: {customer_id, subscription_id, status, " +
  "paid_plan, current_period_end, cancel_at, pending_plan, pending_at, last_invoice_id, " +
  "last_payment, last_payment_at, next_payment_attempt, synced_at} | null}";

function iso(date: Date | null): string | null {
  return date ? date.toISOString() : null;
}

function recordView(record: BillingRecord | undefined) {
  if (!record) return null;
  return {
    customer_id: record.customerId,
    subscription_id: record.subscriptionId,
    status: record.subscriptionStatus,
    paid_plan: record.paidPlan,
    current_period_end: iso(record.currentPeriodEnd),
    cancel_at: iso(record.cancelAt),
    pending_plan: record.pendingPlan,
    pending_at: iso(record.pendingAt),
    last_invoice_id: record.lastInvoiceId,
    last_payment: record.lastPayment,
    last_payment_at: iso(record.lastPaymentAt),
    next_payment_attempt: iso(record.nextPaymentAttempt),
    synced_at: iso(record.syncedAt),
  };
}

function billingFor(sql: Sql, env: Record<string, string | undefined>) {
  const config = readConfig(env);
  const setup = setUpBilling(config.stripe, {
    sql,
    publicBaseUrl: config.publicBaseUrl,
    // The CLI sends no mail: only webhooks mail about failed payments.
    mailer: logMailer(() => {}),
    log: () => {},
  });
  if (!setup) {
    throw new AccountError(
      "Billing is off: set STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET, STRIPE_PRICE_PRO and " +
        "STRIPE_PRICE_BUSINESS",
    );
  }
  return setup.billing;
}

async function show(sql: Sql, email: string) {
  const account = await findAccountByEmail(sql, email);
  if (!account) throw new AccountError(`Cannot find account "${email.trim()}"`);
  return {
    account_id: account.id,
    email: account.email,
    plan: account.plan,
    billing: recordView(await billingOfAccount(sql, account.id)),
  };
}

export const BILLING_GROUPS: Record<string, string> = {
  billing: "Show an account's Stripe subscription, or read it back from Stripe and apply it",
};

export const BILLING_COMMANDS: Command[] = [
  {
    path: ["billing", "show"],
    summary: "Show an account's plan and Stripe billing state as last synced",
    description:
      "Shows the account's plan and what the service last read from Stripe (works with billing\n" +
      "off too: it reads only the database). `billing` is null before the first checkout.\n" +
      `Prints ${SHOW_SHAPE}.`,
    flags: [emailFlag],
    run: async ({ sql, flags }) => await show(sql, text(flags, "email")!),
  },
  {
    path: ["billing", "sync"],
    summary: "Read an account's subscriptions back from Stripe and apply them",
    description:
      "Lists the account's Stripe subscriptions, applies the one that decides the plan (a live\n" +
      "one, the highest plan first; else the newest that ended) and moves the plan with it, as a\n" +
      "webhook would. For a missed or failed webhook. Needs the STRIPE_* variables.\n" +
      `Prints {synced: {subscription_id, status, applied, before, after, problem}, ...${SHOW_SHAPE}}.`,
    flags: [emailFlag],
    run: async ({ sql, flags, env }) => {
      const email = text(flags, "email")!;
      const billing = billingFor(sql, env);
      const { record } = await billing.recordByEmail(email);
      if (!record) {
        throw new AccountError(`Account "${email.trim()}" has no Stripe customer yet`);
      }
      const synced = await billing.syncCustomer(record.customerId);
      return {
        synced: {
          subscription_id: synced.subscriptionId ?? null,
          status: synced.status ?? null,
          applied: synced.applied ?? false,
          before: synced.before ?? null,
          after: synced.after ?? null,
          problem: synced.problem ?? null,
        },
        ...await show(sql, email),
      };
    },
  },
];
