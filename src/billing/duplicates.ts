/**
 * A second subscription of one account, ended by the sync that finds it: cancelled at once
 * without proration, and its payment refunded in full. The first subscription stays, so the
 * customer keeps what they had; the second gave nothing the first did not, so nothing of it is
 * kept either (a proration would only leave a credit for the unused part of the period). Both
 * calls are safe to repeat: two webhooks of one customer may sync at once, and a cancelled
 * subscription or a refunded payment only makes Stripe say so.
 */
import { Stripe } from "./stripe.ts";

/** What ending a duplicate needs. */
export interface DuplicateDeps {
  stripe: Stripe;
  log: (entry: Record<string, unknown>) => void;
}

function idOf(value: string | { id: string } | null | undefined): string | undefined {
  if (value === null || value === undefined) return undefined;
  return typeof value === "string" ? value : value.id;
}

/** True when Stripe refused the request itself (already cancelled, already refunded). */
function isRefusal(error: unknown): boolean {
  return error instanceof Stripe.errors.StripeInvalidRequestError;
}

/** Refunds the payments of the subscription's newest invoice; returns the refunded cents. */
async function refundLatestInvoice(
  deps: DuplicateDeps,
  subscription: Stripe.Subscription,
  accountId: number,
): Promise<number> {
  const invoice = subscription.latest_invoice;
  const invoiceId = idOf(invoice);
  if (!invoiceId || (typeof invoice === "object" && invoice?.status !== "paid")) return 0;
  const payments = await deps.stripe.invoicePayments.list({ invoice: invoiceId, status: "paid" });
  let refunded = 0;
  for (const payment of payments.data) {
    const intent = idOf(payment.payment.payment_intent);
    const charge = idOf(payment.payment.charge);
    if (!intent && !charge) continue;
    try {
      const refund = await deps.stripe.refunds.create(
        {
          ...(intent ? { payment_intent: intent } : { charge }),
          reason: "duplicate",
          metadata: { account_id: String(accountId), subscription: subscription.id },
        },
        { idempotencyKey: `oppintel-refund-${subscription.id}-${intent ?? charge}` },
      );
      refunded += refund.amount;
    } catch (error) {
      if (!isRefusal(error)) throw error;
      // Refunded by a concurrent sync (after the idempotency key's 24 hours Stripe says so).
    }
  }
  return refunded;
}

/**
 * Cancels `subscription` (a second one of the account, see state.ts duplicateSubscriptions) and
 * refunds its payment; returns it as cancelled, for the sync to choose among the rest.
 */
export async function endDuplicate(
  deps: DuplicateDeps,
  subscription: Stripe.Subscription,
  options: { accountId: number; kept: string },
): Promise<Stripe.Subscription> {
  let ended: Stripe.Subscription = { ...subscription, status: "canceled" };
  try {
    const cancelled = await deps.stripe.subscriptions.cancel(subscription.id, {
      prorate: false,
      invoice_now: false,
    });
    ended = { ...subscription, status: cancelled.status };
  } catch (error) {
    // Already cancelled by a concurrent sync: refunding is still this sync's to make sure of.
    if (!isRefusal(error)) throw error;
  }
  const refunded = await refundLatestInvoice(deps, subscription, options.accountId);
  deps.log({
    level: "warn",
    message: "second subscription of an account cancelled and refunded",
    account_id: options.accountId,
    kept: options.kept,
    cancelled: subscription.id,
    refunded_cents: refunded,
  });
  return ended;
}
