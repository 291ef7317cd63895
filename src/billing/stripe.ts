/**
 * The Stripe client: the official `stripe` library with its fetch HTTP client (Deno has no Node
 * http agent to give it) and Web Crypto for webhook signatures. Tests point it at a local
 * stand-in through STRIPE_API_BASE (config.ts refuses anything but a loopback address).
 */
import Stripe from "stripe";
import type { StripeConfig } from "../platform/config.ts";

export { Stripe };

/** A Stripe call that took longer fails: a webhook is retried by Stripe, a click is answered. */
const TIMEOUT_MS = 15_000;

/** The Stripe client of `config`. */
export function createStripeClient(config: StripeConfig): Stripe {
  const base = config.apiBase;
  return new Stripe(config.secretKey, {
    httpClient: Stripe.createFetchHttpClient(),
    timeout: TIMEOUT_MS,
    // Retries of idempotent requests (the library sends an idempotency key with each POST).
    maxNetworkRetries: 1,
    // No request timings sent to Stripe in the headers of later requests.
    telemetry: false,
    appInfo: { name: "oppintel" },
    ...(base
      ? {
        host: base.hostname,
        port: base.port || (base.protocol === "https:" ? "443" : "80"),
        protocol: base.protocol === "https:" ? "https" : "http",
      }
      : {}),
  });
}

/** Web Crypto for the webhook signature (HMAC-SHA256), the only kind Deno offers the library. */
export const webhookCrypto = Stripe.createSubtleCryptoProvider();
