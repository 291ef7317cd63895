/**
 * Hostile input to the billing forms (Checkout, portal) and the Stripe webhook, on both engines:
 * bad, missing, repeated, huge and NUL-bearing fields, wrong methods and content types, missing,
 * forged and malformed signatures, bodies that are not events, NUL ids, deep and huge bodies.
 * Every answer is below 500 and no internal_error, and a refusal writes nothing: no Stripe call,
 * no billing record or event, no rate-limit hit, no plan change.
 */
import assert from "node:assert/strict";
import Stripe from "stripe";
import { dbTest } from "../helpers/db.ts";
import { Browser, csrfIn, signUp, type WebTestApp, webTestApp } from "../helpers/web.ts";
import { type LocalStripe, startLocalStripe } from "../helpers/stripe_server.ts";
import { findAccountByEmail } from "../../src/accounts/accounts.ts";
import { assertNoInternalError } from "../rest/sweep_helpers.ts";

/** Stands for two bytes that are no UTF-8 (0xff 0xfe), put in by bytesOf. */
const NOT_UTF8 = "\u0001NOT_UTF8\u0001";

/** The body's bytes, with NOT_UTF8 replaced by bytes no UTF-8 decoder accepts. */
function bytesOf(body: string): Uint8Array<ArrayBuffer> {
  const [before, after] = body.split(NOT_UTF8);
  const encode = (text: string) => [...new TextEncoder().encode(text)];
  if (after === undefined) return new Uint8Array(encode(body));
  return new Uint8Array([...encode(before), 0xff, 0xfe, ...encode(after)]);
}

const signer = new Stripe("sk_test_local", { httpClient: Stripe.createFetchHttpClient() });
const cryptoProvider = Stripe.createSubtleCryptoProvider();

/** What a refusal must leave as it was. */
async function footprint(db: { sql: WebTestApp["sql"] }, stripe: LocalStripe) {
  const [row] = await db.sql`
    select (select count(*) from billing_customers)::int as customers,
      (select count(*) from billing_events)::int as events,
      (select coalesce(sum(hits), 0) from web_rate_limits where bucket like 'billing:%')::int as hits,
      (select string_agg(plan, ',' order by id) from accounts) as plans`;
  return { ...row, stripe: stripe.requests.length, sessions: stripe.sessions.size };
}

async function sign(payload: string, secret: string): Promise<string> {
  return await signer.webhooks.generateTestHeaderStringAsync({
    payload,
    secret,
    timestamp: Math.floor(Date.now() / 1000),
    cryptoProvider,
  });
}

dbTest("sweep: the billing forms never answer 5xx and write nothing on refusal", async (db, t) => {
  const stripe = await startLocalStripe();
  try {
    const app = webTestApp(db, { env: stripe.env });
    const browser = new Browser(app, "192.0.2.51");
    const email = `sweep-${crypto.randomUUID().slice(0, 6)}@example.com`;
    await signUp(browser, email);
    const csrf = csrfIn((await browser.get("/account")).text);
    const huge = "p".repeat(100_000);
    const bodies: [string, string, Record<string, string>?][] = [
      ["no plan", `csrf=${csrf}`],
      ["an empty plan", `plan=&csrf=${csrf}`],
      ["an unknown plan", `plan=gold&csrf=${csrf}`],
      ["the free plan", `plan=free&csrf=${csrf}`],
      ["a plan in capitals", `plan=PRO&csrf=${csrf}`],
      ["a NUL in the plan", `plan=pro%00&csrf=${csrf}`],
      ["a lone surrogate in the plan", `plan=%ED%A0%80&csrf=${csrf}`],
      ["a control character in the plan", `plan=pro%0Abusiness&csrf=${csrf}`],
      ["a huge plan", `plan=${huge}&csrf=${csrf}`],
      ["a huge body", `csrf=${csrf}&x=${huge}`],
      ["no CSRF", "plan=pro"],
      ["a forged CSRF", "plan=pro&csrf=forged"],
      ["a NUL in the CSRF", "plan=pro&csrf=a%00b"],
      ["a huge CSRF", `plan=pro&csrf=${huge}`],
      ["an empty body", ""],
      ["bytes that are not UTF-8 in the plan", `plan=${NOT_UTF8}&csrf=${csrf}`],
      ["JSON instead of a form", JSON.stringify({ plan: "pro", csrf }), {
        "Content-Type": "application/json",
      }],
      ["no content type", `plan=pro&csrf=${csrf}`, { "Content-Type": "" }],
      ["a cross-site form", `plan=pro&csrf=${csrf}`, { "Sec-Fetch-Site": "cross-site" }],
    ];
    for (const action of ["checkout", "portal"]) {
      const path = `/account/billing/${action}`;
      for (const [what, body, headers] of bodies) {
        // The portal takes no plan: only the CSRF and the form's shape can be wrong.
        if (action === "portal" && /plan/.test(what) && !/huge body/.test(what)) continue;
        await t.step(`POST ${path}: ${what}`, async () => {
          const before = await footprint(db, stripe);
          const response = await browser.request(path, {
            method: "POST",
            headers: {
              "Content-Type": "application/x-www-form-urlencoded",
              "Sec-Fetch-Site": "same-origin",
              ...headers,
            },
            body: bytesOf(body),
          });
          const label = `${path} ${what}: ${response.status}`;
          assert.ok(response.status < 500, label);
          await assertNoInternalError(response, label);
          assert.ok(response.status >= 400, `${label}: refused`);
          assert.deepEqual(await footprint(db, stripe), before, `${label}: nothing written`);
        });
      }
      for (const method of ["GET", "HEAD", "PUT", "PATCH", "DELETE", "OPTIONS"]) {
        await t.step(`${method} ${path} is 405`, async () => {
          const before = await footprint(db, stripe);
          const response = await browser.request(path, { method });
          assert.equal(response.status, 405);
          await response.body?.cancel();
          assert.deepEqual(await footprint(db, stripe), before);
        });
      }
      await t.step(`POST ${path} signed out redirects, nothing written`, async () => {
        const before = await footprint(db, stripe);
        const response = await app.handler(
          new Request(`${app.base}${path}`, {
            method: "POST",
            headers: { "Content-Type": "application/x-www-form-urlencoded" },
            body: `plan=pro&csrf=${csrf}`,
          }),
        );
        assert.ok(response.status < 500);
        await response.body?.cancel();
        assert.deepEqual(await footprint(db, stripe), before);
      });
    }
    await t.step(
      "a repeated plan takes the first, and the sweep's account stays Free",
      async () => {
        const response = await browser.request("/account/billing/checkout", {
          method: "POST",
          headers: {
            "Content-Type": "application/x-www-form-urlencoded",
            "Sec-Fetch-Site": "same-origin",
          },
          body: `plan=pro&plan=business&csrf=${csrf}`,
        });
        assert.equal(response.status, 303);
        const session = stripe.sessions.get(response.headers.get("location")!.split("/").at(-1)!)!;
        assert.equal(session.price, stripe.prices.pro);
        assert.equal((await findAccountByEmail(db.sql, email))?.plan, "free");
      },
    );
  } finally {
    await stripe.close();
  }
});

dbTest(
  "sweep: the Stripe webhook never answers 5xx and writes nothing on refusal",
  async (db, t) => {
    const stripe = await startLocalStripe();
    try {
      const app = webTestApp(db, { env: stripe.env });
      const secret = stripe.webhookSecret;
      const event = (fields: Record<string, unknown>) =>
        JSON.stringify({
          id: `evt_${crypto.randomUUID().replaceAll("-", "")}`,
          object: "event",
          type: "customer.subscription.updated",
          created: Math.floor(Date.now() / 1000),
          data: { object: { id: "sub_1", object: "subscription", customer: "cus_1" } },
          ...fields,
        });
      const nested = "[".repeat(200_000) + "]".repeat(200_000);
      // [what, body, signature: a secret to sign with, a literal header, or none]
      const cases: [string, string, { secret?: string; header?: string | null }][] = [
        ["no signature", event({}), { header: null }],
        ["an empty signature", event({}), { header: "" }],
        ["a garbage signature", event({}), { header: "garbage" }],
        ["a signature without v1", event({}), { header: "t=1" }],
        ["a huge signature", event({}), { header: `t=1,v1=${"a".repeat(7000)}` }],
        ["another secret", event({}), { secret: "whsec_forged" }],
        ["not JSON", "not json {", { secret }],
        ["JSON null", "null", { secret }],
        ["a JSON array", "[]", { secret }],
        ["a JSON string", '"evt"', { secret }],
        ["an empty object", "{}", { secret }],
        ["a numeric id", event({ id: 12 }), { secret }],
        ["no type", event({ type: undefined }), { secret }],
        ["a numeric type", event({ type: 7 }), { secret }],
        ["a NUL in the id", event({ id: "evt_\u0000" }), { secret }],
        ["a NUL in the type", event({ type: "invoice.paid\u0000" }), { secret }],
        [
          "a NUL in the customer",
          event({
            data: { object: { id: "in_1", customer: "cus_\u0000" } },
          }),
          { secret },
        ],
        [
          "a NUL in a customer object",
          event({
            data: { object: { id: "in_1", customer: { id: "cus_\u0000" } } },
          }),
          { secret },
        ],
        [
          "a NUL in the object id",
          event({
            type: "invoice.payment_failed",
            data: { object: { id: "in_\u0000", customer: "cus_1" } },
          }),
          { secret },
        ],
        [
          "a NUL in client_reference_id",
          event({
            type: "checkout.session.completed",
            data: { object: { id: "cs_1", customer: "cus_1", client_reference_id: "1\u0000" } },
          }),
          { secret },
        ],
        ["an id of 100,000 characters", event({ id: `evt_${"x".repeat(100_000)}` }), { secret }],
        ["JSON nested 200,000 deep", nested, { secret }],
        ["a body of 2 MB", event({ padding: "x".repeat(2_000_000) }), { secret }],
        ["bytes that are not UTF-8", `{"id":"evt_${NOT_UTF8}"}`, { secret }],
      ];
      for (const [what, body, signing] of cases) {
        await t.step(`POST /billing/webhook: ${what}`, async () => {
          const before = await footprint(db, stripe);
          const bytes = bytesOf(body);
          const header = "header" in signing
            ? signing.header
            : await sign(new TextDecoder().decode(bytes), signing.secret!);
          const headers = new Headers({ "Content-Type": "application/json" });
          if (header !== null && header !== undefined) headers.set("Stripe-Signature", header);
          const response = await app.handler(
            new Request(`${app.base}/billing/webhook`, { method: "POST", headers, body: bytes }),
          );
          const label = `${what}: ${response.status}`;
          assert.ok(response.status < 500, label);
          const answer = await assertNoInternalError(response, label) as { error?: string };
          assert.ok(response.status >= 400, `${label}: refused`);
          assert.ok(typeof answer === "object" && answer.error, `${label}: a JSON error`);
          assert.deepEqual(await footprint(db, stripe), before, `${label}: nothing written`);
        });
      }
      for (const method of ["GET", "HEAD", "PUT", "PATCH", "DELETE", "OPTIONS"]) {
        await t.step(`${method} /billing/webhook is 405`, async () => {
          const response = await app.handler(
            new Request(`${app.base}/billing/webhook`, { method }),
          );
          assert.equal(response.status, 405);
          await response.body?.cancel();
        });
      }
      assert.ok(!app.logs.some((l) => l.level === "error"), JSON.stringify(app.logs.slice(-3)));
    } finally {
      await stripe.close();
    }
  },
);
