/**
 * The prices the pages show (home page, dashboard): the list prices of platform/plans.ts, and with
 * Stripe Billing on, the amounts of the configured Stripe prices, which are what customers pay.
 * Stripe's are read once per process; a price that differs from the list, or that is not a
 * monthly recurring price, is logged so that the operator sees the mismatch.
 */
import type Stripe from "stripe";
import { type Plan, PLAN_NAMES, PLAN_PRICES } from "../platform/plans.ts";
import type { PaidPlan, PriceIds } from "./state.ts";

/** A plan's monthly price: an amount in the currency's minor unit (cents). */
export interface PlanPrice {
  amount: number;
  /** ISO 4217, upper case. */
  currency: string;
}

/** The monthly price of each plan, and where the paid ones came from. */
export interface PriceList {
  prices: Record<Plan, PlanPrice>;
  source: "stripe" | "list";
}

/** The list prices of platform/plans.ts. */
export const LIST_PRICES: PriceList = {
  prices: {
    free: { amount: PLAN_PRICES.free, currency: "USD" },
    pro: { amount: PLAN_PRICES.pro, currency: "USD" },
    business: { amount: PLAN_PRICES.business, currency: "USD" },
  },
  source: "list",
};

/** "20 USD a month", "19.50 EUR a month", or "free". */
export function formatPrice(price: PlanPrice): string {
  if (price.amount === 0) return "free";
  const whole = price.amount % 100 === 0;
  const amount = whole ? String(price.amount / 100) : (price.amount / 100).toFixed(2);
  return `${amount} ${price.currency} a month`;
}

/**
 * Reads the configured prices from Stripe. Throws when Stripe cannot be reached; logs (and still
 * uses) a price that is not monthly or differs from the list price.
 */
export async function readStripePrices(
  stripe: Stripe,
  ids: PriceIds,
  log: (entry: Record<string, unknown>) => void,
): Promise<PriceList> {
  const read = async (plan: PaidPlan): Promise<PlanPrice> => {
    const price = await stripe.prices.retrieve(ids[plan]);
    const amount = price.unit_amount ?? 0;
    const currency = price.currency.toUpperCase();
    const monthly = price.recurring?.interval === "month" && price.recurring.interval_count === 1;
    if (!monthly || amount !== PLAN_PRICES[plan] || currency !== "USD") {
      log({
        level: "warn",
        message: `Stripe price ${price.id} of ${PLAN_NAMES[plan]} is ` +
          `${amount / 100} ${currency} every ${price.recurring?.interval_count ?? "?"} ` +
          `${price.recurring?.interval ?? "(not recurring)"}; the list price is ` +
          `${PLAN_PRICES[plan] / 100} USD a month`,
      });
    }
    return { amount, currency };
  };
  const [pro, business] = await Promise.all([read("pro"), read("business")]);
  return { prices: { free: LIST_PRICES.prices.free, pro, business }, source: "stripe" };
}
