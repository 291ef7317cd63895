/**
 * Billing as the server and the operator CLI build it from the configuration: the Stripe client,
 * the service and the webhook handler, or nothing when the STRIPE_* variables are unset.
 */
import type { Sql } from "../db/open.ts";
import type { StripeConfig } from "../platform/config.ts";
import type { Mailer } from "../platform/mailer.ts";
import { type Billing, createBilling } from "./billing.ts";
import { createStripeClient } from "./stripe.ts";
import { createBillingWebhook, type WebhookAnswer } from "./webhook.ts";

/** Stripe's hosted pages: Checkout and the customer portal. */
const STRIPE_PAGES = "https://checkout.stripe.com https://billing.stripe.com";

/** Billing and its webhook handler. */
export interface BillingSetup {
  billing: Billing;
  webhook: (body: Uint8Array, signature: string | null) => Promise<WebhookAnswer>;
}

/** Builds billing from `stripe` (config.stripe); undefined when billing is off. */
export function setUpBilling(
  stripe: StripeConfig | undefined,
  options: {
    sql: Sql;
    publicBaseUrl: string;
    mailer: Mailer;
    log?: (entry: Record<string, unknown>) => void;
  },
): BillingSetup | undefined {
  if (!stripe) return undefined;
  const log = options.log ?? ((entry) => console.error(JSON.stringify(entry)));
  const client = createStripeClient(stripe);
  const billing = createBilling({
    sql: options.sql,
    stripe: client,
    prices: stripe.prices,
    publicBaseUrl: options.publicBaseUrl,
    // A local stand-in (tests) serves its own pages.
    formAction: stripe.apiBase ? stripe.apiBase.origin : STRIPE_PAGES,
    log,
  });
  const webhook = createBillingWebhook({
    sql: options.sql,
    stripe: client,
    billing,
    webhookSecret: stripe.webhookSecret,
    mailer: options.mailer,
    publicBaseUrl: options.publicBaseUrl,
    log,
  });
  return { billing, webhook };
}
