/**
 * A local stand-in for the few Stripe API endpoints the service calls, served over real HTTP so
 * that the official `stripe` library runs unchanged against it (STRIPE_API_BASE):
 * - POST /v1/customers (an Idempotency-Key returns the customer made first), GET /v1/prices/:id;
 * - POST /v1/checkout/sessions, GET /v1/checkout/sessions/:id, POST
 *   /v1/checkout/sessions/:id/expire (only an open session; recorded in `expired`), and the
 *   Checkout page itself at /checkout/:id (a Pay button) that completes the session and
 *   redirects to its success_url (an expired session cannot be paid);
 * - POST /v1/billing_portal/sessions and a portal page at /portal/:id (a link back);
 * - GET /v1/subscriptions?customer=&status=all with `expand[]` of data.latest_invoice and
 *   data.schedule, GET /v1/subscriptions/:id, DELETE /v1/subscriptions/:id (cancelled at once,
 *   with the customer.subscription.deleted event Stripe sends; the options in `cancellations`);
 * - GET /v1/invoice_payments?invoice= (the payment of a paid invoice) and POST /v1/refunds of a
 *   payment_intent (an Idempotency-Key returns the refund made first; kept in `refunds`).
 * Everything else answers 404 in Stripe's error shape, so a call the service should not make
 * fails loudly. The test drives what Stripe would do on its own (a portal switch, a renewal, a
 * failed charge, the end of retries) through methods, each returning the events Stripe would
 * send, as snapshots taken at that moment; `signed` signs one with the library's test helper.
 */
import Stripe from "stripe";

const DAY_S = 86_400;
/** The API version of the pinned library, which its events carry. */
const API_VERSION = "2026-10-28.endive";
const PERIOD_S = 30 * DAY_S;

type Obj = Record<string, unknown> & { id: string };

export interface StripeEvent {
  id: string;
  object: "event";
  type: string;
  created: number;
  api_version: string;
  livemode: false;
  data: { object: Obj };
}

export interface LocalStripeOptions {
  secretKey?: string;
  webhookSecret?: string;
  prices?: { pro: string; business: string };
}

/** The local stand-in; `env` holds the STRIPE_* variables that point the service at it. */
export interface LocalStripe {
  base: string;
  env: Record<string, string>;
  webhookSecret: string;
  prices: { pro: string; business: string };
  /** Every API request received: "METHOD /path". */
  requests: string[];
  /** Every event Stripe would have sent so far, oldest first (also those of the pages). */
  events: StripeEvent[];
  /** Stripe's clock, in seconds; tests move it forward. */
  now: number;
  customers: Map<string, Obj>;
  subscriptions: Map<string, Obj>;
  sessions: Map<string, Obj>;
  /** The ids of the Checkout sessions expired through the API, in order. */
  expired: string[];
  /** Subscriptions cancelled through the API, with the options of each call. */
  cancellations: { id: string; prorate: string | null; invoiceNow: string | null }[];
  /** Refunds made through the API, by id. */
  refunds: Map<string, Obj>;
  /** Completes a Checkout session as paying on its page does; returns the events. */
  completeCheckout(sessionId: string): StripeEvent[];
  /** A plan switch in the portal that takes effect at once (an upgrade). */
  switchNow(subscriptionId: string, price: string): StripeEvent[];
  /** A switch scheduled for the end of the period (a downgrade in the portal). */
  scheduleSwitch(subscriptionId: string, price: string): StripeEvent[];
  /** Cancellation at the end of the period, from the portal. */
  cancelAtPeriodEnd(subscriptionId: string): StripeEvent[];
  /** The period ends: a scheduled switch or a cancellation takes effect, else a renewal. */
  endPeriod(subscriptionId: string): StripeEvent[];
  /** The renewal's charge fails; Stripe retries in `retryDays` (undefined: no more retries). */
  failPayment(subscriptionId: string, retryDays?: number): StripeEvent[];
  /** A retry succeeds (or the customer paid with a new card). */
  recoverPayment(subscriptionId: string): StripeEvent[];
  /** Retries are exhausted and Stripe cancels the subscription (the default setting). */
  endAfterFailures(subscriptionId: string): StripeEvent[];
  /** An event as Stripe sends it: the JSON body and its Stripe-Signature header. */
  signed(
    event: StripeEvent,
    options?: { timestamp?: number; secret?: string },
  ): Promise<{ body: string; signature: string }>;
  close(): Promise<void>;
}

let counter = 0;
function newId(prefix: string): string {
  return `${prefix}_test${(++counter).toString(36)}${crypto.randomUUID().slice(0, 8)}`;
}

function stripeError(status: number, message: string): Response {
  return Response.json({ error: { type: "invalid_request_error", message } }, { status });
}

/** Starts the local Stripe on a free loopback port. */
export function startLocalStripe(options: LocalStripeOptions = {}): Promise<LocalStripe> {
  const secretKey = options.secretKey ?? "sk_test_local";
  const webhookSecret = options.webhookSecret ?? "whsec_local_test_secret";
  const prices = options.prices ?? { pro: "price_test_pro", business: "price_test_business" };
  const amounts: Record<string, number> = { [prices.pro]: 2000, [prices.business]: 5000 };
  const customers = new Map<string, Obj>();
  const idempotent = new Map<string, Obj>();
  const subscriptions = new Map<string, Obj>();
  const invoices = new Map<string, Obj>();
  const schedules = new Map<string, Obj>();
  const sessions = new Map<string, Obj>();
  const portals = new Map<string, Obj>();
  const requests: string[] = [];
  const expired: string[] = [];
  const cancellations: LocalStripe["cancellations"] = [];
  const refunds = new Map<string, Obj>();
  const refundKeys = new Map<string, Obj>();
  const events: StripeEvent[] = [];
  let base = "";

  const state = {
    now: Math.floor(Date.now() / 1000),
  };
  // Events of one moment get increasing `created` seconds, as Stripe's do over time.
  const tick = () => ++state.now;

  function priceObject(id: string): Obj {
    return {
      id,
      object: "price",
      active: true,
      currency: "usd",
      unit_amount: amounts[id] ?? 0,
      type: "recurring",
      recurring: { interval: "month", interval_count: 1, usage_type: "licensed" },
      product: `prod_${id}`,
    };
  }

  function item(sub: Obj): Obj {
    return (sub.items as { data: Obj[] }).data[0];
  }

  function snapshot(object: Obj): Obj {
    return structuredClone(object);
  }

  function event(type: string, object: Obj): StripeEvent {
    const made: StripeEvent = {
      id: newId("evt"),
      object: "event",
      type,
      created: tick(),
      api_version: API_VERSION,
      livemode: false,
      data: { object: snapshot(object) },
    };
    events.push(made);
    return made;
  }

  function newInvoice(sub: Obj, paid: boolean): Obj {
    const price = (item(sub).price as Obj).id;
    const invoice: Obj = {
      id: newId("in"),
      object: "invoice",
      customer: sub.customer,
      created: tick(),
      status: paid ? "paid" : "open",
      amount_due: amounts[price] ?? 0,
      amount_paid: paid ? amounts[price] ?? 0 : 0,
      attempt_count: 1,
      attempted: true,
      next_payment_attempt: null,
      status_transitions: { paid_at: paid ? state.now : null },
      // The payment behind a paid invoice (GET /v1/invoice_payments), refundable once.
      payment_intent_id: paid ? newId("pi") : null,
      parent: {
        type: "subscription_details",
        subscription_details: { subscription: sub.id, metadata: sub.metadata },
      },
    };
    invoices.set(invoice.id, invoice);
    sub.latest_invoice = invoice.id;
    return invoice;
  }

  function setPeriod(sub: Obj, start: number): void {
    const it = item(sub);
    it.current_period_start = start;
    it.current_period_end = start + PERIOD_S;
  }

  function expanded(sub: Obj, expand: string[]): Obj {
    const copy = snapshot(sub);
    if (expand.includes("latest_invoice") && typeof copy.latest_invoice === "string") {
      copy.latest_invoice = snapshot(invoices.get(copy.latest_invoice)!);
    }
    if (expand.includes("schedule") && typeof copy.schedule === "string") {
      copy.schedule = snapshot(schedules.get(copy.schedule)!);
    }
    return copy;
  }

  function sub(id: string): Obj {
    const found = subscriptions.get(id);
    if (!found) throw new Error(`No subscription ${id}`);
    return found;
  }

  const api = {
    completeCheckout(sessionId: string): StripeEvent[] {
      const session = sessions.get(sessionId);
      if (!session) throw new Error(`No checkout session ${sessionId}`);
      if (session.status === "complete") return [];
      if (session.status === "expired") throw new Error(`Checkout session ${sessionId} expired`);
      const price = session.price as string;
      const subscription: Obj = {
        id: newId("sub"),
        object: "subscription",
        customer: session.customer,
        status: "active",
        created: tick(),
        cancel_at: null,
        cancel_at_period_end: false,
        canceled_at: null,
        ended_at: null,
        schedule: null,
        latest_invoice: null,
        metadata: session.subscription_metadata ?? {},
        items: {
          object: "list",
          data: [{
            id: newId("si"),
            object: "subscription_item",
            price: priceObject(price),
            quantity: 1,
          }],
        },
      };
      setPeriod(subscription, state.now);
      subscriptions.set(subscription.id, subscription);
      const invoice = newInvoice(subscription, true);
      session.status = "complete";
      session.payment_status = "paid";
      session.subscription = subscription.id;
      return [
        event("customer.subscription.created", subscription),
        event("invoice.paid", invoice),
        event("checkout.session.completed", session),
      ];
    },

    switchNow(subscriptionId: string, price: string): StripeEvent[] {
      const s = sub(subscriptionId);
      item(s).price = priceObject(price);
      const invoice = newInvoice(s, true);
      return [event("customer.subscription.updated", s), event("invoice.paid", invoice)];
    },

    scheduleSwitch(subscriptionId: string, price: string): StripeEvent[] {
      const s = sub(subscriptionId);
      const it = item(s);
      const schedule: Obj = {
        id: newId("sub_sched"),
        object: "subscription_schedule",
        subscription: s.id,
        end_behavior: "release",
        phases: [
          {
            start_date: it.current_period_start,
            end_date: it.current_period_end,
            items: [{ price: (it.price as Obj).id, quantity: 1 }],
          },
          {
            start_date: it.current_period_end,
            end_date: (it.current_period_end as number) + PERIOD_S,
            items: [{ price, quantity: 1 }],
          },
        ],
      };
      schedules.set(schedule.id, schedule);
      s.schedule = schedule.id;
      return [event("customer.subscription.updated", s)];
    },

    cancelAtPeriodEnd(subscriptionId: string): StripeEvent[] {
      const s = sub(subscriptionId);
      s.cancel_at_period_end = true;
      s.cancel_at = item(s).current_period_end;
      s.canceled_at = state.now;
      return [event("customer.subscription.updated", s)];
    },

    endPeriod(subscriptionId: string): StripeEvent[] {
      const s = sub(subscriptionId);
      const end = item(s).current_period_end as number;
      state.now = Math.max(state.now, end);
      if (s.cancel_at_period_end) {
        s.status = "canceled";
        s.ended_at = end;
        return [event("customer.subscription.deleted", s)];
      }
      if (typeof s.schedule === "string") {
        const schedule = schedules.get(s.schedule)!;
        const next = (schedule.phases as { items: { price: string }[] }[])[1];
        item(s).price = priceObject(next.items[0].price);
        s.schedule = null;
        schedule.status = "released";
      }
      setPeriod(s, end);
      const invoice = newInvoice(s, true);
      return [event("customer.subscription.updated", s), event("invoice.paid", invoice)];
    },

    failPayment(subscriptionId: string, retryDays?: number): StripeEvent[] {
      const s = sub(subscriptionId);
      const end = item(s).current_period_end as number;
      state.now = Math.max(state.now, end);
      setPeriod(s, end);
      const invoice = newInvoice(s, false);
      invoice.next_payment_attempt = retryDays === undefined ? null : state.now + retryDays * DAY_S;
      s.status = "past_due";
      return [event("invoice.payment_failed", invoice), event("customer.subscription.updated", s)];
    },

    recoverPayment(subscriptionId: string): StripeEvent[] {
      const s = sub(subscriptionId);
      const invoice = invoices.get(s.latest_invoice as string)!;
      invoice.status = "paid";
      invoice.attempt_count = (invoice.attempt_count as number) + 1;
      invoice.next_payment_attempt = null;
      invoice.amount_paid = invoice.amount_due;
      invoice.status_transitions = { paid_at: tick() };
      invoice.payment_intent_id = newId("pi");
      s.status = "active";
      return [event("invoice.paid", invoice), event("customer.subscription.updated", s)];
    },

    endAfterFailures(subscriptionId: string): StripeEvent[] {
      const s = sub(subscriptionId);
      const invoice = invoices.get(s.latest_invoice as string)!;
      invoice.attempt_count = (invoice.attempt_count as number) + 3;
      invoice.next_payment_attempt = null;
      const failed = event("invoice.payment_failed", invoice);
      s.status = "canceled";
      s.ended_at = tick();
      return [failed, event("customer.subscription.deleted", s)];
    },
  };

  async function handleApi(request: Request, url: URL): Promise<Response> {
    if (request.headers.get("authorization") !== `Bearer ${secretKey}`) {
      return stripeError(401, "Invalid API Key provided");
    }
    const params = request.method === "POST"
      ? new URLSearchParams(await request.text())
      : url.searchParams;
    const expand = [...params.entries()].filter(([k]) => /^expand\[\d*\]$/.test(k))
      .map(([, v]) => v.replace(/^data\./, ""));
    const path = url.pathname;
    let match: RegExpExecArray | null;
    if (request.method === "POST" && path === "/v1/customers") {
      const key = request.headers.get("idempotency-key");
      const earlier = key ? idempotent.get(key) : undefined;
      if (earlier) return Response.json(earlier);
      const customer: Obj = {
        id: newId("cus"),
        object: "customer",
        email: params.get("email"),
        metadata: { account_id: params.get("metadata[account_id]") },
        created: tick(),
      };
      customers.set(customer.id, customer);
      if (key) idempotent.set(key, customer);
      return Response.json(customer);
    }
    if (request.method === "GET" && (match = /^\/v1\/prices\/([\w]+)$/.exec(path))) {
      if (!(match[1] in amounts)) return stripeError(404, `No such price: '${match[1]}'`);
      return Response.json(priceObject(match[1]));
    }
    if (request.method === "POST" && path === "/v1/checkout/sessions") {
      const customer = params.get("customer") ?? "";
      if (!customers.has(customer)) return stripeError(400, `No such customer: '${customer}'`);
      const price = params.get("line_items[0][price]") ?? "";
      if (!(price in amounts)) return stripeError(400, `No such price: '${price}'`);
      if (params.get("mode") !== "subscription") {
        return stripeError(400, "mode must be subscription");
      }
      const id = newId("cs");
      const session: Obj = {
        id,
        object: "checkout.session",
        mode: "subscription",
        status: "open",
        payment_status: "unpaid",
        customer,
        client_reference_id: params.get("client_reference_id"),
        metadata: {
          account_id: params.get("metadata[account_id]"),
          plan: params.get("metadata[plan]"),
        },
        subscription: null,
        success_url: params.get("success_url"),
        cancel_url: params.get("cancel_url"),
        url: `${base}/checkout/${id}`,
        price,
        subscription_metadata: {
          account_id: params.get("subscription_data[metadata][account_id]"),
        },
      };
      sessions.set(id, session);
      return Response.json(session);
    }
    if (
      request.method === "POST" &&
      (match = /^\/v1\/checkout\/sessions\/(\w+)\/expire$/.exec(path))
    ) {
      const session = sessions.get(match[1]);
      if (!session) return stripeError(404, `No such checkout.session: '${match[1]}'`);
      if (session.status !== "open") {
        return stripeError(
          400,
          `Only Checkout Sessions with a status in ["open"] can be expired; this one is ` +
            `${session.status}`,
        );
      }
      session.status = "expired";
      expired.push(session.id);
      return Response.json(session);
    }
    if (request.method === "DELETE" && (match = /^\/v1\/subscriptions\/(\w+)$/.exec(path))) {
      const s = subscriptions.get(match[1]);
      if (!s) return stripeError(404, `No such subscription: '${match[1]}'`);
      if (s.status === "canceled") {
        return stripeError(400, "A canceled subscription can only update its cancellation_details");
      }
      cancellations.push({
        id: s.id,
        prorate: params.get("prorate"),
        invoiceNow: params.get("invoice_now"),
      });
      s.status = "canceled";
      s.canceled_at = tick();
      s.ended_at = state.now;
      event("customer.subscription.deleted", s);
      return Response.json(expanded(s, expand));
    }
    if (request.method === "GET" && path === "/v1/invoice_payments") {
      const invoice = invoices.get(params.get("invoice") ?? "");
      const data = invoice?.payment_intent_id
        ? [{
          id: `inpay_${invoice.id}`,
          object: "invoice_payment",
          invoice: invoice.id,
          amount_paid: invoice.amount_paid,
          currency: "usd",
          is_default: true,
          status: "paid",
          payment: { type: "payment_intent", payment_intent: invoice.payment_intent_id },
        }]
        : [];
      return Response.json({ object: "list", data, has_more: false, url: "/v1/invoice_payments" });
    }
    if (request.method === "POST" && path === "/v1/refunds") {
      const key = request.headers.get("idempotency-key");
      const earlier = key ? refundKeys.get(key) : undefined;
      if (earlier) return Response.json(earlier);
      const intent = params.get("payment_intent") ?? "";
      const invoice = [...invoices.values()].find((i) => i.payment_intent_id === intent);
      if (!invoice) return stripeError(404, `No such payment_intent: '${intent}'`);
      if ([...refunds.values()].some((r) => r.payment_intent === intent)) {
        return stripeError(400, `Charge for payment_intent ${intent} has already been refunded.`);
      }
      const refund: Obj = {
        id: newId("re"),
        object: "refund",
        payment_intent: intent,
        amount: invoice.amount_paid,
        currency: "usd",
        status: "succeeded",
        reason: params.get("reason"),
        metadata: Object.fromEntries(
          [...params.entries()].filter(([k]) => k.startsWith("metadata["))
            .map(([k, v]) => [k.slice(9, -1), v]),
        ),
        created: tick(),
      };
      refunds.set(refund.id, refund);
      if (key) refundKeys.set(key, refund);
      return Response.json(refund);
    }
    if (request.method === "GET" && (match = /^\/v1\/checkout\/sessions\/(\w+)$/.exec(path))) {
      const session = sessions.get(match[1]);
      return session ? Response.json(session) : stripeError(404, `No such checkout.session`);
    }
    if (request.method === "POST" && path === "/v1/billing_portal/sessions") {
      const customer = params.get("customer") ?? "";
      if (!customers.has(customer)) return stripeError(400, `No such customer: '${customer}'`);
      const id = newId("bps");
      const portal: Obj = {
        id,
        object: "billing_portal.session",
        customer,
        return_url: params.get("return_url"),
        url: `${base}/portal/${id}`,
      };
      portals.set(id, portal);
      return Response.json(portal);
    }
    if (request.method === "GET" && path === "/v1/subscriptions") {
      const customer = params.get("customer");
      const status = params.get("status");
      const data = [...subscriptions.values()]
        .filter((s) => s.customer === customer)
        .filter((s) => status === "all" || s.status === (status ?? "active"))
        .sort((a, b) => (b.created as number) - (a.created as number))
        .map((s) => expanded(s, expand));
      return Response.json({ object: "list", data, has_more: false, url: "/v1/subscriptions" });
    }
    if (request.method === "GET" && (match = /^\/v1\/subscriptions\/(\w+)$/.exec(path))) {
      const s = subscriptions.get(match[1]);
      return s ? Response.json(expanded(s, expand)) : stripeError(404, "No such subscription");
    }
    return stripeError(404, `Unrecognized request URL (${request.method}: ${path})`);
  }

  function page(title: string, body: string): Response {
    return new Response(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>` +
        `<link rel="icon" href="data:,"></head>` +
        `<body><main><h1>${title}</h1>${body}</main></body></html>`,
      { headers: { "Content-Type": "text/html; charset=utf-8" } },
    );
  }

  function handlePage(request: Request, url: URL): Response {
    let match: RegExpExecArray | null;
    if ((match = /^\/checkout\/(\w+)$/.exec(url.pathname))) {
      const session = sessions.get(match[1]);
      if (!session) return new Response("No such session", { status: 404 });
      if (session.status === "expired") {
        return page(
          "Local Stripe Checkout",
          `<p id="expired">This Checkout session has expired.</p>`,
        );
      }
      if (request.method === "GET") {
        const amount = (amounts[session.price as string] ?? 0) / 100;
        return page(
          "Local Stripe Checkout",
          `<p id="amount">${amount} USD a month</p>` +
            `<form method="post"><button type="submit" id="pay">Pay</button></form>`,
        );
      }
      api.completeCheckout(session.id);
      const back = (session.success_url as string).replace("{CHECKOUT_SESSION_ID}", session.id);
      return new Response(null, { status: 303, headers: { Location: back } });
    }
    if ((match = /^\/portal\/(\w+)$/.exec(url.pathname))) {
      const portal = portals.get(match[1]);
      if (!portal) return new Response("No such portal session", { status: 404 });
      return page(
        "Local Stripe customer portal",
        `<p id="portal-customer">${portal.customer}</p>` +
          `<a id="portal-return" href="${portal.return_url}">Return</a>`,
      );
    }
    return new Response("Not found", { status: 404 });
  }

  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    const url = new URL(request.url);
    if (url.pathname.startsWith("/v1/")) {
      requests.push(`${request.method} ${url.pathname}`);
      return handleApi(request, url);
    }
    return handlePage(request, url);
  });
  base = `http://127.0.0.1:${server.addr.port}`;
  const crypto = Stripe.createSubtleCryptoProvider();
  const signer = new Stripe(secretKey, { httpClient: Stripe.createFetchHttpClient() });

  return Promise.resolve({
    base,
    env: {
      STRIPE_SECRET_KEY: secretKey,
      STRIPE_WEBHOOK_SECRET: webhookSecret,
      STRIPE_PRICE_PRO: prices.pro,
      STRIPE_PRICE_BUSINESS: prices.business,
      STRIPE_API_BASE: base,
    },
    webhookSecret,
    prices,
    requests,
    events,
    get now() {
      return state.now;
    },
    set now(value: number) {
      state.now = value;
    },
    customers,
    subscriptions,
    sessions,
    expired,
    cancellations,
    refunds,
    ...api,
    async signed(event, signOptions = {}) {
      const body = JSON.stringify(event, null, 2);
      const signature = await signer.webhooks.generateTestHeaderStringAsync({
        payload: body,
        secret: signOptions.secret ?? webhookSecret,
        timestamp: signOptions.timestamp ?? Math.floor(Date.now() / 1000),
        cryptoProvider: crypto,
      });
      return { body, signature };
    },
    close: () => server.shutdown(),
  });
}
