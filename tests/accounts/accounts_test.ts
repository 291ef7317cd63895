import assert from "node:assert/strict";
import { AccountError } from "../../src/platform/errors.ts";
import {
  createAccount,
  findAccountByEmail,
  setPlan,
  verifyAccount,
} from "../../src/accounts/accounts.ts";
import type { Sql } from "../../src/db/open.ts";
import { dbTest } from "../helpers/db.ts";

async function accountCount(sql: Sql): Promise<number> {
  const [{ n }] = await sql<{ n: number }[]>`select count(*)::int as n from accounts`;
  return n;
}

dbTest("createAccount stores a free unverified account by default", async ({ sql }) => {
  const account = await createAccount(sql, { email: "  Ada@Example.com " });
  assert.equal(typeof account.id, "number");
  assert.equal(account.email, "Ada@Example.com");
  assert.equal(account.plan, "free");
  assert.equal(account.email_verified_at, null);
  assert.match(account.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.deepEqual(await findAccountByEmail(sql, "ada@example.COM"), account);
});

dbTest("createAccount with a plan and verified sets both", async ({ sql }) => {
  const account = await createAccount(sql, { email: "b@x.io", plan: "business", verified: true });
  assert.equal(account.plan, "business");
  assert.ok(account.email_verified_at);
  assert.ok(!Number.isNaN(Date.parse(account.email_verified_at)));
});

dbTest(
  "createAccount refuses a duplicate e-mail in any case and writes nothing",
  async ({ sql }) => {
    await createAccount(sql, { email: "dup@example.com" });
    await assert.rejects(
      createAccount(sql, { email: "DUP@Example.com", plan: "pro" }),
      (e: unknown) => e instanceof AccountError && /already exists/.test(e.message),
    );
    assert.equal(await accountCount(sql), 1);
    assert.equal((await findAccountByEmail(sql, "dup@example.com"))?.plan, "free");
  },
);

dbTest("createAccount refuses a malformed e-mail and an unknown plan", async ({ sql }) => {
  await assert.rejects(createAccount(sql, { email: "not-an-email" }), AccountError);
  await assert.rejects(createAccount(sql, { email: "a b@c" }), AccountError);
  await assert.rejects(
    // deno-lint-ignore no-explicit-any
    createAccount(sql, { email: "a@b.c", plan: "gold" as any }),
    /Unknown plan "gold"/,
  );
  assert.equal(await accountCount(sql), 0);
});

dbTest("findAccountByEmail answers undefined for an unknown e-mail", async ({ sql }) => {
  assert.equal(await findAccountByEmail(sql, "nobody@example.com"), undefined);
});

dbTest("verifyAccount sets email_verified_at once", async ({ sql }) => {
  await createAccount(sql, { email: "v@example.com" });
  const first = await verifyAccount(sql, "V@example.com");
  assert.ok(first.email_verified_at);
  const second = await verifyAccount(sql, "v@example.com");
  assert.equal(second.email_verified_at, first.email_verified_at, "the first instant is kept");
  await assert.rejects(verifyAccount(sql, "ghost@example.com"), /Cannot find account/);
});

dbTest("setPlan changes the plan and refuses unknown accounts and plans", async ({ sql }) => {
  await createAccount(sql, { email: "p@example.com" });
  assert.equal((await setPlan(sql, "P@EXAMPLE.com", "pro")).plan, "pro");
  assert.equal((await findAccountByEmail(sql, "p@example.com"))?.plan, "pro");
  await assert.rejects(setPlan(sql, "ghost@example.com", "pro"), AccountError);
  // deno-lint-ignore no-explicit-any
  await assert.rejects(setPlan(sql, "p@example.com", "gold" as any), AccountError);
  assert.equal((await findAccountByEmail(sql, "p@example.com"))?.plan, "pro");
});
