/**
 * The OAuth 2.1 authorization server in-process (src/web/oauth.ts, src/web/account/oauth_consent.ts,
 * src/oauth/*.ts): a whole sign-in through the account area, then the hostile cases of
 * codes, PKCE, redirect URIs and resources, each checked to answer its RFC error and to leave no
 * state behind. Consent, documents and registration: oauth_registration_test.ts.
 */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { loadFixture } from "../helpers/app.ts";
import { signUp, webTestApp } from "../helpers/web.ts";
import {
  assertTokenRefused,
  authorize,
  authorizeParams,
  Browser,
  connectApp,
  mcpBearer,
  oauthCounts,
  pkcePair,
  REDIRECT,
  registerClient,
  tokenRequest,
  toolCall,
} from "../helpers/oauth.ts";

const RESOURCE = "http://localhost:8000/mcp/";

dbTest("OAuth: a whole sign-in, tokens on MCP and REST with the same quota", async (db, t) => {
  const ids = await loadFixture(db.sql);
  const app = webTestApp(db);
  const browser = new Browser(app);
  await signUp(browser, "oauth-user@example.com");
  const { access, refresh, clientId } = await connectApp(app, browser, "Claude test");

  await t.step("tools/list and a charged tools/call, with the X-Quota headers", async () => {
    const list = await mcpBearer(app, access, { id: 1, method: "tools/list", params: {} });
    assert.equal(list.status, 200);
    assert.ok((await list.json()).result.tools.length >= 7);
    const { res, body } = await toolCall(app, access, "get_overview");
    assert.equal(res.status, 200);
    assert.notEqual(body.result.isError, true);
    assert.equal(res.headers.get("x-quota-used"), "1");
    assert.equal(res.headers.get("x-quota-limit"), "20");
  });

  await t.step("the same token works on REST as Bearer and draws on the same counter", async () => {
    // Not the overview: the same call through REST would be a repeat of get_overview, free.
    const res = await app.handler(
      new Request(`${app.base}/api/v1/opportunities/${ids["opp-1"]}`, {
        headers: { Authorization: `Bearer ${access}` },
      }),
    );
    assert.equal(res.status, 200);
    await res.body?.cancel();
    assert.equal(res.headers.get("x-quota-used"), "2");
  });

  await t.step("usage by_key shows the app by name; the parts add up to used", async () => {
    const res = await app.handler(
      new Request(`${app.base}/api/v1/usage`, { headers: { Authorization: `Bearer ${access}` } }),
    );
    const usage = await res.json();
    assert.equal(usage.used, 2);
    const app_ = usage.by_key.find((k: { name: string }) => k.name === "Claude test");
    assert.ok(app_, JSON.stringify(usage.by_key));
    assert.equal(app_.calls, 2);
    assert.match(app_.prefix, /^oauth:\d+$/);
    const sum = usage.by_key.reduce((n: number, k: { calls: number }) => n + k.calls, 0);
    assert.equal(sum, usage.used);
  });

  await t.step("the dashboard lists the app under Connected apps", async () => {
    const { text } = await browser.get("/account");
    assert.match(text, /Connected apps/);
    assert.match(text, /Claude test/);
    assert.match(text, /127\.0\.0\.1:7777/);
  });

  await t.step("an expired access token: 401 invalid_token, on MCP and REST", async () => {
    await db.sql`update oauth_tokens set expires_at = now() - interval '1 second'
      where kind = 'access'`;
    await assertTokenRefused(app, access);
  });

  await t.step("refresh rotates; the old refresh token used again revokes the grant", async () => {
    const first = await tokenRequest(app, {
      grant_type: "refresh_token",
      refresh_token: refresh,
      client_id: clientId,
    });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const next = first.body.access_token as string;
    assert.notEqual(next, access);
    assert.notEqual(first.body.refresh_token, refresh);
    assert.equal((await toolCall(app, next, "get_overview")).res.status, 200);
    const reuse = await tokenRequest(app, {
      grant_type: "refresh_token",
      refresh_token: refresh,
      client_id: clientId,
    });
    assert.equal(reuse.status, 400);
    assert.equal(reuse.body.error, "invalid_grant");
    // The whole grant: the newest access and refresh tokens stop too.
    const after = await mcpBearer(app, next, { id: 1, method: "tools/list", params: {} });
    assert.equal(after.status, 401);
    assert.match(after.headers.get("www-authenticate") ?? "", /error="invalid_token"/);
    assert.equal((await after.json()).error.data.error, "invalid_token");
    const newest = await tokenRequest(app, {
      grant_type: "refresh_token",
      refresh_token: first.body.refresh_token as string,
      client_id: clientId,
    });
    assert.equal(newest.body.error, "invalid_grant");
  });
});

dbTest(
  "OAuth: codes, PKCE, redirect URIs and resources refused as OAuth 2.1 says",
  async (db, t) => {
    const app = webTestApp(db);
    const browser = new Browser(app);
    await signUp(browser, "hostile@example.com");
    const clientId = await registerClient(app);

    async function codeFor(extra: Record<string, string> = {}) {
      const pair = await pkcePair();
      const back = await authorize(browser, authorizeParams(clientId, pair.challenge, extra));
      return { ...pair, code: back.searchParams.get("code")!, back };
    }
    const exchange = (code: string, verifier: string, extra: Record<string, string> = {}) =>
      tokenRequest(app, {
        grant_type: "authorization_code",
        code,
        code_verifier: verifier,
        client_id: clientId,
        redirect_uri: REDIRECT,
        ...extra,
      });

    await t.step("state and iss come back unchanged with the code", async () => {
      const { back } = await codeFor();
      assert.equal(back.origin + back.pathname, REDIRECT);
      assert.equal(back.searchParams.get("state"), "state-123");
      assert.equal(back.searchParams.get("iss"), "http://localhost:8000");
    });

    await t.step("a wrong PKCE verifier: invalid_grant, and the code is not used up", async () => {
      const { code, verifier } = await codeFor();
      const before = await oauthCounts(db.sql);
      const wrong = await exchange(code, (await pkcePair()).verifier);
      assert.equal(wrong.status, 400);
      assert.equal(wrong.body.error, "invalid_grant");
      assert.deepEqual(await oauthCounts(db.sql), before);
      assert.equal((await exchange(code, verifier)).status, 200);
    });

    await t.step("code reuse fails and revokes what the first use issued", async () => {
      const { code, verifier } = await codeFor();
      const first = await exchange(code, verifier);
      assert.equal(first.status, 200);
      const access = first.body.access_token as string;
      assert.equal((await mcpBearer(app, access, { id: 1, method: "ping" })).status, 200);
      const second = await exchange(code, verifier);
      assert.equal(second.status, 400);
      assert.equal(second.body.error, "invalid_grant");
      assert.equal((await mcpBearer(app, access, { id: 1, method: "ping" })).status, 401);
      const refreshed = await tokenRequest(app, {
        grant_type: "refresh_token",
        refresh_token: first.body.refresh_token as string,
        client_id: clientId,
      });
      assert.equal(refreshed.body.error, "invalid_grant");
    });

    await t.step("an expired code: invalid_grant", async () => {
      const { code, verifier } = await codeFor();
      await db.sql`update oauth_codes set expires_at = now() - interval '1 second'
      where used_at is null`;
      const res = await exchange(code, verifier);
      assert.equal(res.status, 400);
      assert.equal(res.body.error, "invalid_grant");
    });

    await t.step(
      "a code of another client, or for another redirect URI: invalid_grant",
      async () => {
        const other = await registerClient(app, "Other");
        const { code, verifier } = await codeFor();
        const stolen = await exchange(code, verifier, { client_id: other });
        assert.equal(stolen.body.error, "invalid_grant");
        const moved = await exchange(code, verifier, { redirect_uri: "http://127.0.0.1:7777/x" });
        assert.equal(moved.body.error, "invalid_grant");
        assert.equal((await exchange(code, verifier)).status, 200);
      },
    );

    await t.step(
      "a client ID metadata document that cannot be trusted is shown, not used",
      async () => {
        const before = await oauthCounts(db.sql);
        for (
          const id of [
            "http://127.0.0.1:9/client.json", // not https (no development setting here)
            "https://127.0.0.1:9/client.json", // loopback
            "https://10.1.2.3/client.json", // private
          ]
        ) {
          const params = authorizeParams(id, (await pkcePair()).challenge);
          const res = await browser.request(`/oauth/authorize?${params}`);
          assert.equal(res.status, 400, id);
          assert.equal(res.headers.get("location"), null);
          assert.match((await res.json()).error_description, /metadata document/);
          const token = await tokenRequest(app, {
            grant_type: "refresh_token",
            refresh_token: "x",
            client_id: id,
          });
          assert.equal(token.status, 401);
          assert.equal(token.body.error, "invalid_client");
        }
        assert.deepEqual(await oauthCounts(db.sql), before);
      },
    );

    await t.step("an unregistered redirect URI is shown, never redirected to", async () => {
      const before = await oauthCounts(db.sql);
      for (
        const uri of [
          "https://evil.example/callback",
          "http://127.0.0.1:7777/callback/../evil",
          "http://127.0.0.1:7777/callback?next=https://evil.example",
          "http://evil.example:7777/callback",
          "//evil.example/callback",
        ]
      ) {
        const params = authorizeParams(clientId, (await pkcePair()).challenge, {
          redirect_uri: uri,
        });
        const res = await browser.request(`/oauth/authorize?${params}`);
        assert.equal(res.status, 400, uri);
        assert.equal(res.headers.get("location"), null, uri);
        await res.body?.cancel();
        const page = await browser.get(`/account/authorize?${params}`);
        assert.equal(page.response.status, 400, uri);
        assert.equal(page.response.headers.get("location"), null);
      }
      assert.deepEqual(await oauthCounts(db.sql), before);
    });

    await t.step("a loopback redirect URI may change its port (RFC 8252)", async () => {
      const { back } = await codeFor({ redirect_uri: "http://127.0.0.1:50123/callback" });
      assert.equal(back.port, "50123");
      assert.ok(back.searchParams.get("code"));
    });

    await t.step("resource for another server: invalid_target to the client", async () => {
      const params = authorizeParams(clientId, (await pkcePair()).challenge, {
        resource: "https://other.example/mcp/",
      });
      const res = await browser.request(`/oauth/authorize?${params}`);
      assert.equal(res.status, 302);
      const back = new URL(res.headers.get("location")!);
      assert.equal(back.origin + back.pathname, REDIRECT);
      assert.equal(back.searchParams.get("error"), "invalid_target");
      assert.equal(back.searchParams.get("state"), "state-123");
      const { code, verifier } = await codeFor();
      const token = await exchange(code, verifier, { resource: "https://other.example/mcp/" });
      assert.equal(token.body.error, "invalid_target");
      assert.equal((await exchange(code, verifier, { resource: RESOURCE })).status, 200);
    });

    await t.step(
      "no PKCE, plain PKCE, or another response_type: errors to the client",
      async () => {
        const cases: [Record<string, string>, string][] = [
          [{ code_challenge: "" }, "invalid_request"],
          [{ code_challenge_method: "plain" }, "invalid_request"],
          [{ response_type: "token" }, "unsupported_response_type"],
        ];
        for (const [extra, error] of cases) {
          const params = authorizeParams(clientId, (await pkcePair()).challenge, extra);
          const res = await browser.request(`/oauth/authorize?${params}`);
          assert.equal(res.status, 302);
          assert.equal(new URL(res.headers.get("location")!).searchParams.get("error"), error);
        }
      },
    );

    await t.step("Deny sends access_denied with the state", async () => {
      const params = authorizeParams(clientId, (await pkcePair()).challenge);
      const before = await oauthCounts(db.sql);
      const back = await authorize(browser, params, "deny");
      assert.equal(back.searchParams.get("error"), "access_denied");
      assert.equal(back.searchParams.get("state"), "state-123");
      assert.deepEqual(await oauthCounts(db.sql), before);
    });

    await t.step("the token endpoint answers its RFC errors, never a 500", async () => {
      const cases: [Record<string, string>, number, string][] = [
        [{}, 400, "invalid_request"],
        [{ grant_type: "password", client_id: clientId }, 400, "unsupported_grant_type"],
        [
          { grant_type: "authorization_code", code: "x", code_verifier: "y" },
          400,
          "invalid_request",
        ],
        [
          {
            grant_type: "authorization_code",
            client_id: "oi_client_gone",
            code: "x",
            code_verifier: "y",
          },
          401,
          "invalid_client",
        ],
        [
          {
            grant_type: "authorization_code",
            client_id: clientId,
            code: "oi_ac_x",
            code_verifier: "y",
          },
          400,
          "invalid_grant",
        ],
        [
          { grant_type: "refresh_token", client_id: clientId, refresh_token: "\u0000" },
          400,
          "invalid_request",
        ],
      ];
      for (const [fields, status, error] of cases) {
        const res = await tokenRequest(app, fields);
        assert.equal(res.status, status, JSON.stringify(fields));
        assert.equal(res.body.error, error, JSON.stringify(fields));
      }
      const json = await app.handler(
        new Request(`${app.base}/oauth/token`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: "{}",
        }),
      );
      assert.equal(json.status, 400);
      assert.equal((await json.json()).error, "invalid_request");
    });
  },
);
