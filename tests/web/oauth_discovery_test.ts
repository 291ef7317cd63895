/**
 * OAuth discovery (RFC 9728, RFC 8414) and the 401 challenge of /mcp/: every URL comes from
 * PUBLIC_BASE_URL, whatever Host or X-Forwarded-* a request carries, TRUST_PROXY or not.
 */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { testApp } from "../helpers/app.ts";
import { pkcePair } from "../helpers/oauth.ts";
import { insecureIssuerWarning, oauthMetadata } from "../../src/web/oauth.ts";

const BASE = "https://oppintel.example";
const SPOOF = {
  Host: "evil.example",
  "X-Forwarded-Host": "evil.example",
  "X-Forwarded-Proto": "http",
  "X-Forwarded-For": "203.0.113.9",
};

dbTest(
  "OAuth discovery documents and the 401 challenge use PUBLIC_BASE_URL only",
  async (db, t) => {
    for (const trustProxy of ["0", "1"]) {
      const app = testApp(db, { TRUST_PROXY: trustProxy });
      const get = (path: string) =>
        app.handler(new Request(`http://evil.example${path}`, { headers: SPOOF }));

      await t.step(`authorization server metadata (TRUST_PROXY=${trustProxy})`, async () => {
        const res = await get("/.well-known/oauth-authorization-server");
        assert.equal(res.status, 200);
        assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
        const body = await res.json();
        assert.equal(body.issuer, BASE);
        assert.equal(body.authorization_endpoint, `${BASE}/oauth/authorize`);
        assert.equal(body.token_endpoint, `${BASE}/oauth/token`);
        assert.equal(body.registration_endpoint, `${BASE}/oauth/register`);
        assert.equal(body.revocation_endpoint, `${BASE}/oauth/revoke`);
        assert.deepEqual(body.code_challenge_methods_supported, ["S256"]);
        assert.deepEqual(body.grant_types_supported, ["authorization_code", "refresh_token"]);
        assert.ok(body.token_endpoint_auth_methods_supported.includes("none"));
        assert.equal(body.client_id_metadata_document_supported, true);
        assert.deepEqual(body.scopes_supported, ["catalog", "watches"]);
        assert.ok(!JSON.stringify(body).includes("evil"));
      });

      await t.step(`protected resource metadata, root and path forms (${trustProxy})`, async () => {
        for (
          const path of [
            "/.well-known/oauth-protected-resource",
            "/.well-known/oauth-protected-resource/mcp",
            "/.well-known/oauth-protected-resource/mcp/",
          ]
        ) {
          const res = await get(path);
          assert.equal(res.status, 200, path);
          const body = await res.json();
          assert.equal(body.resource, `${BASE}/mcp/`);
          assert.deepEqual(body.authorization_servers, [BASE]);
          assert.deepEqual(body.bearer_methods_supported, ["header"]);
          assert.deepEqual(body.scopes_supported, ["catalog", "watches"]);
        }
        assert.equal((await get("/.well-known/oauth-protected-resource/other")).status, 404);
      });

      await t.step(
        `/mcp/ without a credential: 401 with the challenge (${trustProxy})`,
        async () => {
          const res = await app.handler(
            new Request("http://evil.example/mcp/", {
              method: "POST",
              headers: { ...SPOOF, "Content-Type": "application/json" },
              body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
            }),
          );
          assert.equal(res.status, 401);
          assert.equal(
            res.headers.get("www-authenticate"),
            `Bearer resource_metadata="${BASE}/.well-known/oauth-protected-resource/mcp/"`,
          );
          assert.match(res.headers.get("access-control-expose-headers") ?? "", /WWW-Authenticate/);
          const body = await res.json();
          assert.equal(body.error.data.error, "missing_api_key");
        },
      );

      await t.step(`an unknown or malformed token: invalid_token (${trustProxy})`, async () => {
        for (const token of ["oi_at_" + "A".repeat(50), "oi_at_short"]) {
          const res = await app.handler(
            new Request("http://evil.example/mcp/", {
              method: "POST",
              headers: { ...SPOOF, Authorization: `Bearer ${token}` },
              body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
            }),
          );
          assert.equal(res.status, 401);
          const challenge = res.headers.get("www-authenticate") ?? "";
          assert.match(challenge, /^Bearer error="invalid_token"/);
          assert.ok(challenge.includes(`resource_metadata="${BASE}/`), challenge);
          assert.equal((await res.json()).error.data.error, "invalid_token");
        }
      });

      await t.step(`/oauth/authorize hands over to ${BASE}/account (${trustProxy})`, async () => {
        const registered = await app.handler(
          new Request("http://evil.example/oauth/register", {
            method: "POST",
            headers: { ...SPOOF, "Content-Type": "application/json" },
            body: JSON.stringify({
              client_name: `Handover ${trustProxy}`,
              redirect_uris: ["http://127.0.0.1:33418/callback"],
              token_endpoint_auth_method: "none",
            }),
          }),
        );
        assert.equal(registered.status, 201);
        const { client_id } = await registered.json();
        const { challenge } = await pkcePair();
        const params = new URLSearchParams({
          response_type: "code",
          client_id,
          redirect_uri: "http://127.0.0.1:33418/callback",
          code_challenge: challenge,
          code_challenge_method: "S256",
          state: "s",
          resource: `${BASE}/mcp/`,
        });
        const handover = await get(`/oauth/authorize?${params}`);
        assert.equal(handover.status, 302);
        const location = handover.headers.get("location") ?? "";
        assert.ok(location.startsWith(`${BASE}/account/authorize?`), location);
        const res = await get("/oauth/authorize?client_id=nobody");
        assert.equal(res.status, 400);
        assert.equal((await res.json()).error, "invalid_request");
        const wrong = await app.handler(
          new Request("http://evil.example/oauth/token", { method: "GET", headers: SPOOF }),
        );
        assert.equal(wrong.status, 405);
        await wrong.body?.cancel();
      });
    }
  },
);

Deno.test("an http PUBLIC_BASE_URL outside loopback still builds the metadata, with a warning", () => {
  for (const base of ["http://oppintel.internal", "http://10.0.0.5:8000"]) {
    const { authorizationServer, protectedResource } = oauthMetadata(base);
    assert.equal(authorizationServer.issuer, base);
    assert.equal(protectedResource.resource, `${base}/mcp/`);
    assert.match(insecureIssuerWarning(base) ?? "", /not https/);
  }
  for (const base of ["https://oppintel.example", "http://localhost:8000", "http://127.0.0.1:9"]) {
    assert.equal(insecureIssuerWarning(base), undefined, base);
  }
});
