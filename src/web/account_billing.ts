/**
 * The dashboard's plan section and its billing forms. With Stripe Billing on: the plans with their
 * prices and an upgrade button each (a POST that answers with a redirect to Stripe Checkout), a
 * Billing button to Stripe's customer portal, and the subscription's renewal or end date and last
 * payment. Without it: the prices and how to ask for a change. Prices and limits come from
 * platform/plans.ts and Stripe's prices (billing/prices.ts), as on the home page.
 */
import type { Billing, BillingAccount, CheckoutReturn } from "../billing/billing.ts";
import { Stripe } from "../billing/stripe.ts";
import { findAccountByEmail } from "../accounts/accounts.ts";
import type { SessionAccount } from "../accounts/sessions.ts";
import type { Sql } from "../db/open.ts";
import { formatPrice, LIST_PRICES, type PriceList } from "../billing/prices.ts";
import type { BillingRecord } from "../billing/store.ts";
import { isLive, type PaidPlan } from "../billing/state.ts";
import { type Plan, PLAN_LIMITS, PLAN_NAMES, PLAN_RANK, PLANS } from "../platform/plans.ts";
import type { UsageState } from "../platform/plans.ts";
import { RateLimitedError } from "../platform/errors.ts";
import { formatDate, html, type SafeHtml } from "./html.ts";
import { type AccountResponse, redirect, type Visit } from "./account_common.ts";

/** The notices of `/account?done=...` that billing adds. */
export const BILLING_NOTICES: [string, string][] = [
  ["checkout-cancelled", "Checkout was cancelled: nothing was charged and your plan is unchanged."],
];

function calls(n: number): string {
  return n.toLocaleString("en-US");
}

function when(date: Date | null): SafeHtml {
  if (!date) return html`an unknown date`;
  const iso = date.toISOString();
  return html`<time datetime="${iso}">${formatDate(iso)}</time>`;
}

/** What the subscription does next: renews, ends, or changes plan, and on which day. */
function renewalLine(record: BillingRecord): SafeHtml {
  if (record.cancelAt) {
    return html`
      <p
        id="billing-renewal">Your subscription is cancelled: it ends on ${when(
          record.cancelAt,
        )}, and the account moves to Free (${calls(
          PLAN_LIMITS.free,
        )} calls a month) then. Until then
          you keep your plan.</p>
    `;
  }
  if (record.pendingPlan && record.pendingAt) {
    const plan = record.pendingPlan as Plan;
    return html`
      <p
        id="billing-renewal">Your plan changes to ${PLAN_NAMES[plan]} (${calls(
          PLAN_LIMITS[plan],
        )} calls a month) on ${when(record.pendingAt)}, at the end of the paid period.</p>
    `;
  }
  return html`<p id="billing-renewal">Your subscription renews on ${
    when(record.currentPeriodEnd)
  }.</p>`;
}

/** A subscription that ended (cancelled, or after the last failed retry); nothing before one. */
function endedLine(record: BillingRecord | undefined): SafeHtml {
  if (!record?.subscriptionId) return html``;
  return html`
    <p
      id="billing-renewal">Your subscription has ended${record.lastPayment === "failed"
        ? " after its payment failed"
        : ""}; the account is on the plan shown above.</p>
  `;
}

function paymentLine(record: BillingRecord): SafeHtml {
  if (record.lastPayment === "paid") {
    return record.lastPaymentAt
      ? html`<p id="billing-payment">Last payment: paid on ${when(record.lastPaymentAt)}.</p>`
      : html`<p id="billing-payment">Last payment: paid.</p>`;
  }
  if (record.lastPayment === "failed") {
    const retry = record.nextPaymentAttempt
      ? html`Stripe tries again on ${when(record.nextPaymentAttempt)}; you keep your plan
      meanwhile.`
      : html`Stripe will not try again: unless it is paid, the subscription ends and the account
      moves to Free.`;
    return html`<p id="billing-payment" class="card error" role="alert">Your last payment
    failed. ${retry} Update your card under Billing.</p>`;
  }
  return html``;
}

function upgradeForms(plan: Plan, prices: PriceList, csrf: SafeHtml): SafeHtml {
  const higher = PLANS.filter((p): p is PaidPlan => p !== "free" && PLAN_RANK[p] > PLAN_RANK[plan]);
  if (higher.length === 0) return html``;
  const forms = higher.map((p) =>
    html`<form method="post" action="/account/billing/checkout" class="inline">${csrf}
  <input type="hidden" name="plan" value="${p}">
  <button type="submit" id="upgrade-${p}">Upgrade to ${PLAN_NAMES[p]}: ${
      formatPrice(prices.prices[p])
    }</button></form>`
  );
  return html`
    <div class="upgrade">${forms}</div>
    <p class="muted">Payment by card through Stripe. Upgrades take effect at once; you can change
      plan, update your card or cancel at any time under Billing.</p>
  `;
}

/** The plans and their prices, one line each. */
function priceLines(prices: PriceList): SafeHtml {
  const items = PLANS.map((p) =>
    html`<li>${PLAN_NAMES[p]}: ${calls(PLAN_LIMITS[p])} calls a month, ${
      formatPrice(prices.prices[p])
    }</li>`
  );
  return html`<ul id="plan-prices">${items}</ul>`;
}

/** The dashboard's "Plan and usage" section. */
export async function planSection(
  options: {
    account: BillingAccount;
    usage: UsageState;
    csrf: SafeHtml;
    billing?: Billing;
    contact: SafeHtml;
  },
): Promise<SafeHtml> {
  const { account, usage, csrf, billing } = options;
  const planName = PLAN_NAMES[account.plan];
  const limit = calls(usage.limit);
  const summary = html`
    <p>Plan: <strong id="current-plan">${planName}</strong>, ${limit} calls a month.</p>
    <p><meter id="usage-meter" min="0" max="${usage.limit}" value="${usage.used}">${usage
      .used}</meter></p>
    <p id="usage"><strong>${usage.used}</strong> of ${usage.limit} calls used this month,
    ${usage.remaining} left. The count resets on
    <time datetime="${usage.reset_at}">${formatDate(usage.reset_at)}</time> at 00:00 UTC.</p>
  `;
  let manage: SafeHtml;
  if (!billing) {
    manage = html`${priceLines(LIST_PRICES)}
      <p class="muted">All your keys share this quota, on REST and MCP alike. To change your
    plan, ${options.contact}; plan changes are made by our team.</p>`;
  } else {
    const [record, prices] = await Promise.all([billing.record(account.id), billing.priceList()]);
    const live = record && isLive(record.subscriptionStatus);
    const portal = record
      ? html`
        <form method="post" action="/account/billing/portal" class="inline">${csrf}
          <button type="submit" class="secondary" id="billing-portal">Billing</button></form>
        <p class="muted">Billing opens Stripe's customer portal: your card, invoices, a switch of plan
          or a cancellation. Downgrades and cancellations take effect at the end of the paid period.</p>
      `
      : html``;
    manage = html`
      ${live ? renewalLine(record) : endedLine(record)}
      ${live ? paymentLine(record) : ""}
      ${live ? html`` : upgradeForms(account.plan, prices, csrf)}
      ${portal}
      <p class="muted">All your keys share this quota, on REST and MCP alike.</p>
      ${priceLines(prices)}
    `;
  }
  return html`
    <section class="card" aria-labelledby="usage-title">
      <h2 id="usage-title">Plan and usage</h2>
      ${summary}
      ${manage}
    </section>
  `;
}

/** Errors of the Stripe library: its requests failed, or Stripe refused one. */
function isStripeError(error: unknown): boolean {
  return error instanceof Stripe.errors.StripeError;
}

type Current = { account: SessionAccount; secret: string };

/** The billing forms' POSTs and the return from Checkout. */
export function createBillingForms(deps: {
  sql: Sql;
  billing?: Billing;
  log: (entry: Record<string, unknown>) => void;
  dashboard: (
    current: Current,
    extra: { notice?: string; error?: string; status?: number },
  ) => Promise<AccountResponse>;
  signedInForm: (
    visit: Visit,
  ) => Promise<{ current: Current; form: URLSearchParams } | AccountResponse>;
}) {
  const { billing, dashboard } = deps;

  /** A Billing or an Upgrade button: a redirect to Stripe's portal or Checkout. */
  async function post(visit: Visit, action: "checkout" | "portal"): Promise<AccountResponse> {
    const checked = await deps.signedInForm(visit);
    if ("status" in checked) return checked;
    const { current, form } = checked;
    if (!billing) {
      return await dashboard(current, { error: "Plans are changed by our team.", status: 404 });
    }
    const plan = form.get("plan");
    if (action === "checkout" && plan !== "pro" && plan !== "business") {
      return await dashboard(current, {
        error: "Choose the Pro or the Business plan.",
        status: 422,
      });
    }
    try {
      return redirect(
        action === "portal"
          ? await billing.portalUrl(current.account)
          : await billing.checkoutUrl(current.account, plan as PaidPlan),
      );
    } catch (error) {
      if (error instanceof RateLimitedError) {
        const minutes = Math.ceil(error.retryAfterSeconds / 60);
        const page = await dashboard(current, {
          error: `Too many Checkout or Billing pages were opened for this account. Nothing was ` +
            `charged; use the page you opened last, or try again in ${minutes} minute` +
            `${minutes === 1 ? "" : "s"}.`,
          status: 429,
        });
        return {
          ...page,
          headers: { ...page.headers, "Retry-After": String(error.retryAfterSeconds) },
        };
      }
      if (!isStripeError(error)) throw error;
      deps.log({ level: "error", message: `Stripe ${action} failed`, error: String(error) });
      return await dashboard(current, {
        error: "Stripe could not be reached. Nothing was charged; please try again in a moment.",
        status: 503,
      });
    }
  }

  /** Back from Checkout: the new plan shows as soon as Stripe says the session is complete. */
  async function back(current: Current, sessionId: string): Promise<AccountResponse> {
    let outcome: CheckoutReturn;
    try {
      outcome = await billing!.returnFromCheckout(current.account, sessionId);
    } catch (error) {
      if (!isStripeError(error)) throw error;
      deps.log({ level: "error", message: "Stripe checkout read failed", error: String(error) });
      outcome = "pending";
    }
    if (outcome === "foreign") return redirect("/account");
    // The read may have changed the plan: the page shows the account as it is now.
    const account = await findAccountByEmail(deps.sql, current.account.email);
    const plan = account?.plan ?? current.account.plan;
    const notice = outcome === "applied"
      ? `Thank you: you are on the ${PLAN_NAMES[plan]} plan now.`
      : "Stripe has not confirmed the payment yet. Your plan changes as soon as it does: " +
        "reload this page in a moment.";
    return await dashboard({ ...current, account: { ...current.account, plan } }, { notice });
  }

  return { post, back };
}
