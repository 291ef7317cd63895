/**
 * readConfig's DATABASE_READ_URL: one URL or several, comma-separated, only beside DATABASE_URL;
 * a refusal never echoes a URL (it carries a password).
 */
import assert from "node:assert/strict";
import { readConfig } from "../../src/platform/config.ts";

const PRIMARY = "postgres://svc:secret@db.example.com:5432/oppintel";

function refusal(env: Record<string, string>): string {
  try {
    readConfig({ DATA_DIR: "memory://", ...env });
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`Accepted ${JSON.stringify(env)}`);
}

Deno.test("readConfig: DATABASE_READ_URL lists the replicas, none when unset or blank", () => {
  assert.deepEqual(readConfig({ DATABASE_URL: PRIMARY }).databaseReadUrls, []);
  assert.deepEqual(
    readConfig({ DATABASE_URL: PRIMARY, DATABASE_READ_URL: " " }).databaseReadUrls,
    [],
  );
  const two = readConfig({
    DATABASE_URL: PRIMARY,
    DATABASE_READ_URL: " postgres://a:p%2Cw@r1:5432/oppintel , postgresql://r2/oppintel,",
  });
  assert.deepEqual(two.databaseReadUrls, [
    "postgres://a:p%2Cw@r1:5432/oppintel",
    "postgresql://r2/oppintel",
  ]);
  assert.equal(two.db.readMaxLagMs, 10_000);
  assert.equal(
    readConfig({ DATABASE_URL: PRIMARY, DB_READ_MAX_LAG_MS: "0" }).db.readMaxLagMs,
    0,
  );
});

Deno.test("readConfig: a DATABASE_READ_URL without DATABASE_URL or not PostgreSQL is refused", () => {
  assert.match(
    refusal({ DATABASE_READ_URL: "postgres://r1/oppintel" }),
    /DATABASE_READ_URL: needs DATABASE_URL/,
  );
  const bad = refusal({ DATABASE_URL: PRIMARY, DATABASE_READ_URL: "mysql://u:hunter2@r1/db" });
  assert.match(bad, /DATABASE_READ_URL: each URL must start with postgres:\/\//);
  assert.doesNotMatch(bad, /hunter2/);
  assert.match(
    refusal({ DATABASE_URL: PRIMARY, DB_READ_MAX_LAG_MS: "soon" }),
    /DB_READ_MAX_LAG_MS/,
  );
});
