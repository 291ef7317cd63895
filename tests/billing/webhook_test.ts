/**
 * What the Stripe webhook refuses, on both engines: a delivery without a Stripe-Signature header,
 * or with one that cannot be valid (empty, no timestamp, no v1 digest of 64 hex digits), is
 * answered before its body is read (a client that promises a body and never sends it holds
 * nothing), and a signed event the database cannot store (a NUL in an id) is a 400 with a log
 * line, never a 5xx that Stripe would deliver again for three days.
 */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { webTestApp } from "../helpers/web.ts";
import { rawRequest, serveRaw } from "../helpers/raw_http.ts";
import { startLocalStripe, type StripeEvent } from "../helpers/stripe_server.ts";

/** A subscription event of a customer that does not need to exist: only its ids matter here. */
function eventWith(ids: { id?: string; customer?: string; type?: string }): StripeEvent {
  return {
    id: ids.id ?? `evt_${crypto.randomUUID().replaceAll("-", "")}`,
    object: "event",
    type: ids.type ?? "customer.subscription.updated",
    created: Math.floor(Date.now() / 1000),
    api_version: "2026-10-28.endive",
    livemode: false,
    data: {
      object: { id: "sub_x", object: "subscription", customer: ids.customer ?? "cus_x" },
    },
  };
}

dbTest(
  "POST /billing/webhook without Stripe-Signature answers 400 before reading the body",
  async (db, t) => {
    const stripe = await startLocalStripe();
    const app = webTestApp(db, { env: stripe.env });
    const server = serveRaw(app.handler);
    try {
      await t.step(
        "a promised body that never comes: 400 at once, not 408 after 10 s",
        async () => {
          const started = Date.now();
          const answer = await rawRequest(
            server.port,
            [
              "POST /billing/webhook HTTP/1.1",
              "Host: localhost",
              "Content-Type: application/json",
              "Content-Length: 500",
              "Connection: close",
            ].join("\r\n"),
            "",
            // Well below the 10 s body deadline: an answer after the deadline fails here.
            4000,
          );
          assert.equal(answer.status, 400, answer.body);
          assert.match(answer.headers.get("content-type") ?? "", /application\/json/);
          assert.equal(JSON.parse(answer.body).error, "missing_signature");
          assert.ok(Date.now() - started < 4000);
        },
      );
      for (
        const header of [
          "",
          "garbage",
          "t=1,v1=00",
          "t=,v1=" + "a".repeat(64),
          "t=1492774577,v0=" + "a".repeat(64),
          "t=1492774577,v1=" + "g".repeat(64),
          "t=1492774577," + "v1=".padEnd(2000, "a"),
        ]
      ) {
        await t.step(
          `a signature that cannot be valid (${JSON.stringify(header.slice(0, 30))}): 400 at once`,
          async () => {
            const started = Date.now();
            const answer = await rawRequest(
              server.port,
              [
                "POST /billing/webhook HTTP/1.1",
                "Host: localhost",
                `Stripe-Signature: ${header}`,
                "Content-Length: 500",
                "Connection: close",
              ].join("\r\n"),
              "",
              4000,
            );
            assert.equal(answer.status, 400, answer.body);
            const error = JSON.parse(answer.body).error;
            assert.equal(error, header ? "invalid_signature" : "missing_signature");
            assert.ok(Date.now() - started < 4000);
          },
        );
      }
      await t.step(
        "with a well-formed signature the body is still awaited (and bounded)",
        async () => {
          const answer = await rawRequest(
            server.port,
            [
              "POST /billing/webhook HTTP/1.1",
              "Host: localhost",
              `Stripe-Signature: t=1,v1=${"0".repeat(64)}`,
              "Content-Length: 2",
              "Connection: close",
            ].join("\r\n"),
            "{}",
          );
          assert.equal(answer.status, 400);
          assert.equal(JSON.parse(answer.body).error, "invalid_signature");
        },
      );
      const [row] = await db.sql`select count(*)::int as n from billing_events`;
      assert.equal(row.n, 0);
    } finally {
      await server.close();
      await stripe.close();
    }
  },
);

dbTest(
  "POST /billing/webhook: a signed event the database cannot store is 400 and logged",
  async (db, t) => {
    const stripe = await startLocalStripe();
    const app = webTestApp(db, { env: stripe.env });
    const deliver = async (event: StripeEvent) => {
      const signed = await stripe.signed(event);
      const response = await app.handler(
        new Request(`${app.base}/billing/webhook`, {
          method: "POST",
          headers: { "Content-Type": "application/json", "Stripe-Signature": signed.signature },
          body: signed.body,
        }),
      );
      return { status: response.status, body: await response.json() };
    };
    try {
      const cases: [string, StripeEvent][] = [
        ["a NUL in the event id", eventWith({ id: "evt_a\u0000b" })],
        ["a NUL in the customer id", eventWith({ customer: "cus_a\u0000b" })],
        ["a lone surrogate in the event id", eventWith({ id: "evt_\ud800" })],
        ["a NUL in the type", eventWith({ type: "customer.subscription.updated\u0000" })],
        ["an event id of 10,000 characters", eventWith({ id: `evt_${"a".repeat(10_000)}` })],
      ];
      for (const [what, event] of cases) {
        await t.step(what, async () => {
          const logged = app.logs.length;
          const answer = await deliver(event);
          assert.equal(answer.status, 400, JSON.stringify(answer.body));
          assert.equal(answer.body.error, "invalid_event");
          assert.ok(
            app.logs.slice(logged).some((l) =>
              l.level === "warn" && /refused/.test(String(l.message))
            ),
            JSON.stringify(app.logs.slice(logged)),
          );
          const [row] = await db.sql`select count(*)::int as n from billing_events`;
          assert.equal(row.n, 0, "nothing recorded");
        });
      }
      await t.step("a clean event of an unknown customer is still 200", async () => {
        const answer = await deliver(eventWith({}));
        assert.equal(answer.status, 200);
        assert.equal(answer.body.outcome, "unknown customer");
      });
    } finally {
      await stripe.close();
    }
  },
);
