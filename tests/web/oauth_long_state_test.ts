/**
 * A long OAuth `state` comes back unchanged: ChatGPT's app directory sends states of over 400
 * characters, so one of 1,000 (the most /oauth/authorize accepts) must survive /oauth/authorize,
 * the consent page, its form and, for a person not signed in yet, the e-mailed sign-in link that
 * brings them back to the consent page, whatever characters it is made of (RFC 6749 allows any
 * printable ASCII).
 */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { Browser, csrfIn, linkIn, signUp, webTestApp } from "../helpers/web.ts";
import {
  authorize,
  authorizeParams,
  consentFields,
  pkcePair,
  REDIRECT,
  register,
  registerClient,
} from "../helpers/oauth.ts";

/** Browsers keep a cookie only when its name and value fit 4,096 bytes (RFC 6265, section 6.1). */
const COOKIE_MAX = 4096;

/** `length` characters cycling through `alphabet`. */
function stateOf(alphabet: string, length = 1000): string {
  return Array.from({ length }, (_, i) => alphabet[i % alphabet.length]).join("");
}

const STATES: Record<string, string> = {
  "base64url (what ChatGPT sends)": stateOf(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
  ),
  "every printable ASCII character": stateOf(
    Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join(""),
  ),
  "characters that need escaping": stateOf(`%&=+#?/"<>'\\ `),
};

dbTest("OAuth: a state of 1,000 characters comes back unchanged", async (db, t) => {
  const app = webTestApp(db);
  const clientId = await registerClient(app);
  const signedIn = new Browser(app);
  await signUp(signedIn, "long-state@example.com");
  let n = 0;

  for (const [kind, state] of Object.entries(STATES)) {
    assert.equal(state.length, 1000);

    await t.step(`${kind}: signed in, approve and deny`, async () => {
      const { challenge } = await pkcePair();
      const params = authorizeParams(clientId, challenge, { state });
      const approved = await authorize(signedIn, params, "approve");
      assert.equal(approved.origin + approved.pathname, REDIRECT);
      assert.ok(approved.searchParams.get("code"));
      assert.equal(approved.searchParams.get("state"), state);
      const denied = await authorize(signedIn, params, "deny");
      assert.equal(denied.searchParams.get("error"), "access_denied");
      assert.equal(denied.searchParams.get("state"), state);
    });

    await t.step(`${kind}: signed out, through the e-mailed link`, async () => {
      const { challenge } = await pkcePair();
      const params = authorizeParams(clientId, challenge, { state });
      const browser = new Browser(app, `192.0.2.${150 + n++}`);
      const start = await browser.request(`/oauth/authorize?${params}`);
      await start.body?.cancel();
      assert.equal(start.status, 302);
      const page = await browser.get(start.headers.get("location")!);
      assert.equal(page.response.status, 200);
      assert.match(page.text, /Sign in to connect/);
      const next = /name="next" value="([^"]+)"/.exec(page.text)![1]
        .replaceAll("&quot;", '"').replaceAll("&#39;", "'").replaceAll("&lt;", "<")
        .replaceAll("&gt;", ">").replaceAll("&amp;", "&");
      const asked = await browser.post("/account/signup", {
        email: `long-state-${n}@example.com`,
        csrf: csrfIn(page.text),
        next,
      });
      assert.equal(asked.response.status, 200);
      for (const line of asked.response.headers.getSetCookie()) {
        const pair = line.split(";")[0];
        assert.ok(pair.length <= COOKIE_MAX, `a ${pair.length}-byte cookie is dropped`);
      }
      const link = linkIn(app.outbox.at(-1));
      const confirm = await browser.get(link);
      const used = await browser.post("/account/link", {
        token: new URL(link).searchParams.get("token")!,
        csrf: csrfIn(confirm.text),
      });
      assert.equal(used.response.status, 303);
      const back = used.response.headers.get("location")!;
      assert.ok(back.startsWith("/account/authorize?"), `back to the consent page, not ${back}`);
      const consent = await browser.get(back);
      assert.equal(consent.response.status, 200);
      const decided = await browser.post("/account/authorize", {
        ...consentFields(consent.text),
        decision: "approve",
      });
      assert.equal(decided.response.status, 303, decided.text);
      const approved = new URL(decided.response.headers.get("location")!);
      assert.ok(approved.searchParams.get("code"));
      assert.equal(approved.searchParams.get("state"), state);
    });
  }
});

dbTest("OAuth: Claude's and ChatGPT's callbacks register and get a code", async (db, t) => {
  const app = webTestApp(db);
  const browser = new Browser(app);
  await signUp(browser, "directories@example.com");
  const callbacks = {
    Claude: [
      "https://claude.ai/api/mcp/auth_callback",
      "https://claude.com/api/mcp/auth_callback",
    ],
    ChatGPT: ["https://chatgpt.com/connector_platform_oauth_redirect"],
  };
  for (const [client, uris] of Object.entries(callbacks)) {
    await t.step(client, async () => {
      const { status, body } = await register(app, {
        client_name: client,
        redirect_uris: uris,
        token_endpoint_auth_method: "none",
      });
      assert.equal(status, 201, JSON.stringify(body));
      for (const uri of uris) {
        const { challenge } = await pkcePair();
        const params = authorizeParams(body.client_id as string, challenge, {
          redirect_uri: uri,
          state: STATES["base64url (what ChatGPT sends)"],
        });
        const back = await authorize(browser, params, "approve");
        assert.equal(back.origin + back.pathname, uri);
        assert.ok(back.searchParams.get("code"));
        assert.equal(back.searchParams.get("state"), STATES["base64url (what ChatGPT sends)"]);
      }
    });
  }
});
