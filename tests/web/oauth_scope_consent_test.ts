/**
 * How the `watches` scope is granted and kept (src/accounts/scopes.ts,
 * src/web/account/oauth_consent.ts, src/oauth/flow.ts): asked for by the app AND ticked by the
 * person on the consent page, stored on the grant, answered as `scope` by the token endpoint,
 * kept or narrowed (never widened) by a refresh, and shown under Connected apps.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { HtmlValidate } from "html-validate";
import { dbTest, PG_ADMIN_URL } from "../helpers/db.ts";
import { signUp, webTestApp } from "../helpers/web.ts";
import {
  authorize,
  authorizeParams,
  Browser,
  connectApp,
  pkcePair,
  REDIRECT,
  registerClient,
  tokenRequest,
} from "../helpers/oauth.ts";
import { migrate, readMigrations } from "../../src/db/migrate.ts";
import { startEmbedded } from "../../src/db/embedded.ts";

const BOX = /<input type="checkbox" name="grant_watches" value="yes"[^>]*>/;

dbTest("OAuth consent: watches is granted only when asked for and ticked", async (db, t) => {
  const app = webTestApp(db);
  const browser = new Browser(app);
  await signUp(browser, "consent-scope@example.com");
  const clientId = await registerClient(app, "Scoped app");
  const { challenge, verifier } = await pkcePair();

  const grantScope = async (scope: string | undefined, tick: boolean) => {
    const params = authorizeParams(clientId, challenge, scope === undefined ? {} : { scope });
    if (scope === undefined) params.delete("scope");
    const back = await authorize(browser, params, "approve", tick ? { grant_watches: "yes" } : {});
    const code = back.searchParams.get("code")!;
    const [grant] = await db.sql<{ scope: string }[]>`
      select g.scope from oauth_grants g order by g.id desc limit 1`;
    return { code, scope: grant.scope };
  };

  await t.step("the consent page shows the box only when watches is asked for", async () => {
    const page = async (scope: string) =>
      (await browser.get(`/account/authorize?${authorizeParams(clientId, challenge, { scope })}`))
        .text;
    const plain = await page("catalog");
    assert.doesNotMatch(plain, /grant_watches/);
    assert.match(plain, /read the catalogue and your usage/);
    assert.match(plain, /nor your watches\./);
    const asking = await page("catalog watches");
    const box = BOX.exec(asking);
    assert.ok(box, "a grant_watches box");
    assert.doesNotMatch(box[0], /checked/, "unticked by default");
    assert.match(asking, /manage your watches/);
    const report = await new HtmlValidate({ extends: ["html-validate:recommended"] })
      .validateString(asking);
    assert.deepEqual(report.results.flatMap((r) => r.messages.map((m) => m.message)), []);
    // Unknown values are ignored: a request of only other servers' words asks for catalog.
    assert.doesNotMatch(await page("mcp openid offline_access"), /grant_watches/);
    assert.match(await page("openid watches"), BOX);
  });

  await t.step("asked for and ticked: catalog watches", async () => {
    assert.equal((await grantScope("catalog watches", true)).scope, "catalog watches");
  });
  await t.step("asked for, left unticked: catalog", async () => {
    assert.equal((await grantScope("watches", false)).scope, "catalog");
  });
  await t.step("ticked (a forged form field) but not asked for: catalog", async () => {
    assert.equal((await grantScope("catalog", true)).scope, "catalog");
    assert.equal((await grantScope(undefined, true)).scope, "catalog");
    assert.equal((await grantScope("mcp", true)).scope, "catalog");
  });

  await t.step("the token response carries the granted scope", async () => {
    const { code } = await grantScope("catalog watches", true);
    const res = await tokenRequest(app, {
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      client_id: clientId,
      redirect_uri: REDIRECT,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.scope, "catalog watches");
  });
});

dbTest("OAuth refresh: keeps the scope, may narrow it, never widens it", async (db, t) => {
  const app = webTestApp(db);
  const browser = new Browser(app);
  await signUp(browser, "refresh-scope@example.com");
  const full = await connectApp(app, browser, "Full", {
    scope: "catalog watches",
    grantWatches: true,
  });
  const narrow = await connectApp(app, browser, "Narrow", { scope: "catalog" });
  const refresh = (app_: typeof full, token: string, scope?: string) =>
    tokenRequest(app, {
      grant_type: "refresh_token",
      refresh_token: token,
      client_id: app_.clientId,
      ...(scope === undefined ? {} : { scope }),
    });
  const watchesStatus = async (access: string) => {
    const res = await app.handler(
      new Request(`${app.base}/api/v1/watches`, { headers: { Authorization: `Bearer ${access}` } }),
    );
    await res.body?.cancel();
    return res.status;
  };

  let fullRefresh = full.refresh;
  await t.step("without scope: the grant's scope", async () => {
    const res = await refresh(full, fullRefresh);
    assert.equal(res.status, 200);
    assert.equal(res.body.scope, "catalog watches");
    assert.equal(await watchesStatus(res.body.access_token as string), 200);
    fullRefresh = res.body.refresh_token as string;
  });
  await t.step("scope=catalog narrows the new token", async () => {
    const res = await refresh(full, fullRefresh, "catalog");
    assert.equal(res.status, 200);
    assert.equal(res.body.scope, "catalog");
    assert.equal(await watchesStatus(res.body.access_token as string), 403);
    // The grant keeps what the person granted: the next refresh may ask for it again.
    const again = await refresh(full, res.body.refresh_token as string);
    assert.equal(again.body.scope, "catalog watches");
  });
  await t.step("asking for watches on a catalog grant: invalid_scope, nothing used", async () => {
    for (const scope of ["watches", "catalog watches"]) {
      const res = await refresh(narrow, narrow.refresh, scope);
      assert.equal(res.status, 400, scope);
      assert.equal(res.body.error, "invalid_scope", scope);
    }
    // The refresh token was not used up by the refusals.
    const ok = await refresh(narrow, narrow.refresh, "mcp");
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.scope, "catalog");
  });

  await t.step("Connected apps says what each app may do", async () => {
    const { text } = await browser.get("/account");
    const row = (name: string) =>
      new RegExp(`<td>(?:<bdi>)?${name}(?:</bdi>)?</td>\\s*<td>([^<]+)</td>`).exec(text)?.[1];
    assert.equal(row("Full"), "Read the catalogue and your usage, and manage your watches");
    assert.equal(row("Narrow"), "Read the catalogue and your usage");
  });
});

/** A fresh empty database of `engine`, for a migration test; returns its pool and a disposer. */
async function emptyDatabase(engine: string) {
  if (engine === "embedded") {
    const server = await startEmbedded("memory://");
    const sql = postgres(`postgres://postgres@${server.host}:${server.port}/postgres`, {
      max: 1,
      onnotice: () => {},
    });
    return { sql, dispose: async () => (await sql.end(), await server.close()) };
  }
  const name = `oi_scope_${crypto.randomUUID().slice(0, 8)}`;
  const admin = postgres(PG_ADMIN_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  const sql = postgres(url.href, { max: 1, onnotice: () => {} });
  return {
    sql,
    dispose: async () => {
      await sql.end();
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

dbTest("sql/0011: grants and tokens made before it hold catalog only", async (db) => {
  const all = await readMigrations();
  const before = all.filter((m) => m.version < 11);
  assert.equal(before.length, 10);
  const { sql, dispose } = await emptyDatabase(db.engine);
  try {
    await migrate(sql, before);
    await sql`insert into accounts (email, plan) values ('old@example.com', 'free')`;
    const [grant] = await sql<{ id: number }[]>`
      insert into oauth_grants (account_id, client_id, client_name, redirect_uri, resource, scope)
      select id, 'c', 'Old app', 'https://app.example/cb', 'https://x/mcp/', 'mcp' from accounts
      returning id`;
    await sql`insert into oauth_tokens (token_hash, grant_id, kind, expires_at)
      values (${"a".repeat(64)}, ${grant.id}, 'access', now() + interval '1 hour')`;
    // Up to 0011 only: later migrations are not this test's subject.
    assert.deepEqual(await migrate(sql, all.filter((m) => m.version <= 11)), [11]);
    const [row] = await sql<{ grant: string; token: string }[]>`
      select g.scope as grant, t.scope as token
      from oauth_grants g join oauth_tokens t on t.grant_id = g.id`;
    assert.deepEqual({ ...row }, { grant: "catalog", token: "catalog" });
    await assert.rejects(sql`update oauth_grants set scope = 'watches'`);
  } finally {
    await dispose();
  }
});
