import assert from "node:assert/strict";
import { HtmlValidate } from "html-validate";
import { findAccountByEmail } from "../../src/accounts/accounts.ts";
import { dbTest } from "../helpers/db.ts";
import { Browser, csrfIn, linkIn, signUp, webTestApp } from "../helpers/web.ts";

function keyIn(page: string): string {
  const match = /<code class="key" id="new-key">(oi_live_[A-Za-z0-9]+)<\/code>/.exec(page);
  if (!match) throw new Error("No new key on the page");
  return match[1];
}

dbTest("account area: sign up, verify, create a key, use it, revoke it", async (db, t) => {
  const app = webTestApp(db);
  const browser = new Browser(app);
  const email = "Ada@Example.com";
  let link = "";
  let key = "";

  await t.step("the landing page sets an anonymous CSRF cookie and security headers", async () => {
    const { response, text } = await browser.get("/account");
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "text/html; charset=utf-8");
    const csp = response.headers.get("content-security-policy") ?? "";
    assert.match(csp, /script-src 'self'/);
    assert.doesNotMatch(csp, /unsafe-inline/);
    assert.equal(response.headers.get("x-content-type-options"), "nosniff");
    assert.equal(response.headers.get("referrer-policy"), "no-referrer");
    assert.equal(response.headers.get("cache-control"), "no-store");
    const [set] = response.headers.getSetCookie();
    assert.match(
      set,
      /^oi_csrf=[A-Za-z0-9_-]{43}; Path=\/account; Max-Age=\d+; HttpOnly; SameSite=Lax$/,
    );
    assert.match(text, /action="\/account\/signup"/);
  });

  await t.step("a sign-up without the CSRF token is refused and sends nothing", async () => {
    const { response } = await browser.post("/account/signup", { email });
    assert.equal(response.status, 403);
    const forged = await browser.post("/account/signup", { email, csrf: "x".repeat(43) });
    assert.equal(forged.response.status, 403);
    assert.equal(app.outbox.length, 0);
    assert.equal(await findAccountByEmail(db.sql, email), undefined);
  });

  await t.step("a cross-site form post is refused even with a valid token", async () => {
    const { text } = await browser.get("/account");
    const { response } = await browser.post("/account/signup", { email, csrf: csrfIn(text) }, {
      "Sec-Fetch-Site": "cross-site",
    });
    assert.equal(response.status, 403);
    assert.equal(app.outbox.length, 0);
  });

  await t.step("sign-up creates an unverified account and mails a verification link", async () => {
    const { text } = await browser.get("/account");
    const asked = await browser.post("/account/signup", { email, csrf: csrfIn(text) });
    assert.equal(asked.response.status, 200);
    assert.match(asked.text, /Check your inbox/);
    assert.equal(app.outbox.length, 1);
    assert.equal(app.outbox[0].to, email);
    link = linkIn(app.outbox[0]);
    assert.ok(link.startsWith(`${app.base}/account/link?token=`));
    const account = await findAccountByEmail(db.sql, email);
    assert.equal(account?.email_verified_at, null);
    // Only the digest of the token is stored.
    const token = new URL(link).searchParams.get("token")!;
    const [{ n }] = await db.sql<{ n: number }[]>`
      select count(*)::int as n from web_tokens where token_hash = ${token}`;
    assert.equal(n, 0);
  });

  await t.step("unverified, the dashboard is not reachable", async () => {
    const { text } = await browser.get("/account");
    assert.match(text, /Create an account/);
  });

  await t.step("opening the link does not use it; the button does, once", async () => {
    const first = await browser.get(link);
    assert.equal(first.response.status, 200);
    assert.match(first.text, /Verify and sign in/);
    const again = await browser.get(link);
    assert.equal(again.response.status, 200);
    const token = new URL(link).searchParams.get("token")!;
    const used = await browser.post("/account/link", { token, csrf: csrfIn(again.text) });
    assert.equal(used.response.status, 303);
    assert.equal(used.response.headers.get("location"), "/account");
    const session = used.response.headers.getSetCookie().find((c) => c.startsWith("oi_session="));
    assert.match(session ?? "", /; Path=\/account; Max-Age=\d+; HttpOnly; SameSite=Lax$/);
    assert.notEqual((await findAccountByEmail(db.sql, email))?.email_verified_at, null);
    const reused = await browser.post("/account/link", { token, csrf: csrfIn(again.text) });
    assert.equal(reused.response.status, 400);
    assert.match(reused.text, /no longer works/);
    const page = await browser.get(link);
    assert.equal(page.response.status, 400);
  });

  await t.step("the dashboard shows the plan, the usage and the reset date", async () => {
    const { response, text } = await browser.get("/account");
    assert.equal(response.status, 200);
    assert.match(text, /Signed in as <strong>Ada@Example.com<\/strong>/);
    assert.match(text, /Plan: <strong[^>]*>Free<\/strong>, 20 calls a month/);
    assert.match(text, /<strong>0<\/strong> of 20 calls used this month/);
    assert.match(text, /You have no keys yet/);
    assert.match(text, /contact us/);
    const next = new Date();
    const reset = new Date(Date.UTC(next.getUTCFullYear(), next.getUTCMonth() + 1, 1));
    assert.match(text, new RegExp(`datetime="${reset.toISOString().replace(".000Z", "Z")}"`));
  });

  await t.step("the anonymous CSRF token does not work on signed-in forms", async () => {
    const { response } = await browser.post("/account/keys", {
      name: "x",
      csrf: csrfIn((await new Browser(app).get("/account")).text),
    });
    assert.equal(response.status, 403);
  });

  await t.step("creating a key shows it once, with a copy button", async () => {
    const { text } = await browser.get("/account");
    const created = await browser.post("/account/keys", { name: "ci", csrf: csrfIn(text) });
    assert.equal(created.response.status, 200);
    assert.equal(created.response.headers.get("cache-control"), "no-store");
    key = keyIn(created.text);
    assert.match(created.text, /shown only this once/);
    assert.match(created.text, /data-copy-target="new-key"/);
    assert.match(created.text, /<script src="\/assets\/copy.js" defer><\/script>/);
    const later = await browser.get("/account");
    assert.ok(!later.text.includes(key), "the raw key is never shown again");
    assert.ok(later.text.includes(`${key.slice(0, 12)}…`));
    assert.match(later.text, /<td>ci<\/td>/);
  });

  await t.step("the key works on REST and MCP, and the usage shows the charge", async () => {
    const rest = await app.handler(
      new Request(`${app.base}/api/v1/overview`, { headers: { "X-API-Key": key } }),
    );
    assert.equal(rest.status, 200);
    assert.equal(rest.headers.get("x-quota-used"), "1");
    const mcp = await app.handler(
      new Request(`${app.base}/mcp/`, {
        method: "POST",
        headers: {
          "X-API-Key": key,
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      }),
    );
    assert.equal(mcp.status, 200, "the new key works on MCP");
    assert.equal((await mcp.json()).result.tools.length, 16);
    const { text } = await browser.get("/account");
    assert.match(text, /<strong>1<\/strong> of 20 calls used this month/);
  });

  await t.step("revoking the key makes the API answer 403 key_revoked at once", async () => {
    const { text } = await browser.get("/account");
    const id = /name="id" value="(\d+)"/.exec(text)![1];
    const revoked = await browser.post("/account/keys/revoke", { id, csrf: csrfIn(text) });
    assert.equal(revoked.response.status, 303);
    assert.equal(revoked.response.headers.get("location"), "/account?done=revoked");
    const rest = await app.handler(
      new Request(`${app.base}/api/v1/blog`, { headers: { "X-API-Key": key } }),
    );
    assert.equal(rest.status, 403);
    const body = await rest.json();
    assert.equal(body.error, "key_revoked");
    assert.equal(body.revoked_by, "owner");
    const mcp = await app.handler(
      new Request(`${app.base}/mcp/`, {
        method: "POST",
        headers: { "X-API-Key": key, "Content-Type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      }),
    );
    assert.equal(mcp.status, 403);
    assert.equal((await mcp.json()).error.data.error, "key_revoked");
    const after = await browser.get("/account?done=revoked");
    assert.match(after.text, /Revoked by you/);
    assert.match(after.text, /403 key_revoked/);
  });

  await t.step("signing out ends the session", async () => {
    const { text } = await browser.get("/account");
    const out = await browser.post("/account/signout", { csrf: csrfIn(text) });
    assert.equal(out.response.status, 303);
    assert.ok(out.response.headers.getSetCookie().some((c) => /^oi_session=;.*Max-Age=0/.test(c)));
    const [{ n }] = await db.sql<{ n: number }[]>`select count(*)::int as n from web_sessions`;
    assert.equal(n, 0);
    assert.match((await browser.get("/account")).text, /Create an account/);
  });
});

dbTest(
  "account area: sign-in links go only to verified accounts, the answer never tells",
  async (db) => {
    const app = webTestApp(db);
    const browser = new Browser(app);
    await signUp(browser, "verified@example.com");
    const other = new Browser(app);
    const landing = await other.get("/account");
    const csrf = csrfIn(landing.text);

    // An unverified account gets a new verification link instead.
    await other.post("/account/signup", { email: "pending@example.com", csrf });
    const answers: string[] = [];
    for (const email of ["verified@example.com", "pending@example.com", "nobody@example.com"]) {
      const before = app.outbox.length;
      const { response, text } = await other.post("/account/signin", { email, csrf });
      assert.equal(response.status, 200);
      answers.push(text.replace(email, "EMAIL"));
      const sent = app.outbox.slice(before);
      if (email === "nobody@example.com") assert.equal(sent.length, 0);
      else assert.equal(sent.length, 1);
      if (email === "verified@example.com") assert.match(sent[0].subject, /sign-in link/);
      if (email === "pending@example.com") assert.match(sent[0].subject, /Verify/);
    }
    assert.equal(new Set(answers).size, 1, "the three answers are the same page");
    assert.equal(await findAccountByEmail(db.sql, "nobody@example.com"), undefined);

    // The sign-in link signs in; the earlier verification link of "pending" was replaced.
    const signinLink = linkIn(
      app.outbox.find((m) => m.to === "verified@example.com" && /sign-in/.test(m.subject)),
    );
    const page = await other.get(signinLink);
    const used = await other.post("/account/link", {
      token: new URL(signinLink).searchParams.get("token")!,
      csrf: csrfIn(page.text),
    });
    assert.equal(used.response.status, 303);
    assert.match((await other.get("/account")).text, /Signed in as <strong>verified@example.com/);
    const firstPending = app.outbox.filter((m) => m.to === "pending@example.com")[0];
    assert.equal((await other.get(linkIn(firstPending))).response.status, 400);
  },
);

dbTest("account area: an expired link does not sign in", async (db) => {
  const app = webTestApp(db, { web: { settings: { verifyTtlSeconds: 0 } } });
  const browser = new Browser(app);
  const landing = await browser.get("/account");
  await browser.post("/account/signup", { email: "late@example.com", csrf: csrfIn(landing.text) });
  const link = linkIn(app.outbox[0]);
  assert.equal((await browser.get(link)).response.status, 400);
  const used = await browser.post("/account/link", {
    token: new URL(link).searchParams.get("token")!,
    csrf: csrfIn(landing.text),
  });
  assert.equal(used.response.status, 400);
  assert.equal((await findAccountByEmail(db.sql, "late@example.com"))?.email_verified_at, null);
});

dbTest("account area: mails are rate-limited per address and per IP", async (db) => {
  const app = webTestApp(db, { web: { settings: { mailsPerAddress: 2, mailsPerIp: 3 } } });
  const one = new Browser(app, "198.51.100.1");
  const csrf = csrfIn((await one.get("/account")).text);
  const statuses: number[] = [];
  for (let i = 0; i < 3; i++) {
    statuses.push(
      (await one.post("/account/signup", { email: "a@example.com", csrf })).response.status,
    );
  }
  assert.deepEqual(statuses, [200, 200, 429]);
  assert.equal(app.outbox.length, 2);
  // Another address from the same IP: the IP allows one more hit (3), then refuses.
  assert.equal(
    (await one.post("/account/signup", { email: "b@example.com", csrf })).response.status,
    429,
  );
  // The same first address from another IP: still over its own limit.
  const two = new Browser(app, "198.51.100.2");
  const csrf2 = csrfIn((await two.get("/account")).text);
  assert.equal(
    (await two.post("/account/signin", { email: "A@example.com", csrf: csrf2 })).response.status,
    429,
  );
  assert.equal(
    (await two.post("/account/signup", { email: "c@example.com", csrf: csrf2 })).response.status,
    200,
  );
  assert.equal(app.outbox.length, 3);
});

dbTest(
  "account area: the 5-key limit is explained, and other accounts' keys are out of reach",
  async (db) => {
    const app = webTestApp(db);
    const owner = new Browser(app);
    await signUp(owner, "owner@example.com");
    for (let i = 1; i <= 5; i++) {
      const { text } = await owner.get("/account");
      const created = await owner.post("/account/keys", { name: `k${i}`, csrf: csrfIn(text) });
      assert.equal(created.response.status, 200);
    }
    const full = await owner.get("/account");
    assert.match(full.text, /You hold 5 active keys, the most an\s+account may hold/);
    assert.doesNotMatch(full.text, /action="\/account\/keys"/);
    const sixth = await owner.post("/account/keys", { name: "k6", csrf: csrfIn(full.text) });
    assert.equal(sixth.response.status, 409);
    assert.match(sixth.text, /already holds 5 keys/);

    const intruder = new Browser(app);
    await signUp(intruder, "intruder@example.com");
    const ownerKeyId = /name="id" value="(\d+)"/.exec(full.text)![1];
    const { text } = await intruder.get("/account");
    const tried = await intruder.post("/account/keys/revoke", {
      id: ownerKeyId,
      csrf: csrfIn(text),
    });
    assert.equal(tried.response.status, 404);
    const [row] = await db.sql<{ revoked_at: Date | null }[]>`
    select revoked_at from api_keys where id = ${Number(ownerKeyId)}`;
    assert.equal(row.revoked_at, null);
  },
);

dbTest("account area: cookies are Secure away from localhost", async (db) => {
  const app = webTestApp(db, { base: "https://oppintel.example" });
  const browser = new Browser(app);
  const { response } = await browser.get("/account");
  assert.match(response.headers.getSetCookie()[0], /; Secure$/);
});

dbTest(
  "account area: the landing page, the link page and the dashboard are valid HTML",
  async (db) => {
    const app = webTestApp(db);
    const browser = new Browser(app);
    const validator = new HtmlValidate({ extends: ["html-validate:recommended"] });
    const problems = async (page: string) => {
      const report = await validator.validateString(page);
      return report.results.flatMap((r) =>
        r.messages.map((m) => `${m.line}:${m.column} ${m.ruleId} ${m.message}`)
      );
    };
    const landing = await browser.get("/account");
    assert.deepEqual(await problems(landing.text), []);
    await browser.post("/account/signup", {
      email: "valid@example.com",
      csrf: csrfIn(landing.text),
    });
    const link = linkIn(app.outbox[0]);
    const confirm = await browser.get(link);
    assert.deepEqual(await problems(confirm.text), []);
    await browser.post("/account/link", {
      token: new URL(link).searchParams.get("token")!,
      csrf: csrfIn(confirm.text),
    });
    const dashboard = await browser.get("/account");
    const created = await browser.post("/account/keys", {
      name: "v",
      csrf: csrfIn(dashboard.text),
    });
    assert.match(created.text, /id="new-key"/);
    assert.deepEqual(await problems(created.text), []);
  },
);

dbTest("account area: a form body is read up to 8 KB even without Content-Length", async (db) => {
  const app = webTestApp(db);
  const browser = new Browser(app);
  const landing = await browser.get("/account");
  const csrf = csrfIn(landing.text);
  const streamed = (text: string) => {
    const bytes = new TextEncoder().encode(text);
    // A chunked body: no Content-Length for the server to check first.
    return new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 1024) controller.enqueue(bytes.slice(i, i + 1024));
        controller.close();
      },
    });
  };
  const post = (text: string) =>
    browser.request("/account/signup", {
      method: "POST",
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        "Sec-Fetch-Site": "same-origin",
      },
      body: streamed(text),
    });
  const small = new URLSearchParams({ email: "streamed@example.com", csrf }).toString();
  const ok = await post(small);
  await ok.body?.cancel();
  assert.equal(ok.status, 200);
  assert.equal(app.outbox.length, 1, "a small streamed form is read");

  const huge = `${small}&pad=${"x".repeat(64 * 1024)}`;
  const refused = await post(huge.replace("streamed@", "huge@"));
  await refused.body?.cancel();
  assert.notEqual(refused.status, 200);
  assert.equal(app.outbox.length, 1, "an oversized body is refused before anything is sent");
});
