import assert from "node:assert/strict";
import { migrate, readMigrations } from "../../src/db/migrate.ts";
import { dbTest } from "../helpers/db.ts";

dbTest("migrate applies every migration once and records it", async ({ sql }) => {
  const files = await readMigrations();
  const rows = await sql<{ version: number }[]>`select version from schema_migrations order by 1`;
  assert.deepEqual(rows.map((r) => r.version), files.map((f) => f.version));
  assert.deepEqual(await migrate(sql), [], "a second run applies nothing");
  const [{ n }] = await sql<{ n: number }[]>`select count(*)::int as n from categories`;
  assert.equal(n, 0);
});

dbTest("each test owns a database of its own", async ({ sql }) => {
  await sql`insert into categories (slug, name) values ('mine', 'Mine')`;
  const [{ n }] = await sql<{ n: number }[]>`select count(*)::int as n from categories`;
  assert.equal(n, 1, "no other test wrote here");
});

dbTest("a second test starts empty too", async ({ sql }) => {
  await sql`insert into categories (slug, name) values ('mine', 'Mine')`;
  const [{ n }] = await sql<{ n: number }[]>`select count(*)::int as n from categories`;
  assert.equal(n, 1, "no other test wrote here");
});
