/**
 * src/catalog/cursor.ts: a cursor is signed with the first secret and accepted under any secret
 * of the list (rotation); each kind of key holds only the values its column and domain allow
 * (the sweep in tests/rest/sweep_cursor_test.ts sends them over REST and MCP); the secret kept in
 * the database is made once and is the same for every connection; CURSOR_SECRET is read as a
 * list.
 */
import assert from "node:assert/strict";
import {
  checkKeys,
  decodeCursor,
  encodeCursor,
  type KeyKind,
  storedCursorSecret,
  useCursorSecrets,
} from "../../src/catalog/cursor.ts";
import { readConfig } from "../../src/platform/config.ts";
import { InvalidCursorError } from "../../src/platform/errors.ts";
import { dbTest } from "../helpers/db.ts";

const NEW = "cursor-test-new-secret-0123456789abcdef";
const OLD = "cursor-test-old-secret-0123456789abcdef";

function refusal(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    if (error instanceof InvalidCursorError) return error.reason;
    throw error;
  }
}

Deno.test("a cursor is accepted under any listed secret, and refused once its secret is gone", () => {
  useCursorSecrets([OLD]);
  const minted = encodeCursor("scope", [50, "1777000000000000", 7]);
  const read = () => decodeCursor(minted, "scope", ["score", "us", "id"]);
  useCursorSecrets([NEW, OLD]);
  assert.deepEqual(read(), [50, "1777000000000000", 7], "the old secret still verifies");
  const renewed = encodeCursor("scope", [50, "1777000000000000", 7]);
  assert.notEqual(renewed, minted, "the first secret signs");
  useCursorSecrets([NEW]);
  assert.equal(refusal(read), "malformed", "dropped from the list: refused");
  assert.deepEqual(decodeCursor(renewed, "scope", ["score", "us", "id"]).length, 3);
  assert.equal(refusal(() => decodeCursor(renewed, "other", ["score", "us", "id"])), "other_list");
  assert.throws(() => useCursorSecrets(["short"]), /at least 32/);
  assert.throws(() => useCursorSecrets([]), /at least 32/);
});

Deno.test("checkKeys: each kind holds only its column's and domain's values", async (t) => {
  const cases: [KeyKind, unknown[], unknown[]][] = [
    ["score", [0, 50, 100], [-1, 101, 1.5, -0, NaN, Infinity, "50", null]],
    ["sub", [0, 5, 10], [-1, 11, -10, 1.5, -0, NaN, Infinity, "5", null]],
    ["id", [1, 2 ** 31 - 1], [0, -1, 2 ** 31, 1.5, -0, 1e308, "1"]],
    ["at", [1, 10_000], [0, 10_001, 2 ** 31, 1.5, -0, "1"]],
    ["rank", [0, 1e-37, 0.0607927, 1.5, 1e6], [-0, -1e-9, 1e-50, 1e6 + 1, NaN, Infinity, "0"]],
    [
      "us",
      ["0", "1777000000000000", "-1", "99999999999999999", "-99999999999999999"],
      ["", "-0", "007", "1.5", "1e3", "100000000000000000", " 1", "a\u0000b", 1777000000000000],
    ],
    ["slug", ["ci-analysis", "a", "a".repeat(200)], [
      "",
      "A",
      "a--b",
      "a b",
      "a\u0000b",
      "a".repeat(201),
      5,
    ]],
  ];
  for (const [kind, fits, misfits] of cases) {
    await t.step(kind, () => {
      for (const key of fits) assert.deepEqual(checkKeys([key], [kind]), [key], String(key));
      for (const key of misfits) {
        assert.equal(refusal(() => checkKeys([key], [kind])), "malformed", String(key));
      }
    });
  }
  assert.equal(refusal(() => checkKeys([1, 2], ["id"])), "malformed", "one key too many");
  assert.equal(refusal(() => checkKeys([], ["id"])), "malformed", "one key too few");
});

dbTest("storedCursorSecret: made once, the same for every connection", async (db) => {
  const first = await storedCursorSecret(db.sql);
  assert.ok(first.length >= 32);
  const again = await Promise.all([storedCursorSecret(db.sql), storedCursorSecret(db.sql)]);
  assert.deepEqual(again, [first, first]);
  await db.sql`delete from service_secrets where name = 'cursor'`;
  const rotated = await storedCursorSecret(db.sql);
  assert.notEqual(rotated, first, "deleting the row makes a new one");
});

Deno.test("readConfig: CURSOR_SECRET is a list of secrets of 32 characters or more", () => {
  const read = (value?: string) => readConfig({ DATA_DIR: "memory://", CURSOR_SECRET: value });
  assert.equal(read().cursorSecrets, undefined, "unset: the database's secret");
  assert.equal(read(" , ").cursorSecrets, undefined, "empty: the same");
  assert.deepEqual(read(`${NEW}, ${OLD}`).cursorSecrets, [NEW, OLD], "in order, trimmed");
  assert.throws(() => read(`${NEW},short`), /CURSOR_SECRET: each secret must be at least 32/);
});
