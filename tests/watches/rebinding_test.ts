/**
 * DNS rebinding: a delivery resolves the webhook's name once, with the resolver it is given,
 * refuses it when any answer is private, and connects to the checked address itself (keeping
 * the URL's Host and TLS server name), so no second DNS answer can move it elsewhere.
 */
import assert from "node:assert/strict";
import { postEvent } from "../../src/watches/webhook.ts";
import { sendTo } from "../../src/platform/pinned_request.ts";
import { startReceiver } from "../helpers/watches.ts";

const SECRET = `whsec_${btoa("0123456789abcdef0123456789abcdef")}`;
const EVENT = { id: "msg_1", body: "{}" };
const TLS_DIR = new URL("../fixtures/tls/", import.meta.url);

/** A resolver from a table, counting its calls per name. */
function resolver(answers: Record<string, string[][]>) {
  const calls: Record<string, number> = {};
  return {
    calls,
    resolve: (host: string) => {
      const n = calls[host] = (calls[host] ?? 0) + 1;
      const list = answers[host] ?? [];
      return Promise.resolve(list[Math.min(n, list.length) - 1] ?? []);
    },
  };
}

Deno.test("Delivery refuses a name resolving to a private address and sends nothing", async (t) => {
  const receiver = startReceiver();
  try {
    const port = new URL(receiver.url).port;
    const answers: Record<string, string[][]> = {
      "ten.test": [["10.0.0.7"]],
      "loop.test": [["127.0.0.1"]],
      "six.test": [["::1"]],
      "mapped.test": [["::ffff:127.0.0.1"]],
      "metadata.test": [["169.254.169.254"]],
      "mixed.test": [["8.8.8.8", "127.0.0.1"]],
    };
    const dns = resolver(answers);
    for (const host of Object.keys(answers)) {
      await t.step(host, async () => {
        const outcome = await postEvent(`https://${host}:${port}/hook`, SECRET, EVENT, {
          urlPolicy: { resolve: dns.resolve },
          timeoutMs: 2000,
        });
        assert.equal(outcome.ok, false);
        assert.equal(outcome.retryable, false);
        assert.match(outcome.error!, /^Refused: host ".*" resolves to .*private or reserved/);
        assert.equal(dns.calls[host], 1, "resolved once");
      });
    }
    assert.equal(receiver.received.length, 0, "nothing reached the loopback receiver");
  } finally {
    await receiver.close();
  }
});

Deno.test("Delivery connects to the address it checked, never asking DNS again", async () => {
  // Two receivers on loopback stand for a public address (the first answer) and a private one
  // (what a rebinding DNS server answers next). The name is allow-listed only so that loopback
  // may stand for public; the resolver is the one the delivery is given.
  const first = startReceiver();
  const second = startReceiver();
  try {
    const port = new URL(first.url).port;
    const secondPort = new URL(second.url).port;
    assert.notEqual(port, secondPort);
    const dns = resolver({ "rebind.test": [["127.0.0.1"], ["10.9.9.9"], ["10.9.9.9"]] });
    const outcome = await postEvent(`http://rebind.test:${port}/hook`, SECRET, EVENT, {
      urlPolicy: { allow: ["rebind.test"], resolve: dns.resolve },
      timeoutMs: 2000,
    });
    assert.equal(outcome.ok, true, outcome.error ?? "");
    assert.equal(dns.calls["rebind.test"], 1, "one resolution per delivery");
    assert.equal(first.received.length, 1);
    assert.equal(first.received[0].headers.host, `rebind.test:${port}`, "the URL's Host");
    assert.equal(second.received.length, 0);
    // The name exists only for the given resolver: the system's DNS was never asked.
    assert.deepEqual(await Deno.resolveDns("rebind.test", "A").catch(() => []), []);
  } finally {
    await first.close();
    await second.close();
  }
});

Deno.test("Delivery over TLS to the checked address keeps the URL's server name", async () => {
  const cert = await Deno.readTextFile(new URL("hook_test_cert.pem", TLS_DIR));
  const key = await Deno.readTextFile(new URL("hook_test_key.pem", TLS_DIR));
  const hosts: string[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, cert, key, onListen: () => {} },
    (r) => {
      hosts.push(r.headers.get("host") ?? "");
      return new Response("ok");
    },
  );
  try {
    const port = server.addr.port;
    const dns = resolver({ "hook.test": [["127.0.0.1"]], "other.test": [["127.0.0.1"]] });
    const policy = { allow: ["hook.test", "other.test"], resolve: dns.resolve };
    const ok = await postEvent(`https://hook.test:${port}/hook`, SECRET, EVENT, {
      urlPolicy: policy,
      ca: cert,
      timeoutMs: 5000,
    });
    assert.equal(ok.ok, true, ok.error ?? "");
    assert.deepEqual(hosts, [`hook.test:${port}`]);
    // The certificate is checked against the URL's name, not the address connected to.
    const wrong = await postEvent(`https://other.test:${port}/hook`, SECRET, EVENT, {
      urlPolicy: policy,
      ca: cert,
      timeoutMs: 5000,
    });
    assert.equal(wrong.ok, false);
    assert.equal(wrong.statusCode, null);
    assert.match(wrong.error!, /^Connection failed: .*other\.test/);
    assert.equal(hosts.length, 1, "nothing sent over the refused connection");
  } finally {
    await server.shutdown();
  }
});

Deno.test("sendTo: a GET to the checked address, with headers, and the body capped", async () => {
  // What OAuth client ID metadata documents are fetched with (src/oauth/documents.ts).
  const seen: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (r) => {
    seen.push(`${r.method} ${r.headers.get("host")} ${new URL(r.url).pathname}`);
    const size = new URL(r.url).pathname === "/big" ? 100 : 10;
    return new Response("x".repeat(size), { headers: { "Cache-Control": "max-age=7" } });
  });
  try {
    const port = server.addr.port;
    // The name does not exist anywhere: only the pinned address can reach the server.
    const target = (path: string) => ({
      url: new URL(`http://doc.rebind.test:${port}${path}`),
      address: "127.0.0.1",
      family: 4,
    });
    const options = { method: "GET" as const, headers: {}, timeoutMs: 2000, cap: 20 };
    const small = await sendTo(target("/small"), options);
    assert.equal(small.status, 200);
    assert.equal(small.headers.get("cache-control"), "max-age=7");
    assert.equal(new TextDecoder().decode(small.bytes), "x".repeat(10));
    assert.equal(small.overflow, false);
    const big = await sendTo(target("/big"), options);
    assert.equal(big.bytes.length, 20);
    assert.equal(big.overflow, true);
    assert.deepEqual(seen, [
      `GET doc.rebind.test:${port} /small`,
      `GET doc.rebind.test:${port} /big`,
    ]);
  } finally {
    await server.shutdown();
  }
});
