/**
 * Billing's SQL: each account's Stripe customer and subscription state (sql/0012_billing.sql),
 * the webhook events already applied, and the one write that moves an account's plan with its
 * subscription. Nothing here talks to Stripe.
 */
import type { Sql } from "../db/open.ts";
import type { Plan } from "../platform/plans.ts";
import type { PaidPlan, SubscriptionState, SubscriptionTerms } from "./state.ts";

/** What the service knows of an account's billing, as the dashboard and the CLI show it. */
export interface BillingRecord extends SubscriptionTerms {
  accountId: number;
  email: string;
  plan: Plan;
  customerId: string;
  subscriptionId: string | null;
  subscriptionStatus: string | null;
  paidPlan: PaidPlan | null;
  syncedAt: Date | null;
}

interface RecordRow {
  account_id: number;
  email: string;
  plan: Plan;
  customer_id: string;
  subscription_id: string | null;
  subscription_status: string | null;
  paid_plan: PaidPlan | null;
  current_period_end: Date | null;
  cancel_at: Date | null;
  pending_plan: Plan | null;
  pending_at: Date | null;
  last_invoice_id: string | null;
  last_payment: "paid" | "failed" | null;
  last_payment_at: Date | null;
  next_payment_attempt: Date | null;
  synced_at: Date | null;
}

function toRecord(row: RecordRow): BillingRecord {
  return {
    accountId: row.account_id,
    email: row.email,
    plan: row.plan,
    customerId: row.customer_id,
    subscriptionId: row.subscription_id,
    subscriptionStatus: row.subscription_status,
    paidPlan: row.paid_plan,
    currentPeriodEnd: row.current_period_end,
    cancelAt: row.cancel_at,
    pendingPlan: row.pending_plan,
    pendingAt: row.pending_at,
    lastInvoiceId: row.last_invoice_id,
    lastPayment: row.last_payment,
    lastPaymentAt: row.last_payment_at,
    nextPaymentAttempt: row.next_payment_attempt,
    syncedAt: row.synced_at,
  };
}

/** The billing record of an account, or undefined before its first checkout. */
export async function billingOfAccount(
  sql: Sql,
  accountId: number,
): Promise<BillingRecord | undefined> {
  const [row]: [RecordRow?] = await sql`
    select b.*, a.email, a.plan from billing_customers b join accounts a on a.id = b.account_id
    where b.account_id = ${accountId}`;
  return row ? toRecord(row) : undefined;
}

/** The billing record of a Stripe customer, or undefined for a customer that is not ours. */
export async function billingOfCustomer(
  sql: Sql,
  customerId: string,
): Promise<BillingRecord | undefined> {
  const [row]: [RecordRow?] = await sql`
    select b.*, a.email, a.plan from billing_customers b join accounts a on a.id = b.account_id
    where b.customer_id = ${customerId}`;
  return row ? toRecord(row) : undefined;
}

/**
 * Records the account's Stripe customer unless one is recorded already, and returns the one
 * recorded: of two concurrent first checkouts, both use the customer that was stored first.
 */
export async function saveCustomer(
  sql: Sql,
  accountId: number,
  customerId: string,
): Promise<string> {
  const [row] = await sql<{ customer_id: string }[]>`
    with inserted as (
      insert into billing_customers (account_id, customer_id) values (${accountId}, ${customerId})
      on conflict (account_id) do nothing
      returning customer_id
    )
    select customer_id from inserted
    union all
    select customer_id from billing_customers where account_id = ${accountId}
    limit 1`;
  if (row) return row.customer_id;
  // Inserted by a concurrent first checkout that committed after this statement's snapshot was
  // taken: the insert saw it and did nothing, the select could not. A new statement sees it.
  const [stored] = await sql<{ customer_id: string }[]>`
    select customer_id from billing_customers where account_id = ${accountId}`;
  return stored.customer_id;
}

/** The account's open Checkout session (the last one it opened), or null. */
export async function openCheckoutOf(sql: Sql, accountId: number): Promise<string | null> {
  const [row]: [{ open_checkout_id: string | null }?] = await sql`
    select open_checkout_id from billing_customers where account_id = ${accountId}`;
  return row?.open_checkout_id ?? null;
}

/**
 * Records `sessionId` as the account's open Checkout session and returns the one it replaces
 * (null when none): concurrent calls are serialised by the row lock, so each earlier session is
 * returned to exactly one caller, which expires it, and only the last one stays.
 */
export async function swapOpenCheckout(
  sql: Sql,
  accountId: number,
  sessionId: string,
): Promise<string | null> {
  return await sql.begin(async (tx) => {
    const [row]: [{ open_checkout_id: string | null }?] = await tx`
      select open_checkout_id from billing_customers where account_id = ${accountId} for update`;
    await tx`
      update billing_customers set open_checkout_id = ${sessionId} where account_id = ${accountId}`;
    return row?.open_checkout_id ?? null;
  });
}

/**
 * A ticket taken before a subscription is read back from Stripe: strictly increasing for every
 * instance, so it orders a read against the reads of other instances.
 */
export async function readTicket(sql: Sql): Promise<number> {
  const [row] = await sql<{ ticket: number }[]>`
    select nextval('billing_read_tickets')::float8 as ticket`;
  return row.ticket;
}

/** What applying a subscription state did. */
export interface Applied {
  /** False when a read that began later was applied already (this one is older news). */
  applied: boolean;
  /** The account's plan before and after. */
  before: Plan;
  after: Plan;
}

/**
 * Writes a subscription state read back from Stripe after `ticket`, and moves the account's plan
 * with it, in one transaction; refused when the stored state comes from a read that began later.
 * `state.plan` undefined (a price that is not configured) keeps the account's plan.
 */
export async function applyState(
  sql: Sql,
  accountId: number,
  ticket: number,
  state: SubscriptionState,
): Promise<Applied> {
  return await sql.begin(async (tx) => {
    const [account] = await tx<{ plan: Plan }[]>`
      select plan from accounts where id = ${accountId} for update`;
    if (!account) return { applied: false, before: "free" as Plan, after: "free" as Plan };
    const [row] = await tx<{ account_id: number }[]>`
      update billing_customers set
        subscription_id = ${state.subscriptionId},
        subscription_status = ${state.status},
        paid_plan = ${state.paidPlan ?? null},
        current_period_end = ${state.currentPeriodEnd},
        cancel_at = ${state.cancelAt},
        pending_plan = ${state.pendingPlan},
        pending_at = ${state.pendingAt},
        last_invoice_id = ${state.lastInvoiceId},
        last_payment = ${state.lastPayment},
        last_payment_at = ${state.lastPaymentAt},
        next_payment_attempt = ${state.nextPaymentAttempt},
        read_ticket = ${ticket},
        synced_at = now()
      where account_id = ${accountId} and (read_ticket is null or read_ticket < ${ticket})
      returning account_id`;
    if (!row) return { applied: false, before: account.plan, after: account.plan };
    const after = state.plan ?? account.plan;
    if (after !== account.plan) {
      await tx`update accounts set plan = ${after} where id = ${accountId}`;
    }
    return { applied: true, before: account.plan, after };
  });
}

/**
 * Claims a webhook event for processing: true the first time its id is seen, false for a
 * delivery of an event claimed before (Stripe delivers at least once, sometimes twice at once).
 */
export async function claimEvent(sql: Sql, eventId: string, type: string): Promise<boolean> {
  const rows = await sql`
    insert into billing_events (event_id, type) values (${eventId}, ${type})
    on conflict (event_id) do nothing
    returning event_id`;
  return rows.length === 1;
}

/** Forgets a claimed event whose processing failed, so that Stripe's next delivery applies it. */
export async function releaseEvent(sql: Sql, eventId: string): Promise<void> {
  await sql`delete from billing_events where event_id = ${eventId}`;
}
