/**
 * The OAuth 2.1 authorization server in-process (src/web/oauth.ts, src/web/account_oauth.ts,
 * src/accounts/oauth_*.ts): a whole sign-in through the account area, then every hostile case of
 * the issue, each checked to answer its RFC error and to leave no state behind.
 */
import assert from "node:assert/strict";
import { HtmlValidate } from "html-validate";
import { dbTest } from "../helpers/db.ts";
import { loadFixture } from "../helpers/app.ts";
import { csrfIn, signUp, webTestApp } from "../helpers/web.ts";
import {
  authorize,
  authorizeParams,
  Browser,
  connectApp,
  mcpBearer,
  pkcePair,
  REDIRECT,
  register,
  registerClient,
  tokenRequest,
} from "../helpers/oauth.ts";
import type { Sql } from "../../src/db/open.ts";

const RESOURCE = "http://localhost:8000/mcp/";

async function counts(sql: Sql) {
  const [row] = await sql<{ clients: number; grants: number; codes: number; tokens: number }[]>`
    select (select count(*)::int from oauth_clients) as clients,
      (select count(*)::int from oauth_grants) as grants,
      (select count(*)::int from oauth_codes) as codes,
      (select count(*)::int from oauth_tokens) as tokens`;
  return row;
}

async function toolCall(app: ReturnType<typeof webTestApp>, token: string, name: string) {
  const res = await mcpBearer(app, token, {
    id: 2,
    method: "tools/call",
    params: { name, arguments: {} },
  });
  return { res, body: await res.json() };
}

/** Asserts that an access token is refused with 401 invalid_token on MCP and on REST. */
async function assertTokenRefused(app: ReturnType<typeof webTestApp>, token: string) {
  const mcp = await mcpBearer(app, token, { id: 1, method: "tools/list", params: {} });
  assert.equal(mcp.status, 401);
  assert.match(mcp.headers.get("www-authenticate") ?? "", /^Bearer error="invalid_token"/);
  assert.equal((await mcp.json()).error.data.error, "invalid_token");
  const rest = await app.handler(
    new Request(`${app.base}/api/v1/overview`, { headers: { Authorization: `Bearer ${token}` } }),
  );
  assert.equal(rest.status, 401);
  assert.equal(rest.headers.get("www-authenticate"), 'Bearer error="invalid_token"');
  assert.match(rest.headers.get("access-control-expose-headers") ?? "", /WWW-Authenticate/);
  assert.equal((await rest.json()).error, "invalid_token");
}

dbTest("OAuth: a whole sign-in, tokens on MCP and REST with the same quota", async (db, t) => {
  await loadFixture(db.sql);
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
    const res = await app.handler(
      new Request(`${app.base}/api/v1/overview`, {
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
      const before = await counts(db.sql);
      const wrong = await exchange(code, (await pkcePair()).verifier);
      assert.equal(wrong.status, 400);
      assert.equal(wrong.body.error, "invalid_grant");
      assert.deepEqual(await counts(db.sql), before);
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
        const before = await counts(db.sql);
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
        assert.deepEqual(await counts(db.sql), before);
      },
    );

    await t.step("an unregistered redirect URI is shown, never redirected to", async () => {
      const before = await counts(db.sql);
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
      assert.deepEqual(await counts(db.sql), before);
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
      const before = await counts(db.sql);
      const back = await authorize(browser, params, "deny");
      assert.equal(back.searchParams.get("error"), "access_denied");
      assert.equal(back.searchParams.get("state"), "state-123");
      assert.deepEqual(await counts(db.sql), before);
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

dbTest(
  "OAuth: consent and Revoke are CSRF-protected; revoking stops tokens at once",
  async (db, t) => {
    const app = webTestApp(db);
    const browser = new Browser(app);
    await signUp(browser, "csrf@example.com");
    const clientId = await registerClient(app, "CSRF client");
    const params = authorizeParams(clientId, (await pkcePair()).challenge);

    await t.step(
      "a consent post without, or with a wrong, CSRF token: 403, nothing made",
      async () => {
        const page = await browser.get(`/account/authorize?${params}`);
        assert.equal(page.response.status, 200);
        assert.match(page.text, /CSRF client/);
        assert.match(page.text, /read the catalogue and your usage/);
        assert.match(
          page.response.headers.get("content-security-policy") ?? "",
          /form-action 'self' http:\/\/127\.0\.0\.1:7777/,
        );
        const fields = Object.fromEntries(params);
        const before = await counts(db.sql);
        for (const csrf of [undefined, "x".repeat(43), csrfIn(page.text)]) {
          const headers = csrf === csrfIn(page.text)
            ? { "Sec-Fetch-Site": "cross-site" }
            : { "Sec-Fetch-Site": "same-origin" };
          const res = await browser.post("/account/authorize", {
            ...fields,
            ...(csrf ? { csrf } : {}),
            decision: "approve",
          }, headers);
          assert.equal(res.response.status, 403);
          assert.equal(res.response.headers.get("location"), null);
        }
        assert.deepEqual(await counts(db.sql), before);
      },
    );

    await t.step(
      "signed out, the consent page asks to sign in and comes back after the link",
      async () => {
        const other = new Browser(app, "192.0.2.77");
        const page = await other.get(`/account/authorize?${params}`);
        assert.equal(page.response.status, 200);
        assert.match(page.text, /Sign in to connect <bdi>CSRF client<\/bdi>/);
        const next = /name="next" value="([^"]+)"/.exec(page.text)![1].replaceAll("&amp;", "&");
        await other.post("/account/signup", {
          email: "second@example.com",
          csrf: csrfIn(page.text),
          next,
        });
        const link = /https?:\/\/\S+\/account\/link\?token=[A-Za-z0-9_-]+/.exec(
          app.outbox.at(-1)!.text,
        )![0];
        const confirm = await other.get(link);
        const used = await other.post("/account/link", {
          token: new URL(link).searchParams.get("token")!,
          csrf: csrfIn(confirm.text),
        });
        assert.equal(used.response.status, 303);
        assert.equal(used.response.headers.get("location"), next);
      },
    );

    await t.step("a next that is not a consent page is ignored (no open redirect)", async () => {
      const other = new Browser(app, "192.0.2.78");
      const landing = await other.get("/account");
      await other.post("/account/signup", {
        email: "third@example.com",
        csrf: csrfIn(landing.text),
        next: "https://evil.example/account/authorize?x",
      });
      const link = /https?:\/\/\S+\/account\/link\?token=[A-Za-z0-9_-]+/.exec(
        app.outbox.at(-1)!.text,
      )![0];
      const confirm = await other.get(link);
      const used = await other.post("/account/link", {
        token: new URL(link).searchParams.get("token")!,
        csrf: csrfIn(confirm.text),
      });
      assert.equal(used.response.headers.get("location"), "/account");
    });

    await t.step("the sign-in, consent and dashboard pages are valid HTML", async () => {
      const validator = new HtmlValidate({ extends: ["html-validate:recommended"] });
      const problems = async (page: string) => {
        const report = await validator.validateString(page);
        return report.results.flatMap((r) =>
          r.messages.map((m) => `${m.line}:${m.column} ${m.ruleId} ${m.message}`)
        );
      };
      await connectApp(app, browser, "Valid & <odd> name");
      assert.deepEqual(
        await problems((await browser.get(`/account/authorize?${params}`)).text),
        [],
      );
      assert.deepEqual(await problems((await browser.get("/account")).text), []);
      const anonymous = new Browser(app, "192.0.2.80");
      assert.deepEqual(
        await problems((await anonymous.get(`/account/authorize?${params}`)).text),
        [],
      );
    });

    await t.step("Revoke needs the CSRF token; then the grant's tokens answer 401", async () => {
      const { access } = await connectApp(app, browser, "Revoke me");
      assert.equal((await mcpBearer(app, access, { id: 1, method: "ping" })).status, 200);
      const [grant] = await db.sql<{ id: number }[]>`
      select id from oauth_grants where client_name = 'Revoke me'`;
      const forged = await browser.post("/account/apps/revoke", { id: String(grant.id) });
      assert.equal(forged.response.status, 403);
      assert.equal((await mcpBearer(app, access, { id: 1, method: "ping" })).status, 200);
      const dashboard = await browser.get("/account");
      const revoked = await browser.post("/account/apps/revoke", {
        id: String(grant.id),
        csrf: csrfIn(dashboard.text),
      });
      assert.equal(revoked.response.status, 303);
      await assertTokenRefused(app, access);
    });

    await t.step("another account cannot revoke someone else's grant", async () => {
      const { access } = await connectApp(app, browser, "Mine");
      const [grant] = await db.sql<{ id: number }[]>`
      select id from oauth_grants where client_name = 'Mine'`;
      const stranger = new Browser(app, "192.0.2.79");
      await signUp(stranger, "stranger@example.com");
      const dashboard = await stranger.get("/account");
      const refused = await stranger.post("/account/apps/revoke", {
        id: String(grant.id),
        csrf: csrfIn(dashboard.text),
      });
      assert.equal(refused.response.status, 303);
      assert.equal(refused.response.headers.get("location"), "/account#apps-title");
      assert.equal((await mcpBearer(app, access, { id: 1, method: "ping" })).status, 200);
      // Ids that are no grant (too big for a PostgreSQL integer, not a number) change nothing.
      for (const id of ["9999999999", "1e3", "-1", "", "abc"]) {
        const odd = await stranger.post("/account/apps/revoke", {
          id,
          csrf: csrfIn(dashboard.text),
        });
        assert.equal(odd.response.status, 303, id);
        assert.equal(odd.response.headers.get("location"), "/account#apps-title", id);
      }
    });

    await t.step("the revocation endpoint: a refresh token revokes its grant", async () => {
      const { access, refresh, clientId: id } = await connectApp(app, browser, "Revoker");
      const res = await tokenRequest(app, { token: refresh, client_id: id }, "/oauth/revoke");
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("access-control-allow-origin"), "*", "readable by a browser");
      assert.equal((await mcpBearer(app, access, { id: 1, method: "ping" })).status, 401);
      const unknown = await tokenRequest(
        app,
        { token: "nonsense", client_id: id },
        "/oauth/revoke",
      );
      assert.equal(unknown.status, 200);
    });
  },
);

dbTest("OAuth: client ID metadata document fetches are limited per IP", async (db) => {
  const app = webTestApp(db, { web: { oauth: { documentFetchesPerHour: 2 } } });
  const { challenge } = await pkcePair();
  // Documents on private addresses: refused at once, but each attempt counts as a fetch.
  const attempt = async (n: number, ip: string) => {
    const clientId = `https://10.0.0.${n}/client.json`;
    const res = await app.handler(
      new Request(`${app.base}/oauth/authorize?${authorizeParams(clientId, challenge)}`, {
        headers: { "x-test-ip": ip },
      }),
    );
    return { status: res.status, body: await res.json() };
  };
  for (const n of [1, 2]) {
    const res = await attempt(n, "192.0.2.50");
    assert.equal(res.status, 400);
    assert.match(res.body.error_description, /private or reserved/);
  }
  const limited = await attempt(3, "192.0.2.50");
  assert.equal(limited.status, 429);
  assert.match(limited.body.error_description, /Too many client ID metadata documents/);
  // Another address has its own count.
  assert.equal((await attempt(4, "192.0.2.51")).status, 400);
  // The token endpoint never fetches a document: an unknown one is invalid_client at once.
  const token = await tokenRequest(
    app,
    {
      grant_type: "authorization_code",
      code: "oi_code_x",
      code_verifier: "v".repeat(43),
      client_id: "https://10.0.0.5/client.json",
    },
    "/oauth/token",
    "192.0.2.50",
  );
  assert.equal(token.status, 401);
  assert.equal(token.body.error, "invalid_client");
});

dbTest(
  "OAuth: registration validates metadata, is rate-limited per IP, writes nothing on refusal",
  async (db, t) => {
    const app = webTestApp(db, { web: { oauth: { registrationsPerHour: 3 } } });
    const bad: [unknown, string][] = [
      ["not json", "invalid_client_metadata"],
      [[], "invalid_client_metadata"],
      [{}, "invalid_redirect_uri"],
      [{ redirect_uris: [] }, "invalid_redirect_uri"],
      [{ redirect_uris: ["http://evil.example/cb"] }, "invalid_redirect_uri"],
      [{ redirect_uris: ["javascript:alert(1)"] }, "invalid_redirect_uri"],
      [{ redirect_uris: ["https://app.example/cb#frag"] }, "invalid_redirect_uri"],
      [{ redirect_uris: ["https://user:pw@app.example/cb"] }, "invalid_redirect_uri"],
      [{ redirect_uris: ["relative/path"] }, "invalid_redirect_uri"],
      [{ redirect_uris: ["https://a.example;script-src*/cb"] }, "invalid_redirect_uri"],
      [
        { redirect_uris: [REDIRECT], token_endpoint_auth_method: "client_secret_basic" },
        "invalid_client_metadata",
      ],
      [
        { redirect_uris: [REDIRECT], grant_types: ["client_credentials"] },
        "invalid_client_metadata",
      ],
      [{ redirect_uris: [REDIRECT], response_types: ["token"] }, "invalid_client_metadata"],
      [{ redirect_uris: [REDIRECT], client_name: "a\u0000b" }, "invalid_client_metadata"],
      [{ redirect_uris: [REDIRECT], client_name: "x".repeat(101) }, "invalid_client_metadata"],
    ];
    await t.step("bad metadata: RFC 7591 errors, nothing stored", async () => {
      for (const [metadata, error] of bad) {
        const res = await register(app, metadata);
        assert.equal(res.status, 400, JSON.stringify(metadata));
        assert.equal(res.body.error, error, JSON.stringify(metadata));
      }
      assert.equal((await counts(db.sql)).clients, 0);
    });
    await t.step("good metadata: 201, a public client; custom schemes allowed", async () => {
      const res = await register(app, {
        client_name: "Desktop",
        redirect_uris: ["cursor://anysphere.cursor-retrieval/oauth/callback", REDIRECT],
      });
      assert.equal(res.status, 201);
      assert.equal(res.body.token_endpoint_auth_method, "none");
      assert.equal(res.body.client_secret, undefined);
      assert.match(res.body.client_id as string, /^oi_client_/);
    });
    await t.step(
      "the fourth registration from one IP in an hour: 429; another IP goes on",
      async () => {
        const good = { redirect_uris: [REDIRECT] };
        assert.equal((await register(app, good)).status, 201);
        assert.equal((await register(app, good)).status, 201);
        const limited = await register(app, good);
        assert.equal(limited.status, 429);
        assert.equal((await counts(db.sql)).clients, 3);
        assert.equal((await register(app, good, "192.0.2.99")).status, 201);
      },
    );
    await t.step(
      "a registration unused for 30 days expires: its client_id is invalid_client",
      async () => {
        const made = await register(app, { redirect_uris: [REDIRECT] }, "192.0.2.101");
        const old = made.body.client_id as string;
        await db.sql`update oauth_clients set last_used_at = now() - interval '31 days'
      where client_id = ${old}`;
        const res = await tokenRequest(app, {
          grant_type: "refresh_token",
          refresh_token: "oi_rt_x",
          client_id: old,
        });
        assert.equal(res.status, 401);
        assert.equal(res.body.error, "invalid_client");
        // The next registration removes it for good.
        await register(app, { redirect_uris: [REDIRECT] }, "192.0.2.100");
        const [row] = await db
          .sql`select count(*)::int as n from oauth_clients where client_id = ${old}`;
        assert.equal(row.n, 0);
      },
    );
  },
);
