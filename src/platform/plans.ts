/**
 * The plans and what each allows: the price list that accounts, admission, errors, the edges and
 * the stdio package all read. A plan includes every plan ranked below it.
 */
export const PLANS = ["free", "pro", "business"] as const;

export type Plan = (typeof PLANS)[number];

/** Monthly call limits by plan; the count resets at 00:00 UTC on the 1st. */
export const PLAN_LIMITS: Record<Plan, number> = { free: 20, pro: 1000, business: 5000 };

/**
 * Monthly list prices in US cents (the specification's). With Stripe Billing on, what a customer
 * pays is the Stripe price of the plan (billing/prices.ts reads it once and warns when it differs
 * from this table); without it this table is what the pages show.
 */
export const PLAN_PRICES: Record<Plan, number> = { free: 0, pro: 2000, business: 5000 };

/** The name of a plan as pages and mails show it. */
export const PLAN_NAMES: Record<Plan, string> = { free: "Free", pro: "Pro", business: "Business" };

/** An account's position in its monthly quota (after the current call's charge, if any). */
export interface UsageState {
  limit: number;
  used: number;
  remaining: number;
  reset_at: string;
}

/** The order of the plans: an operation open to a plan is open to every higher one. */
export const PLAN_RANK: Record<Plan, number> = { free: 0, pro: 1, business: 2 };

/** How many watches (saved searches that deliver new matches) an account may keep, by plan. */
export const WATCH_LIMITS: Record<Plan, number> = { free: 1, pro: 10, business: 50 };

/** The first day of `now`'s calendar month in UTC, as the `period` key of usage_counters. */
export function periodOf(now: Date): string {
  return `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, "0")}-01`;
}

/** 00:00:00 UTC on the 1st of the month after `now`, when the quota resets. */
export function resetAtOf(now: Date): string {
  const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return next.toISOString().replace(".000Z", "Z");
}

/** Builds the usage state of a plan from a used count. */
export function usageState(plan: Plan, used: number, now: Date): UsageState {
  const limit = PLAN_LIMITS[plan];
  return { limit, used, remaining: Math.max(0, limit - used), reset_at: resetAtOf(now) };
}

/** The UTC day of `now` (YYYY-MM-DD), the `day` key of usage records. */
export function dayOf(now: Date): string {
  return now.toISOString().slice(0, 10);
}
