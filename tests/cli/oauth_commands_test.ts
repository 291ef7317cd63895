/** `admin oauth list` and `admin oauth revoke`: the operator's view of connected apps. */
import assert from "node:assert/strict";
import { runAdmin } from "../../src/cli/admin.ts";
import type { Database } from "../../src/db/open.ts";
import { registerClient } from "../../src/oauth/clients.ts";
import { approveGrant, exchangeCode } from "../../src/oauth/flow.ts";
import type { Scope } from "../../src/accounts/scopes.ts";
import { createAccount } from "../../src/accounts/accounts.ts";
import { dbTest } from "../helpers/db.ts";
import { pkcePair } from "../helpers/oauth.ts";
import { testApp } from "../helpers/app.ts";

async function admin(database: Database, ...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runAdmin(args, {
    database,
    env: { DATABASE_URL: "postgres://nobody@127.0.0.1:1/none" },
    stdout: (s) => out.push(s),
    stderr: (s) => err.push(s),
  });
  return { code, stdout: out.join("\n"), stderr: err.join("\n") };
}

dbTest("admin oauth list and revoke: grants by account; a revoke stops the token", async (db) => {
  const account = await createAccount(db.sql, { email: "App@Example.com", verified: true });
  const redirect = "http://127.0.0.1:9/cb";
  await registerClient(db.sql, "oi_client_cli", {
    clientName: "CLI Client",
    clientUri: null,
    redirectUris: [redirect],
    grantTypes: ["authorization_code", "refresh_token"],
    responseTypes: ["code"],
  });
  const { verifier, challenge } = await pkcePair();
  const approve = (scopes: Scope[] = ["catalog"]) =>
    approveGrant(db.sql, {
      accountId: account.id,
      clientId: "oi_client_cli",
      clientName: "CLI Client",
      redirectUri: redirect,
      resource: "https://oppintel.example/mcp/",
      codeChallenge: challenge,
      scopes,
    });
  const code = await approve(["catalog", "watches"]);
  const tokens = await exchangeCode(db.sql, { clientId: "oi_client_cli", code, verifier });

  const listed = await admin(db.database, "oauth", "list", "--email", "app@example.com");
  assert.equal(listed.code, 0, listed.stderr);
  const { items } = JSON.parse(listed.stdout);
  assert.equal(items.length, 1);
  assert.equal(items[0].client_name, "CLI Client");
  assert.equal(items[0].email, "App@Example.com");
  assert.equal(items[0].revoked_at, null);
  assert.equal(items[0].scope, "catalog watches", "what the person granted");
  assert.ok(!listed.stdout.includes(tokens.access_token));
  assert.ok(!listed.stdout.includes(tokens.refresh_token));
  const none = await admin(db.database, "oauth", "list", "--email", "other@example.com");
  assert.deepEqual(JSON.parse(none.stdout).items, []);

  const app = testApp(db);
  const call = () =>
    app.handler(
      new Request("http://oppintel.test/api/v1/categories", {
        headers: { Authorization: `Bearer ${tokens.access_token}` },
      }),
    );
  const before = await call();
  assert.equal(before.status, 200);
  await before.body?.cancel();

  const revoked = await admin(db.database, "oauth", "revoke", "--id", String(items[0].id));
  assert.equal(revoked.code, 0, revoked.stderr);
  assert.equal(JSON.parse(revoked.stdout).revoked_by, "admin");
  const after = await call();
  assert.equal(after.status, 401);
  assert.equal((await after.json()).error, "invalid_token");

  const again = await admin(db.database, "oauth", "revoke", "--id", String(items[0].id));
  assert.equal(again.code, 1);
  assert.match(again.stderr, /Cannot find a live grant/);
  const live = await admin(db.database, "oauth", "list", "--live");
  assert.deepEqual(JSON.parse(live.stdout).items, []);
  const bad = await admin(db.database, "oauth", "revoke", "--id", "x");
  assert.equal(bad.code, 2);

  // A grant approved but never exchanged for tokens is not listed, yet its revoke prints it.
  assert.ok(await approve());
  const [pending] = await db.sql<{ id: number }[]>`
    select id from oauth_grants where revoked_at is null`;
  const shown = await admin(db.database, "oauth", "revoke", "--id", String(pending.id));
  assert.equal(shown.code, 0, shown.stderr);
  const grant = JSON.parse(shown.stdout);
  assert.equal(grant.id, pending.id);
  assert.equal(grant.revoked_by, "admin");
  assert.equal(grant.scope, "catalog");
});
