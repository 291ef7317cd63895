/**
 * The SSRF guard of webhook URLs: private, loopback, link-local, metadata and reserved
 * addresses are refused in IPv4 and IPv6 (mapped forms included), names are resolved and
 * every address checked, at creation (422) and again at delivery (a failed attempt, nothing
 * sent), and redirects are never followed.
 */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { loadFixture, makeKey, testApp } from "../helpers/app.ts";
import {
  checkOutboundUrl,
  isBlockedAddress,
  UnsafeUrlError,
} from "../../src/platform/outbound_target.ts";
import { postEvent } from "../../src/watches/webhook.ts";
import { readConfig } from "../../src/platform/config.ts";
import { sendJson, startReceiver } from "../helpers/watches.ts";

const RESOLVE = (host: string) =>
  Promise.resolve(
    ({
      "internal.example": ["10.1.2.3"],
      "mixed.example": ["93.184.216.34", "fd00:ec2::254"],
      "public.example": ["93.184.216.34", "2606:2800:220:1::248"],
    } as Record<string, string[]>)[host] ?? [],
  );

Deno.test("isBlockedAddress refuses private, loopback, link-local, metadata", () => {
  for (
    const address of [
      "127.0.0.1",
      "10.0.0.1",
      "172.16.5.4",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "::1",
      "::",
      "fe80::1",
      "fd00:ec2::254",
      "fc00::1",
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "::ffff:a9fe:a9fe",
      "64:ff9b::a9fe:a9fe",
      "ff02::1",
    ]
  ) assert.equal(isBlockedAddress(address), true, address);
  for (const address of ["93.184.216.34", "8.8.8.8", "2606:2800:220:1::248", "::ffff:8.8.8.8"]) {
    assert.equal(isBlockedAddress(address), false, address);
  }
});

Deno.test("checkOutboundUrl resolves names and checks every address", async (t) => {
  const refused: [string, RegExp][] = [
    ["http://127.0.0.1/hook", /https/],
    ["https://127.0.0.1/hook", /127\.0\.0\.1/],
    ["https://169.254.169.254/latest/meta-data", /169\.254\.169\.254/],
    ["https://[::1]:8443/", /::1/],
    ["https://[::ffff:127.0.0.1]/", /private or reserved/],
    ["https://internal.example/hook", /resolves to 10\.1\.2\.3/],
    ["https://mixed.example/hook", /fd00:ec2::254/],
    ["https://localhost/hook", /loopback/],
    ["https://nowhere.example/hook", /cannot be resolved/],
    ["https://user:pw@public.example/", /user or password/],
    ["not a url", /absolute/],
  ];
  for (const [url, reason] of refused) {
    await t.step(url, async () => {
      await assert.rejects(checkOutboundUrl(url, { resolve: RESOLVE }), (error) => {
        assert.ok(error instanceof UnsafeUrlError);
        assert.match(error.message, reason);
        return true;
      });
    });
  }
  const ok = await checkOutboundUrl("https://public.example/hook", { resolve: RESOLVE });
  assert.equal(ok.hostname, "public.example");
  const allowed = await checkOutboundUrl("http://127.0.0.1:8080/", { allow: ["127.0.0.1"] });
  assert.equal(allowed.port, "8080");
});

dbTest("POST /api/v1/watches refuses SSRF targets with a clear 422", async (db) => {
  await loadFixture(db.sql);
  const app = testApp(db); // no allow-list
  const { key } = await makeKey(db.sql, "pro");
  for (
    const url of [
      "http://127.0.0.1:9000/",
      "https://127.0.0.1/",
      "https://169.254.169.254/",
      "https://[::1]/",
      "https://10.0.0.8/",
    ]
  ) {
    const res = await sendJson(app, "POST", "/api/v1/watches", key, {
      name: "x",
      deliveries: { webhook: { url } },
    });
    assert.equal(res.status, 422, url);
    const body = await res.json();
    assert.equal(body.details[0].param, "deliveries.webhook.url");
  }
  const [{ count }] = await db.sql`select count(*)::int as count from watches`;
  assert.equal(count, 0);
});

Deno.test("Delivery re-checks the address and never follows a redirect", async () => {
  const metadata = startReceiver();
  const redirector = startReceiver(() =>
    new Response(null, { status: 302, headers: { Location: metadata.url } })
  );
  try {
    const secret = `whsec_${btoa("0123456789abcdef0123456789abcdef")}`;
    const event = { id: "msg_1", body: "{}" };
    // The address is checked again before sending (whatever was allowed at creation): an https
    // URL, so that the address and not the scheme is what refuses it.
    const loopback = metadata.url.replace(/^http:/, "https:");
    const refused = await postEvent(loopback, secret, event, {});
    assert.equal(refused.ok, false);
    assert.equal(refused.retryable, false);
    assert.match(refused.error!, /^Refused: must not point to 127\.0\.0\.1, a private/);
    assert.equal(metadata.received.length, 0, "nothing sent to a loopback address");
    // A redirect (here to a loopback receiver standing in for metadata) is not followed.
    const redirected = await postEvent(redirector.url, secret, event, {
      urlPolicy: { allow: ["127.0.0.1"] },
    });
    assert.equal(redirected.ok, false);
    assert.equal(redirected.statusCode, 302);
    assert.match(redirected.error!, /not followed/);
    assert.equal(redirector.received.length, 1);
    assert.equal(metadata.received.length, 0, "the redirect target got nothing");
  } finally {
    await metadata.close();
    await redirector.close();
  }
});

Deno.test("WATCH_WEBHOOK_ALLOW takes loopback hosts only", () => {
  const config = readConfig({ WATCH_WEBHOOK_ALLOW: " 127.0.0.1, LOCALHOST, [::1] " });
  assert.deepEqual(config.webhookAllow, ["127.0.0.1", "localhost", "::1"]);
  for (const host of ["10.0.0.5", "intranet.example", "169.254.169.254", "0.0.0.0"]) {
    assert.throws(
      () => readConfig({ WATCH_WEBHOOK_ALLOW: `127.0.0.1,${host}` }),
      new RegExp(`WATCH_WEBHOOK_ALLOW: "${host.replaceAll(".", "\\.")}" is not a loopback host`),
    );
  }
});
