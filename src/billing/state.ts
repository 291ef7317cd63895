/**
 * From Stripe's subscriptions of a customer to what the service keeps: which subscription decides
 * the plan, the plan it gives now, its period, a cancellation or a change scheduled for the end of
 * the period, and the state of its newest invoice. Pure functions of the objects read back from
 * Stripe, so that applying the same read twice, or reads in any order, gives the same state.
 */
import type Stripe from "stripe";
import { type Plan, PLAN_RANK } from "../platform/plans.ts";

/** The price id of each paid plan (configuration). */
export interface PriceIds {
  readonly pro: string;
  readonly business: string;
}

/** The paid plans. */
export type PaidPlan = Exclude<Plan, "free">;

/** A subscription's period, the changes scheduled in it and its newest invoice. */
export interface SubscriptionTerms {
  currentPeriodEnd: Date | null;
  /** When a cancellation takes effect (the end of the period, or a chosen date). */
  cancelAt: Date | null;
  /** A change a subscription schedule makes later (a downgrade at the end of the period). */
  pendingPlan: Plan | null;
  pendingAt: Date | null;
  lastInvoiceId: string | null;
  lastPayment: "paid" | "failed" | null;
  lastPaymentAt: Date | null;
  /** When Stripe tries a failed payment again; null when it will not. */
  nextPaymentAttempt: Date | null;
}

/** What a sync writes for an account. */
export interface SubscriptionState extends SubscriptionTerms {
  subscriptionId: string;
  status: string;
  /**
   * The plan the account gets now: the subscription's while Stripe keeps it alive (active,
   * trialing, or past_due while it retries a payment), Free once it ended; undefined when its
   * price is none of the configured ones (the plan is then left alone, and the sync says why).
   */
  plan: Plan | undefined;
  /** The plan the subscription's price pays for, whatever its status. */
  paidPlan: PaidPlan | undefined;
}

/** Statuses in which Stripe keeps the subscription going (past_due: retrying a payment). */
const LIVE = new Set(["active", "trialing", "past_due"]);
/** Statuses of a subscription whose first payment never went through: it never gave a plan. */
const NEVER_PAID = new Set(["incomplete", "incomplete_expired"]);

/** True when a subscription in `status` keeps its plan. */
export function isLive(status: string | null | undefined): boolean {
  return status !== null && status !== undefined && LIVE.has(status);
}

/** The paid plan of a price id, or undefined for a price that is not configured. */
export function planOfPrice(prices: PriceIds, priceId: string | undefined): PaidPlan | undefined {
  if (priceId === prices.pro) return "pro";
  if (priceId === prices.business) return "business";
  return undefined;
}

function idOf(value: string | { id: string } | null | undefined): string | undefined {
  if (value === null || value === undefined) return undefined;
  return typeof value === "string" ? value : value.id;
}

function date(seconds: number | null | undefined): Date | null {
  return typeof seconds === "number" ? new Date(seconds * 1000) : null;
}

function firstItem(subscription: Stripe.Subscription): Stripe.SubscriptionItem | undefined {
  return subscription.items?.data?.[0];
}

/**
 * The subscription that decides a customer's plan: a live one (the highest plan, then the
 * newest), else the newest that ended. One that never got its first payment decides nothing, so
 * an abandoned or failed checkout leaves the plan as it was.
 */
export function chooseSubscription(
  subscriptions: readonly Stripe.Subscription[],
  prices: PriceIds,
): Stripe.Subscription | undefined {
  const rank = (s: Stripe.Subscription) => {
    const plan = planOfPrice(prices, idOf(firstItem(s)?.price));
    return plan ? PLAN_RANK[plan] : -1;
  };
  const candidates = subscriptions.filter((s) => !NEVER_PAID.has(s.status));
  const live = candidates.filter((s) => LIVE.has(s.status))
    .sort((a, b) => rank(b) - rank(a) || b.created - a.created);
  if (live.length > 0) return live[0];
  return [...candidates].sort((a, b) => b.created - a.created)[0];
}

/**
 * The subscriptions an account should not hold: every live one of a configured price but the
 * first (the oldest, then the smallest id). One account has one subscription; a second can only
 * come from two Checkout sessions paid before either's webhook arrived (billing.ts expires the
 * earlier sessions, but one being paid at that moment cannot be expired).
 */
export function duplicateSubscriptions(
  subscriptions: readonly Stripe.Subscription[],
  prices: PriceIds,
): { kept?: Stripe.Subscription; duplicates: Stripe.Subscription[] } {
  const [kept, ...duplicates] = subscriptions
    .filter((s) => LIVE.has(s.status) && planOfPrice(prices, idOf(firstItem(s)?.price)))
    .sort((a, b) => a.created - b.created || (a.id < b.id ? -1 : 1));
  return { kept, duplicates };
}

/** The plan a subscription schedule moves to at the end of the paid period, and when. */
function pendingChange(
  subscription: Stripe.Subscription,
  prices: PriceIds,
): { plan: Plan; at: Date } | undefined {
  const schedule = subscription.schedule;
  const item = firstItem(subscription);
  if (!schedule || typeof schedule === "string" || !item) return undefined;
  const current = planOfPrice(prices, idOf(item.price));
  const periodEnd = item.current_period_end;
  const next = (schedule.phases ?? []).filter((p) => p.start_date >= periodEnd)
    .sort((a, b) => a.start_date - b.start_date)[0];
  if (next) {
    const plan = planOfPrice(prices, idOf(next.items?.[0]?.price));
    return plan && plan !== current ? { plan, at: new Date(next.start_date * 1000) } : undefined;
  }
  const last = schedule.phases?.at(-1);
  if (schedule.end_behavior === "cancel" && last?.end_date) {
    return { plan: "free", at: new Date(last.end_date * 1000) };
  }
  return undefined;
}

function paymentOf(invoice: Stripe.Subscription["latest_invoice"]) {
  const none = {
    lastInvoiceId: null,
    lastPayment: null,
    lastPaymentAt: null,
    nextPaymentAttempt: null,
  };
  if (!invoice) return none;
  if (typeof invoice === "string") return { ...none, lastInvoiceId: invoice };
  const base = { ...none, lastInvoiceId: invoice.id ?? null };
  if (invoice.status === "paid") {
    return {
      ...base,
      lastPayment: "paid" as const,
      lastPaymentAt: date(invoice.status_transitions?.paid_at),
    };
  }
  const failed = (invoice.status === "open" && invoice.attempt_count > 0) ||
    invoice.status === "uncollectible";
  if (!failed) return base;
  return {
    ...base,
    lastPayment: "failed" as const,
    nextPaymentAttempt: invoice.status === "open" ? date(invoice.next_payment_attempt) : null,
  };
}

/** What the service keeps of a subscription read back from Stripe. */
export function stateOf(subscription: Stripe.Subscription, prices: PriceIds): SubscriptionState {
  const item = firstItem(subscription);
  const paidPlan = planOfPrice(prices, idOf(item?.price));
  const live = LIVE.has(subscription.status);
  const periodEnd = date(item?.current_period_end);
  const cancelAt = date(subscription.cancel_at) ??
    (subscription.cancel_at_period_end ? periodEnd : null);
  const pending = live ? pendingChange(subscription, prices) : undefined;
  return {
    subscriptionId: subscription.id,
    status: subscription.status,
    plan: live ? paidPlan : "free",
    paidPlan,
    currentPeriodEnd: periodEnd,
    cancelAt: live ? cancelAt : null,
    pendingPlan: pending?.plan ?? null,
    pendingAt: pending?.at ?? null,
    ...paymentOf(subscription.latest_invoice),
  };
}
