/**
 * Stripe's webhook events, at POST /billing/webhook: the signature is checked by the library over
 * the exact bytes received (with its 5-minute timestamp tolerance), each event id is applied once,
 * and every event that touches a subscription syncs its customer (billing.ts: the state is read
 * back from Stripe, so order does not matter). A failed payment mails the account's owner; the
 * plan stays while Stripe retries and drops to Free only when Stripe ends the subscription.
 *
 * Answers: 200 when the event is applied, ignored or seen before; 400 for a missing, forged or
 * stale signature, a body that is no event, or a signed event whose ids the database cannot store
 * (a control character, an unpaired surrogate, more than 255 characters: Stripe never sends one,
 * and a retry could not change it); nothing is changed then. 503 only when Stripe or the database
 * could not be reached, so that Stripe delivers the event again later: never for what the event
 * holds, since Stripe retries a 5xx for three days.
 */
import type { Mailer } from "../platform/mailer.ts";
import { PLAN_LIMITS, PLAN_NAMES } from "../platform/plans.ts";
import type { Billing } from "./billing.ts";
import { type Stripe, webhookCrypto } from "./stripe.ts";
import { billingOfCustomer, claimEvent, releaseEvent } from "./store.ts";
import { isLive } from "./state.ts";
import type { Sql } from "../db/open.ts";
import { textProblem } from "../platform/text.ts";

/** The events the endpoint applies; Stripe's endpoint should send exactly these. */
export const BILLING_EVENTS = [
  "checkout.session.completed",
  "customer.subscription.created",
  "customer.subscription.updated",
  "customer.subscription.deleted",
  "invoice.paid",
  "invoice.payment_failed",
] as const;

/** Seconds a signature's timestamp may be old: the library's default, Stripe's advice. */
export const SIGNATURE_TOLERANCE_S = 300;

/** What the webhook needs. */
export interface WebhookDeps {
  sql: Sql;
  stripe: Stripe;
  billing: Billing;
  webhookSecret: string;
  mailer: Mailer;
  publicBaseUrl: string;
  log: (entry: Record<string, unknown>) => void;
}

/** The answer to a delivery. */
export interface WebhookAnswer {
  status: 200 | 400 | 503;
  body: Record<string, unknown>;
}

/** The longest id taken from an event: Stripe's ids are at most 255 characters. */
const MAX_ID_LENGTH = 255;

interface EventObject {
  id?: unknown;
  object?: unknown;
  customer?: unknown;
  client_reference_id?: unknown;
}

function customerIdOf(object: EventObject): string | undefined {
  const customer = object.customer;
  if (typeof customer === "string") return customer;
  if (
    customer && typeof customer === "object" &&
    typeof (customer as { id?: unknown }).id === "string"
  ) {
    return (customer as { id: string }).id;
  }
  return undefined;
}

/** What keeps one of the event's strings from being stored, or undefined when all are clean. */
function eventProblem(event: Stripe.Event): string | undefined {
  const object = (event.data?.object ?? {}) as EventObject;
  const fields: [string, unknown][] = [
    ["id", event.id],
    ["type", event.type],
    ["data.object.id", object.id],
    ["data.object.customer", customerIdOf(object)],
    ["data.object.client_reference_id", object.client_reference_id],
  ];
  for (const [name, value] of fields) {
    if (typeof value !== "string") continue;
    if (value.length > MAX_ID_LENGTH) return `${name} is longer than ${MAX_ID_LENGTH} characters`;
    const problem = textProblem(value);
    if (problem) return `${name} ${problem}`;
  }
  return undefined;
}

/** True for a PostgreSQL data exception (class 22): a value it cannot take, whatever the retry. */
function isDataError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("22");
}

const INVALID_EVENT = {
  error: "invalid_event",
  message: "The event holds a value that cannot be stored",
};

/**
 * True when a Stripe-Signature header could be genuine: at most 2,000 characters of `key=value`
 * pairs holding a timestamp `t` of digits and at least one `v1` digest of 64 hex digits (Stripe
 * signs with HMAC-SHA256). Anything else is refused before its body is read.
 */
export function signatureCanBeValid(header: string | null): boolean {
  if (!header || header.length > 2000) return false;
  const pairs = header.split(",").map((part) => part.trim().split("="));
  if (pairs.some((pair) => pair.length !== 2)) return false;
  return pairs.some(([key, value]) => key === "t" && /^\d{1,12}$/.test(value)) &&
    pairs.some(([key, value]) => key === "v1" && /^[0-9a-f]{64}$/i.test(value));
}

/** Builds the webhook handler: `(raw body, Stripe-Signature header) -> answer`. */
export function createBillingWebhook(deps: WebhookDeps) {
  const { sql, log } = deps;

  async function verified(body: Uint8Array, signature: string | null) {
    if (!signature) return undefined;
    try {
      return await deps.stripe.webhooks.constructEventAsync(
        body,
        signature,
        deps.webhookSecret,
        SIGNATURE_TOLERANCE_S,
        webhookCrypto,
      );
    } catch (error) {
      // A forged, stale or malformed signature, or a signed body that is not JSON.
      log({ level: "warn", message: "Stripe webhook refused", error: String(error).slice(0, 200) });
      return undefined;
    }
  }

  /** Applies one verified event; returns what it did, for the answer and the log. */
  async function apply(event: Stripe.Event): Promise<string> {
    const object = (event.data?.object ?? {}) as EventObject;
    const customerId = customerIdOf(object);
    if (!customerId) return "no customer";
    const record = await billingOfCustomer(sql, customerId);
    if (!record) {
      log({
        level: "warn",
        message: "Stripe event for an unknown customer: nothing changed",
        event: event.id,
        type: event.type,
        customer: customerId,
      });
      return "unknown customer";
    }
    if (
      event.type === "checkout.session.completed" &&
      object.client_reference_id !== String(record.accountId)
    ) {
      // The customer is this account's, but the session names another: apply nothing from it.
      log({
        level: "warn",
        message: "Checkout session bound to another account: nothing changed",
        event: event.id,
        customer: customerId,
        account_id: record.accountId,
      });
      return "account mismatch";
    }
    const synced = await deps.billing.syncCustomer(customerId);
    if (event.type === "invoice.payment_failed" && typeof object.id === "string") {
      await mailFailure(customerId, object.id);
    }
    return synced.applied ? "applied" : "older than the state kept";
  }

  /**
   * Mails the owner about a failed payment, unless the failure is already old news (the invoice
   * was paid since, or a newer invoice decides the state).
   */
  async function mailFailure(customerId: string, invoiceId: string): Promise<void> {
    const record = await billingOfCustomer(sql, customerId);
    if (!record || record.lastInvoiceId !== invoiceId || record.lastPayment !== "failed") return;
    const plan = record.paidPlan ? PLAN_NAMES[record.paidPlan] : "paid";
    const next = !isLive(record.subscriptionStatus)
      ? `Stripe has stopped trying, and the subscription has ended: the account is on the Free ` +
        `plan (${PLAN_LIMITS.free} calls a month) now. You can subscribe again from your account.`
      : record.nextPaymentAttempt
      ? `Stripe will try again on ${day(record.nextPaymentAttempt)}; you keep the ${plan} plan ` +
        "meanwhile."
      : `Stripe will not try again. Unless it is paid, the subscription ends and the account ` +
        `moves to the Free plan (${PLAN_LIMITS.free} calls a month).`;
    try {
      await deps.mailer.send({
        to: record.email,
        subject: `Your payment for the ${plan} plan failed`,
        text: [
          `We could not take the payment for your Opportunity Intelligence ${plan} plan.`,
          next,
          "",
          "To update your card, open your account and choose Billing:",
          `${deps.publicBaseUrl}/account`,
        ].join("\n"),
      });
    } catch (error) {
      log({ level: "error", message: "payment failure mail failed", error: String(error) });
    }
  }

  return async function handleWebhook(
    body: Uint8Array,
    signature: string | null,
  ): Promise<WebhookAnswer> {
    if (!signature) {
      return {
        status: 400,
        body: { error: "missing_signature", message: "The Stripe-Signature header is missing" },
      };
    }
    if (!signatureCanBeValid(signature)) {
      return {
        status: 400,
        body: { error: "invalid_signature", message: "The Stripe signature is not valid" },
      };
    }
    const event = await verified(body, signature);
    if (!event || typeof event.id !== "string" || typeof event.type !== "string") {
      return {
        status: 400,
        body: { error: "invalid_signature", message: "The Stripe signature is not valid" },
      };
    }
    const problem = eventProblem(event);
    if (problem) {
      // Signed, so from Stripe or someone holding the secret: worth a look, never a retry.
      log({ level: "warn", message: "Stripe event refused", problem, type: String(event.type) });
      return { status: 400, body: INVALID_EVENT };
    }
    if (!(BILLING_EVENTS as readonly string[]).includes(event.type)) {
      return { status: 200, body: { received: true, outcome: "ignored" } };
    }
    let claimed = false;
    try {
      claimed = await claimEvent(sql, event.id, event.type);
      if (!claimed) return { status: 200, body: { received: true, outcome: "duplicate" } };
      const outcome = await apply(event);
      log({ level: "info", message: "Stripe event", event: event.id, type: event.type, outcome });
      return { status: 200, body: { received: true, outcome } };
    } catch (error) {
      // Stripe delivers again later (for up to three days): the event must not count as seen.
      if (claimed) await releaseEvent(sql, event.id).catch(() => {});
      if (isDataError(error)) {
        // A value the database refuses stays refused: a retry would fail the same way.
        log({
          level: "warn",
          message: "Stripe event refused by the database",
          event: event.id,
          type: event.type,
          error: String(error).slice(0, 200),
        });
        return { status: 400, body: INVALID_EVENT };
      }
      log({
        level: "error",
        message: "Stripe event failed; Stripe will deliver it again",
        event: event.id,
        type: event.type,
        error: error instanceof Error ? error.stack ?? error.message : String(error),
      });
      return {
        status: 503,
        body: { error: "service_unavailable", message: "Try again later" },
      };
    }
  };
}

function day(date: Date): string {
  return date.toLocaleDateString("en-GB", {
    day: "numeric",
    month: "long",
    year: "numeric",
    timeZone: "UTC",
  });
}
