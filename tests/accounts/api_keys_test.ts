import { AccountError } from "../../src/platform/errors.ts";
import assert from "node:assert/strict";
import type { Sql } from "../../src/db/open.ts";
import { hashApiKey, isWellFormedKey } from "../../src/accounts/keys.ts";
import { createAccount } from "../../src/accounts/accounts.ts";
import {
  createApiKey,
  listApiKeys,
  MAX_ACTIVE_KEYS,
  revokeApiKey,
} from "../../src/accounts/api_keys.ts";
import { dbTest } from "../helpers/db.ts";

async function keyCount(sql: Sql): Promise<number> {
  const [{ n }] = await sql<{ n: number }[]>`select count(*)::int as n from api_keys`;
  return n;
}

dbTest("createApiKey returns the raw key once and stores only its digest", async ({ sql }) => {
  await createAccount(sql, { email: "k@example.com", verified: true });
  const created = await createApiKey(sql, { email: "K@example.com", name: "laptop" });
  assert.ok(isWellFormedKey(created.key));
  assert.equal(created.prefix, created.key.slice(0, 12));
  assert.equal(created.name, "laptop");
  assert.ok(!Number.isNaN(Date.parse(created.created_at)));
  const rows = await sql`select * from api_keys`;
  assert.equal(rows.length, 1);
  assert.equal(rows[0].key_hash, await hashApiKey(created.key));
  assert.ok(!JSON.stringify(rows).includes(created.key), "the raw key is not stored");
  const defaulted = await createApiKey(sql, { email: "k@example.com" });
  assert.equal(defaulted.name, "default");
  assert.notEqual(defaulted.key, created.key);
});

dbTest(
  "createApiKey refuses unknown and unverified accounts and writes nothing",
  async ({ sql }) => {
    await assert.rejects(
      createApiKey(sql, { email: "ghost@example.com" }),
      (e: unknown) => e instanceof AccountError && /Cannot find account/.test(e.message),
    );
    await createAccount(sql, { email: "u@example.com" });
    await assert.rejects(
      createApiKey(sql, { email: "u@example.com" }),
      (e: unknown) => e instanceof AccountError && /has not verified/.test(e.message),
    );
    assert.equal(await keyCount(sql), 0);
  },
);

dbTest("createApiKey refuses a sixth active key; a revoked one frees a place", async ({ sql }) => {
  await createAccount(sql, { email: "five@example.com", verified: true });
  const keys = [];
  for (let i = 0; i < MAX_ACTIVE_KEYS; i++) {
    keys.push(await createApiKey(sql, { email: "five@example.com", name: `k${i}` }));
  }
  await assert.rejects(
    createApiKey(sql, { email: "five@example.com" }),
    (e: unknown) => e instanceof AccountError && /already holds 5 keys/.test(e.message),
  );
  assert.equal(await keyCount(sql), 5);
  await revokeApiKey(sql, { id: keys[0].id, by: "owner" });
  await createApiKey(sql, { email: "five@example.com" });
  assert.equal(await keyCount(sql), 6);
  await assert.rejects(createApiKey(sql, { email: "five@example.com" }), AccountError);
  assert.equal(await keyCount(sql), 6);
});

dbTest("createApiKey keeps the 5-key limit under 10 concurrent creations", async ({ sql }) => {
  await createAccount(sql, { email: "race@example.com", verified: true });
  await createAccount(sql, { email: "other@example.com", verified: true });
  const results = await Promise.allSettled(
    Array.from(
      { length: 10 },
      (_, i) => createApiKey(sql, { email: "race@example.com", name: `r${i}` }),
    ),
  );
  const made = results.filter((r) => r.status === "fulfilled");
  const refused = results.filter((r) => r.status === "rejected");
  assert.equal(made.length, 5);
  for (const r of refused) assert.ok(r.reason instanceof AccountError, String(r.reason));
  assert.equal(await keyCount(sql), 5);
  // Another account's limit is its own.
  await createApiKey(sql, { email: "other@example.com" });
  assert.equal(await keyCount(sql), 6);
}, { max: 10 });

dbTest("listApiKeys lists keys without the raw key or its digest", async ({ sql }) => {
  await createAccount(sql, { email: "l@example.com", verified: true });
  await createAccount(sql, { email: "m@example.com", verified: true });
  const a = await createApiKey(sql, { email: "l@example.com", name: "a" });
  const b = await createApiKey(sql, { email: "l@example.com", name: "b" });
  await createApiKey(sql, { email: "m@example.com", name: "not mine" });
  await revokeApiKey(sql, { id: a.id, by: "admin" });
  const items = await listApiKeys(sql, "L@example.com");
  assert.deepEqual(items.map((k) => k.name), ["a", "b"]);
  assert.deepEqual(Object.keys(items[0]).sort(), [
    "created_at",
    "id",
    "last_used_at",
    "name",
    "prefix",
    "revoked_at",
    "revoked_by",
  ]);
  assert.equal(items[0].revoked_by, "admin");
  assert.ok(items[0].revoked_at);
  assert.equal(items[1].revoked_at, null);
  assert.equal(items[1].prefix, b.prefix);
  const text = JSON.stringify(items);
  assert.ok(!text.includes(a.key) && !text.includes(b.key));
  assert.ok(!text.includes(await hashApiKey(b.key)));
  assert.deepEqual(await listApiKeys(sql, "m@example.com").then((l) => l.length), 1);
  await assert.rejects(listApiKeys(sql, "ghost@example.com"), AccountError);
});

dbTest("revokeApiKey records who revoked; refuses unknown and revoked keys", async ({ sql }) => {
  await createAccount(sql, { email: "r@example.com", verified: true });
  const key = await createApiKey(sql, { email: "r@example.com" });
  const revoked = await revokeApiKey(sql, { id: key.id, by: "owner" });
  assert.equal(revoked.id, key.id);
  assert.equal(revoked.revoked_by, "owner");
  assert.ok(revoked.revoked_at);
  await assert.rejects(
    revokeApiKey(sql, { id: key.id, by: "admin" }),
    (e: unknown) => e instanceof AccountError && /already revoked/.test(e.message),
  );
  const [row] = await sql`select revoked_by, revoked_at from api_keys where id = ${key.id}`;
  assert.equal(row.revoked_by, "owner", "a second revoke changes nothing");
  assert.equal(row.revoked_at.toISOString(), revoked.revoked_at);
  await assert.rejects(
    revokeApiKey(sql, { id: key.id + 1000, by: "admin" }),
    /Cannot find API key/,
  );
  await assert.rejects(revokeApiKey(sql, { id: 99_999_999_999, by: "admin" }), /Cannot find/);
});
