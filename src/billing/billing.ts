/**
 * Self-serve plans through Stripe Billing: an account's Stripe customer (created once, reused),
 * Checkout Sessions for an upgrade, customer portal sessions for the rest (card, invoices, plan
 * switch, cancellation), and the sync that reads a customer's subscriptions back from Stripe and
 * applies them. Every path that changes a plan goes through `syncCustomer`: webhooks, the return
 * from Checkout and the operator's `billing sync` alike.
 *
 * Why read back instead of applying the object in an event: events arrive late, twice, and in any
 * order, and an old `customer.subscription.updated` must never undo a newer change. A sync takes a
 * ticket from a database sequence, then reads the current subscriptions; the state is written only
 * if no read that began later was written first (store.ts applyState). Every change in Stripe is
 * followed by an event whose sync begins after it, so the newest state always wins.
 *
 * One subscription per account: opening Checkout expires the account's earlier open session, a
 * second subscription paid all the same is cancelled and refunded by the sync that finds it
 * (duplicates.ts), and Checkout and portal sessions are rate-limited per account.
 */
import type { Sql } from "../db/open.ts";
import { AccountError, RateLimitedError } from "../platform/errors.ts";
import { hitRateLimit } from "../db/rate_limits.ts";
import type { Plan } from "../platform/plans.ts";
import { findAccountByEmail } from "../accounts/accounts.ts";
import type { Stripe } from "./stripe.ts";
import { LIST_PRICES, type PriceList, readStripePrices } from "./prices.ts";
import {
  chooseSubscription,
  duplicateSubscriptions,
  isLive,
  type PaidPlan,
  type PriceIds,
  stateOf,
} from "./state.ts";
import { endDuplicate } from "./duplicates.ts";
import { Stripe as StripeLibrary } from "./stripe.ts";
import {
  type Applied,
  applyState,
  billingOfAccount,
  billingOfCustomer,
  type BillingRecord,
  openCheckoutOf,
  readTicket,
  saveCustomer,
  swapOpenCheckout,
} from "./store.ts";

/** What billing needs. */
export interface BillingDeps {
  sql: Sql;
  stripe: Stripe;
  prices: PriceIds;
  /** Where Checkout and the portal send the customer back (PUBLIC_BASE_URL). */
  publicBaseUrl: string;
  /**
   * The origins of Checkout and the portal (space-separated), which the dashboard's
   * Content-Security-Policy must allow as form targets: its forms answer with a redirect there.
   */
  formAction: string;
  log: (entry: Record<string, unknown>) => void;
  /** Checkout and portal sessions one account may open per window (default 10 in 10 minutes). */
  sessionLimit?: { limit: number; windowSeconds: number };
}

/** Enough for a person who changes their mind a few times; 40 clicks in a second are not. */
export const SESSION_LIMIT = { limit: 10, windowSeconds: 600 };

/**
 * Reads of Stripe on the return from Checkout, per account: a reloaded return page past it is
 * answered without asking Stripe (the payment still arrives by webhook).
 */
export const RETURN_LIMIT = { limit: 5, windowSeconds: 60 };

/** The account a checkout or portal session is made for. */
export interface BillingAccount {
  id: number;
  email: string;
  plan: Plan;
}

/** The outcome of a sync. */
export interface SyncResult extends Partial<Applied> {
  /** The subscription that decided, or undefined when the customer has none that counts. */
  subscriptionId?: string;
  status?: string;
  /** Set when the plan could not be decided (a price that is not configured). */
  problem?: string;
}

/** The outcome of the return from Checkout. */
export type CheckoutReturn = "applied" | "pending" | "foreign";

export type Billing = ReturnType<typeof createBilling>;

/** How long a page waits for Stripe's prices before showing the list prices. */
const PRICE_WAIT_MS = 3000;

/** Builds the billing service. */
export function createBilling(deps: BillingDeps) {
  const { sql, stripe, prices } = deps;
  let priceList: Promise<PriceList> | undefined;

  /** The account's Stripe customer, created (once, whatever the concurrency) when it has none. */
  async function customerOf(account: BillingAccount): Promise<string> {
    const known = await billingOfAccount(sql, account.id);
    if (known) return known.customerId;
    const customer = await stripe.customers.create(
      { email: account.email, metadata: { account_id: String(account.id) } },
      // Two first clicks at once get the same customer from Stripe.
      { idempotencyKey: `oppintel-customer-${account.id}-${account.email.toLowerCase()}` },
    );
    return await saveCustomer(sql, account.id, customer.id);
  }

  /** Reads the customer's subscriptions back from Stripe and applies the one that decides. */
  async function syncCustomer(customerId: string): Promise<SyncResult> {
    const record = await billingOfCustomer(sql, customerId);
    if (!record) throw new AccountError(`Stripe customer "${customerId}" is not one of ours`);
    const ticket = await readTicket(sql);
    const listed = await stripe.subscriptions.list({
      customer: customerId,
      status: "all",
      limit: 100,
      expand: ["data.latest_invoice", "data.schedule"],
    });
    const subscriptions = [...listed.data];
    const { kept, duplicates } = duplicateSubscriptions(subscriptions, prices);
    for (const duplicate of duplicates) {
      const ended = await endDuplicate(deps, duplicate, {
        accountId: record.accountId,
        kept: kept!.id,
      });
      subscriptions[subscriptions.indexOf(duplicate)] = ended;
    }
    const chosen = chooseSubscription(subscriptions, prices);
    if (!chosen) return {};
    const state = stateOf(chosen, prices);
    const applied = await applyState(sql, record.accountId, ticket, state);
    const problem = state.plan === undefined
      ? `Subscription ${chosen.id} has a price that is neither STRIPE_PRICE_PRO nor ` +
        "STRIPE_PRICE_BUSINESS; the plan was left as it was"
      : undefined;
    if (problem) deps.log({ level: "error", message: problem, customer: customerId });
    if (applied.applied && applied.before !== applied.after) {
      deps.log({
        level: "info",
        message: "plan changed by Stripe",
        account_id: record.accountId,
        from: applied.before,
        to: applied.after,
        subscription: chosen.id,
        status: chosen.status,
      });
    }
    return { ...applied, subscriptionId: chosen.id, status: chosen.status, problem };
  }

  /** Counts one session of the account; RateLimitedError (429) past the window's limit. */
  async function admitSession(accountId: number): Promise<void> {
    const { limit, windowSeconds } = deps.sessionLimit ?? SESSION_LIMIT;
    if (await hitRateLimit(sql, { bucket: `billing:session:${accountId}`, limit, windowSeconds })) {
      return;
    }
    // Fixed windows start at multiples of windowSeconds (db/rate_limits.ts).
    const left = windowSeconds - Math.floor(Date.now() / 1000) % windowSeconds;
    throw new RateLimitedError("Checkout and Billing pages opened", Math.max(1, left));
  }

  /** The portal session of the account, not counted (the caller counted it). */
  async function portalSession(account: BillingAccount): Promise<string> {
    const customer = await customerOf(account);
    const session = await stripe.billingPortal.sessions.create({
      customer,
      return_url: `${deps.publicBaseUrl}/account`,
    });
    return session.url;
  }

  /**
   * Expires the Checkout session a newer one replaced. One that cannot be expired (paid or
   * expired meanwhile, or Stripe out of reach) is logged and left: a second payment is undone
   * by the sync that finds its subscription.
   */
  async function expireCheckout(sessionId: string, accountId: number): Promise<void> {
    try {
      await stripe.checkout.sessions.expire(sessionId);
    } catch (error) {
      if (!(error instanceof StripeLibrary.errors.StripeError)) throw error;
      deps.log({
        // Paid or expired already: expected (a paid one's sync ends any second payment).
        level: error instanceof StripeLibrary.errors.StripeInvalidRequestError ? "info" : "warn",
        message: "earlier Checkout session not expired",
        account_id: accountId,
        session: sessionId,
        error: String(error).slice(0, 200),
      });
    }
  }

  return {
    syncCustomer,
    formAction: deps.formAction,

    /**
     * The Checkout page for `plan`: a subscription of the account's customer, bound to the
     * account. An account whose subscription is live changes plan in the portal instead (a
     * second subscription would be billed twice), so it gets the portal's address. The
     * account's earlier open session is expired, so that only the newest can be paid.
     * RateLimitedError past the account's session limit.
     */
    async checkoutUrl(account: BillingAccount, plan: PaidPlan): Promise<string> {
      await admitSession(account.id);
      const record = await billingOfAccount(sql, account.id);
      if (record && isLive(record.subscriptionStatus)) return await portalSession(account);
      const customer = record?.customerId ?? await customerOf(account);
      const base = deps.publicBaseUrl;
      const session = await stripe.checkout.sessions.create({
        mode: "subscription",
        customer,
        line_items: [{ price: prices[plan], quantity: 1 }],
        client_reference_id: String(account.id),
        metadata: { account_id: String(account.id), plan },
        subscription_data: { metadata: { account_id: String(account.id) } },
        success_url: `${base}/account?checkout={CHECKOUT_SESSION_ID}`,
        cancel_url: `${base}/account?done=checkout-cancelled`,
      });
      if (!session.url) throw new Error(`Checkout session ${session.id} has no URL`);
      const earlier = await swapOpenCheckout(sql, account.id, session.id);
      if (earlier && earlier !== session.id) await expireCheckout(earlier, account.id);
      return session.url;
    },

    /**
     * The customer portal of the account (card, invoices, plan switch, cancellation);
     * RateLimitedError past the account's session limit.
     */
    async portalUrl(account: BillingAccount): Promise<string> {
      await admitSession(account.id);
      return await portalSession(account);
    },

    /**
     * Back from Checkout with `sessionId`: when the session is this account's and complete, the
     * subscription is applied now rather than when the webhook comes. A session of another
     * account (a shared or guessed link) changes nothing and is turned away before Stripe is
     * asked: only the account's own open session is read, at most RETURN_LIMIT times a minute
     * (past it "pending", unread).
     */
    async returnFromCheckout(account: BillingAccount, sessionId: string): Promise<CheckoutReturn> {
      const record = await billingOfAccount(sql, account.id);
      if (!record || !/^cs_[A-Za-z0-9_]{1,200}$/.test(sessionId)) return "foreign";
      if (await openCheckoutOf(sql, account.id) !== sessionId) return "foreign";
      const bucket = `billing:return:${account.id}`;
      if (!await hitRateLimit(sql, { bucket, ...RETURN_LIMIT })) return "pending";
      const session = await stripe.checkout.sessions.retrieve(sessionId);
      const customer = typeof session.customer === "string"
        ? session.customer
        : session.customer?.id;
      if (session.client_reference_id !== String(account.id) || customer !== record.customerId) {
        return "foreign";
      }
      if (session.status !== "complete") return "pending";
      const synced = await syncCustomer(record.customerId);
      return synced.subscriptionId ? "applied" : "pending";
    },

    /** The account's billing record, or undefined before its first checkout. */
    record: (accountId: number): Promise<BillingRecord | undefined> =>
      billingOfAccount(sql, accountId),

    /** The billing record of the account with this e-mail (the operator's `billing show`). */
    async recordByEmail(
      email: string,
    ): Promise<{ account: BillingAccount; record?: BillingRecord }> {
      const account = await findAccountByEmail(sql, email);
      if (!account) throw new AccountError(`Cannot find account "${email.trim()}"`);
      return { account, record: await billingOfAccount(sql, account.id) };
    },

    /**
     * The monthly price of each plan: Stripe's once read, the list prices until then. A page
     * waits at most PRICE_WAIT_MS for Stripe; the read goes on and serves the next page.
     */
    async priceList(): Promise<PriceList> {
      priceList ??= readStripePrices(stripe, prices, deps.log).catch((error) => {
        // Not kept: the next page tries again.
        priceList = undefined;
        deps.log({ level: "error", message: "reading Stripe prices failed", error: String(error) });
        return LIST_PRICES;
      });
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<PriceList>((resolve) => {
        timer = setTimeout(() => resolve(LIST_PRICES), PRICE_WAIT_MS);
      });
      try {
        return await Promise.race([priceList, late]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
