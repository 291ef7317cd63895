/**
 * What a client may say about itself (src/oauth/clients.ts) and how the consent page
 * shows it (src/web/account/oauth_consent.ts): redirect URIs are https, http to a loopback host, or a
 * native app's reverse-domain scheme (RFC 8252 sections 7.1 and 7.3); the page names where the
 * person goes back to by host, or by the app's scheme. Names hold no control or format
 * characters, and a name stored before that rule is shown stripped and isolated.
 */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { signUp, webTestApp } from "../helpers/web.ts";
import {
  authorize,
  authorizeParams,
  Browser,
  pkcePair,
  register,
  tokenRequest,
} from "../helpers/oauth.ts";
import type { Sql } from "../../src/db/open.ts";

async function clientCount(sql: Sql): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from oauth_clients`;
  return row.n;
}

dbTest("OAuth registration: redirect URIs a browser or system would misuse are refused", async (
  db,
  t,
) => {
  const app = webTestApp(db);

  await t.step("mailto, chrome, ms-settings and the like: 400 invalid_redirect_uri", async () => {
    const refused = [
      "mailto:someone@example.com",
      "chrome://settings/passwords",
      "chrome-extension://abcdef/cb",
      "ms-settings:privacy",
      "javascript:alert(1)",
      "data:text/html,hi",
      "file:///etc/passwd",
      "about:blank",
      "ws://127.0.0.1/cb",
      "tel:+15555550100",
      "myapp:/callback",
      "http://example.com/cb",
    ];
    for (const [i, uri] of refused.entries()) {
      const res = await register(app, { redirect_uris: [uri] }, `192.0.2.${i + 1}`);
      assert.equal(res.status, 400, uri);
      assert.equal(res.body.error, "invalid_redirect_uri", uri);
      assert.match(res.body.error_description as string, /must use https/, uri);
    }
    assert.equal(await clientCount(db.sql), 0);
  });

  await t.step("https, loopback http, reverse-domain schemes and Cursor's: 201", async () => {
    const allowed = [
      "https://app.example/callback",
      "http://127.0.0.1:33418/callback",
      "http://[::1]:8080/cb",
      "http://localhost/cb",
      "com.example.app:/callback",
      "com.example.app://oauth/callback",
      "cursor://anysphere.cursor-mcp/oauth/callback",
    ];
    for (const [i, uri] of allowed.entries()) {
      const res = await register(app, { redirect_uris: [uri] }, `192.0.2.${i + 101}`);
      assert.equal(res.status, 201, `${uri}: ${JSON.stringify(res.body)}`);
    }
  });
});

dbTest("OAuth consent: where the person goes back to is named sensibly", async (db, t) => {
  const app = webTestApp(db);
  const browser = new Browser(app);
  await signUp(browser, "back-to@example.com");
  const { challenge } = await pkcePair();
  const consentFor = async (redirect: string) => {
    const made = await register(app, { client_name: "Native", redirect_uris: [redirect] });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const params = authorizeParams(made.body.client_id as string, challenge, {
      redirect_uri: redirect,
    });
    const page = await browser.get(`/account/authorize?${params}`);
    assert.equal(page.response.status, 200, page.text);
    return /you go back to (<strong id="redirect-host">[^<]*<\/strong>[^.(]*(?:\([^)]*\))?)/
      .exec(page.text)?.[1];
  };

  await t.step("a web address: its host", async () => {
    assert.equal(
      await consentFor("https://app.example:8443/oauth/callback?x=1"),
      '<strong id="redirect-host">app.example:8443</strong>',
    );
  });
  await t.step("a native app: its scheme, said to be an app", async () => {
    assert.equal(
      await consentFor("com.example.app:/callback"),
      '<strong id="redirect-host">com.example.app</strong> (an app on this device)',
    );
    assert.equal(
      await consentFor("cursor://anysphere.cursor-mcp/oauth/callback"),
      '<strong id="redirect-host">cursor</strong> (an app on this device)',
    );
  });

  await t.step("a client stored before the rules with mailto: is never sent there", async () => {
    await db.sql`
      insert into oauth_clients (client_id, kind, client_name, redirect_uris)
      values ('oi_client_old', 'registered', 'Old app', ${["mailto:x@example.com"]})`;
    const params = authorizeParams("oi_client_old", challenge, {
      redirect_uri: "mailto:x@example.com",
    });
    const start = await app.handler(new Request(`${app.base}/oauth/authorize?${params}`));
    assert.equal(start.status, 400);
    assert.equal(start.headers.get("location"), null);
    assert.equal((await start.json()).error, "invalid_redirect_uri");
    const page = await browser.get(`/account/authorize?${params}`);
    assert.equal(page.response.status, 400);
    assert.doesNotMatch(page.text, /name="decision"/);
    const [grants] = await db.sql<{ n: number }[]>`select count(*)::int as n from oauth_grants`;
    assert.equal(grants.n, 0);
  });
});

dbTest("OAuth app names: bidi and other hidden characters refused, old ones shown safely", async (
  db,
  t,
) => {
  const app = webTestApp(db);

  await t.step("registration refuses them: 400 invalid_client_metadata", async () => {
    const refused = [
      "Good App\u202e\u2066evil",
      "Right\u200fto left mark",
      "Isolate \u2067x\u2069",
      "Zero\u200bwidth",
      "Byte\ufeffmark",
      "Line\u2028separator",
      "C1\u0085control",
      "Tab\there",
      "Lone \ud800 surrogate",
    ];
    for (const [i, name] of refused.entries()) {
      const res = await register(
        app,
        { client_name: name, redirect_uris: ["https://app.example/cb"] },
        `192.0.2.${i + 1}`,
      );
      assert.equal(res.status, 400, JSON.stringify(name));
      assert.equal(res.body.error, "invalid_client_metadata", JSON.stringify(name));
    }
    assert.equal(await clientCount(db.sql), 0);
  });

  await t.step("right-to-left, joiners and emoji sequences are names like any", async () => {
    const allowed = [
      "\u0645\u062f\u06cc\u0631",
      "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",
      "Dev \u{1F468}\u200d\u{1F4BB}",
    ];
    for (const [i, name] of allowed.entries()) {
      const res = await register(
        app,
        { client_name: name, redirect_uris: ["https://app.example/cb"] },
        `192.0.2.${i + 101}`,
      );
      assert.equal(res.status, 201, JSON.stringify(name));
      assert.equal(res.body.client_name, name);
    }
  });

  await t.step("a name stored before the rule: stripped and in <bdi> wherever shown", async () => {
    const redirect = "http://127.0.0.1:7777/callback";
    await db.sql`
      insert into oauth_clients (client_id, kind, client_name, redirect_uris)
      values ('oi_client_bidi', 'registered', ${"Good App\u202e\u2066evil"}, ${[redirect]})`;
    const browser = new Browser(app);
    const { challenge, verifier } = await pkcePair();
    const params = authorizeParams("oi_client_bidi", challenge);
    const signedOut = await browser.get(`/account/authorize?${params}`);
    assert.match(signedOut.text, /Sign in to connect <bdi>Good Appevil<\/bdi>/);
    await signUp(browser, "bidi@example.com");
    const consent = await browser.get(`/account/authorize?${params}`);
    assert.match(consent.text, /<h1>Connect <bdi>Good Appevil<\/bdi>\?<\/h1>/);
    const hidden = /[\u202a-\u202e\u2066-\u2069]/;
    for (const page of [signedOut.text, consent.text]) assert.doesNotMatch(page, hidden);
    const back = await authorize(browser, params);
    const tokens = await tokenRequest(app, {
      grant_type: "authorization_code",
      code: back.searchParams.get("code")!,
      code_verifier: verifier,
      client_id: "oi_client_bidi",
      redirect_uri: redirect,
    });
    assert.equal(tokens.status, 200, JSON.stringify(tokens.body));
    const overview = await app.handler(
      new Request(`${app.base}/api/v1/overview`, {
        headers: { Authorization: `Bearer ${tokens.body.access_token}` },
      }),
    );
    await overview.body?.cancel();
    // The grant copies the name as shown (stripped); one copied before keeps the raw name.
    const [grant] = await db.sql<{ client_name: string }[]>`select client_name from oauth_grants`;
    assert.equal(grant.client_name, "Good Appevil");
    await db.sql`update oauth_grants set client_name = ${"Good App\u202e\u2066evil"}`;
    const dashboard = await browser.get("/account");
    assert.match(dashboard.text, /Usage in/);
    assert.doesNotMatch(dashboard.text, hidden);
    // Under Connected apps and in the month's usage by key.
    assert.equal(dashboard.text.match(/<td><bdi>Good Appevil<\/bdi><\/td>/g)?.length, 2);
    assert.match(dashboard.text, /aria-label="Revoke Good Appevil"/);
  });
});
