/**
 * Client ID metadata documents (src/oauth/documents.ts): fetched within a size and time
 * limit, https only, never from private or loopback addresses (unless the development setting
 * allows loopback), never through a redirect, and cached as their HTTP caching headers say.
 * Served here by a local server; a refused document stores nothing.
 */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { cacheSeconds, resolveClient } from "../../src/oauth/documents.ts";
import { OAuthError } from "../../src/oauth/clients.ts";
import { readConfig } from "../../src/platform/config.ts";
import type { Sql } from "../../src/db/open.ts";

const REDIRECT = "http://127.0.0.1:7777/callback";

/** A local document server; `hits` counts requests per path. */
function serveDocuments() {
  const hits = new Map<string, number>();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const url = new URL(req.url);
    hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1);
    const self = url.href;
    const doc = (extra: Record<string, unknown> = {}) =>
      JSON.stringify({
        client_id: self,
        client_name: "Doc client",
        redirect_uris: [REDIRECT],
        ...extra,
      });
    switch (url.pathname) {
      case "/good.json":
        return new Response(doc(), { headers: { "Cache-Control": "max-age=60" } });
      case "/nostore.json":
        return new Response(doc(), { headers: { "Cache-Control": "no-store" } });
      case "/big.json":
        return new Response(doc({ client_uri: "https://x.example/" + "a".repeat(6000) }));
      case "/chunked-big.json": {
        const body = new ReadableStream({
          start(c) {
            for (let i = 0; i < 10; i++) c.enqueue(new TextEncoder().encode(" ".repeat(1000)));
            c.close();
          },
        });
        return new Response(body);
      }
      case "/slow.json":
        await new Promise((r) => setTimeout(r, 1500));
        return new Response(doc());
      case "/redirect.json":
        return new Response(null, { status: 302, headers: { Location: "/good.json" } });
      case "/mismatch.json":
        return new Response(doc({ client_id: "https://other.example/client.json" }));
      case "/evil-redirect.json":
        return new Response(doc({ redirect_uris: ["http://evil.example/cb"] }));
      case "/mailto-redirect.json":
        return new Response(doc({ redirect_uris: ["mailto:someone@example.com"] }));
      case "/bidi-name.json":
        return new Response(doc({ client_name: "Good App\u202e\u2066evil" }));
      case "/secret.json":
        return new Response(doc({ token_endpoint_auth_method: "client_secret_basic" }));
      case "/notjson.json":
        return new Response("<html>");
      default:
        return new Response("no", { status: 404 });
    }
  });
  return { base: `http://127.0.0.1:${server.addr.port}`, hits, close: () => server.shutdown() };
}

async function clientRows(sql: Sql): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from oauth_clients`;
  return row.n;
}

async function refusal(
  promise: Promise<unknown>,
  pattern: RegExp,
  code = "invalid_client",
): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof OAuthError);
    assert.equal(error.code, code);
    assert.equal(error.status, code === "invalid_client" ? 401 : 400);
    assert.match(error.description, pattern);
    return true;
  });
}

dbTest("client ID metadata documents: limits, addresses, redirects, caching", async (db, t) => {
  const docs = serveDocuments();
  const loopback = { allowLoopback: true, timeoutMs: 400 };
  try {
    await t.step("a good document is fetched, stored and cached per max-age", async () => {
      const id = `${docs.base}/good.json`;
      const client = await resolveClient(db.sql, id, loopback);
      assert.equal(client.clientName, "Doc client");
      assert.deepEqual(client.redirectUris, [REDIRECT]);
      await resolveClient(db.sql, id, loopback);
      assert.equal(docs.hits.get("/good.json"), 1);
    });
    await t.step("no-store is fetched again every time", async () => {
      const id = `${docs.base}/nostore.json`;
      await resolveClient(db.sql, id, loopback);
      await resolveClient(db.sql, id, loopback);
      assert.equal(docs.hits.get("/nostore.json"), 2);
    });
    const before = await clientRows(db.sql);
    await t.step("too big (declared or streamed), too slow, redirected: refused", async () => {
      await refusal(resolveClient(db.sql, `${docs.base}/big.json`, loopback), /larger than 5120/);
      await refusal(
        resolveClient(db.sql, `${docs.base}/chunked-big.json`, loopback),
        /larger than 5120/,
      );
      await refusal(
        resolveClient(db.sql, `${docs.base}/slow.json`, loopback),
        /did not answer within 400 ms/,
      );
      await refusal(resolveClient(db.sql, `${docs.base}/redirect.json`, loopback), /HTTP 302/);
    });
    await t.step("a document that is not its own, not JSON: invalid_client", async () => {
      await refusal(
        resolveClient(db.sql, `${docs.base}/mismatch.json`, loopback),
        /not its own URL/,
      );
      await refusal(resolveClient(db.sql, `${docs.base}/notjson.json`, loopback), /not JSON/);
    });
    await t.step("bad metadata: the registration's error (RFC 7591), 400", async () => {
      const cases: [string, RegExp, string][] = [
        ["/evil-redirect.json", /must use https/, "invalid_redirect_uri"],
        [
          "/mailto-redirect.json",
          /"mailto:someone@example\.com" must use https/,
          "invalid_redirect_uri",
        ],
        ["/bidi-name.json", /client_name .* format characters/, "invalid_client_metadata"],
        ["/secret.json", /Only public clients/, "invalid_client_metadata"],
      ];
      for (const [path, pattern, code] of cases) {
        await refusal(resolveClient(db.sql, `${docs.base}${path}`, loopback), pattern, code);
      }
    });
    await t.step("without the development setting: http and loopback are refused", async () => {
      await refusal(resolveClient(db.sql, `${docs.base}/good2.json`), /must be an https URL/);
      await refusal(
        resolveClient(db.sql, `https://127.0.0.1:${new URL(docs.base).port}/x.json`),
        /private or reserved/,
      );
      await refusal(resolveClient(db.sql, "https://localhost/x.json"), /loopback/);
    });
    await t.step("names resolving to private or metadata addresses are refused", async () => {
      for (const address of ["10.0.0.5", "169.254.169.254", "192.168.1.1", "::1", "fd00::1"]) {
        await refusal(
          resolveClient(db.sql, "https://intranet.example/client.json", {
            resolve: () => Promise.resolve(["93.184.216.34", address]),
          }),
          /private or reserved/,
        );
      }
      await refusal(resolveClient(db.sql, "https://[::ffff:a00:1]/c.json"), /private/);
      // A name is resolved once, and the fetch connects to that checked address (never asking
      // DNS again, which a rebinding server would answer with a private address): here a public
      // address with no such document (nor certificate), so the fetch fails, storing nothing.
      let asked = 0;
      await refusal(
        resolveClient(db.sql, "https://rebind.example/client.json", {
          timeoutMs: 300,
          resolve: () => {
            asked++;
            return Promise.resolve(asked === 1 ? ["93.184.216.34"] : ["127.0.0.1"]);
          },
        }),
        /could not be fetched|did not answer/,
      );
      assert.equal(asked, 1);
      await refusal(resolveClient(db.sql, "https://app.example/"), /with a path/);
      await refusal(resolveClient(db.sql, "https://app.example/c.json#x"), /fragment/);
    });
    await t.step("none of the refusals stored anything", async () => {
      assert.equal(await clientRows(db.sql), before);
    });
  } finally {
    await docs.close();
  }
});

Deno.test("cacheSeconds follows Cache-Control, then Expires, capped at a day", () => {
  const at = Date.parse("2026-11-25T00:00:00Z");
  const h = (init: Record<string, string>) => new Headers(init);
  assert.equal(cacheSeconds(h({ "Cache-Control": "public, max-age=120" }), at), 120);
  assert.equal(cacheSeconds(h({ "Cache-Control": "max-age=999999" }), at), 86_400);
  assert.equal(cacheSeconds(h({ "Cache-Control": "no-store" }), at), 0);
  assert.equal(cacheSeconds(h({ "Cache-Control": "no-cache, max-age=60" }), at), 0);
  assert.equal(cacheSeconds(h({ Expires: "Wed, 25 Nov 2026 00:05:00 GMT" }), at), 300);
  assert.equal(cacheSeconds(h({ Expires: "garbage" }), at), 0);
  assert.equal(cacheSeconds(h({}), at), 600);
});

Deno.test("OAUTH_CIMD_ALLOW_LOOPBACK is refused unless PUBLIC_BASE_URL is a loopback address", () => {
  assert.throws(
    () =>
      readConfig({ PUBLIC_BASE_URL: "https://oppintel.example", OAUTH_CIMD_ALLOW_LOOPBACK: "1" }),
    /OAUTH_CIMD_ALLOW_LOOPBACK/,
  );
  const config = readConfig({
    PUBLIC_BASE_URL: "http://127.0.0.1:8000",
    OAUTH_CIMD_ALLOW_LOOPBACK: "1",
  });
  assert.equal(config.oauthAllowLoopbackDocuments, true);
  assert.equal(readConfig({}).oauthAllowLoopbackDocuments, false);
});
