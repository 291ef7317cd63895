/**
 * The OAuth 2.1 authorization server in-process (src/web/oauth.ts, src/web/account/oauth_consent.ts,
 * src/oauth/*.ts), its consent and registration: consent and Revoke behind CSRF, client
 * ID metadata documents and registration refused or limited as they should be, each checked to
 * answer its RFC error and to leave no state behind. The sign-in itself: oauth_test.ts.
 */
import assert from "node:assert/strict";
import { HtmlValidate } from "html-validate";
import { dbTest } from "../helpers/db.ts";
import { csrfIn, signUp, webTestApp } from "../helpers/web.ts";
import {
  assertTokenRefused,
  authorizeParams,
  Browser,
  connectApp,
  mcpBearer,
  oauthCounts,
  pkcePair,
  REDIRECT,
  register,
  registerClient,
  tokenRequest,
} from "../helpers/oauth.ts";

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
        const before = await oauthCounts(db.sql);
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
        assert.deepEqual(await oauthCounts(db.sql), before);
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
      assert.equal((await oauthCounts(db.sql)).clients, 0);
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
        assert.equal((await oauthCounts(db.sql)).clients, 3);
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
