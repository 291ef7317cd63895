/**
 * The embedded database as the service opens it (openDatabase without DATABASE_URL) survives
 * concurrent transactions beside large statements: PGlite is one backend session behind its
 * socket, so with several client connections one connection's Bind could land between another's
 * Bind and Execute and fail it with `portal "" does not exist`, after which the socket answers
 * nothing more (seen with 10 connections: the test then waited until its bound).
 */
import assert from "node:assert/strict";
import { openDatabase } from "../../src/db/open.ts";
import { readConfig } from "../../src/platform/config.ts";

Deno.test({
  name: "openDatabase (embedded): 300 concurrent transactions and large statements all answer",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const database = await openDatabase(readConfig({ DATA_DIR: "memory://", DB_POOL_MAX: "10" }));
    const { sql } = database;
    try {
      await sql`create table session_probe (id int primary key, v text)`;
      await sql`insert into session_probe values (1, 'a')`;
      const big = "x".repeat(200_000);
      const jobs = Array.from({ length: 300 }, (_, i) =>
        i % 3 === 0
          ? sql.begin(async (tx) => {
            await tx`select * from session_probe where id = 1 for update`;
            await tx`update session_probe set v = ${String(i)} where id = 1`;
          }).then(() => i)
          : sql<{ n: number; i: number }[]>`select length(${big + i}::text) as n, ${i}::int as i`
            .then(([row]) => row.i));
      // A session the socket lost hangs every later statement: a bound wait, so that a regression
      // fails here instead of holding the suite (not a speed assertion).
      let timer: ReturnType<typeof setTimeout> | undefined;
      const hung = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error("the embedded database stopped answering")),
          120_000,
        );
      });
      const results = await Promise.race([Promise.allSettled(jobs), hung])
        .finally(() => clearTimeout(timer));
      const failures = results.filter((r) => r.status === "rejected")
        .map((r) => String((r as PromiseRejectedResult).reason));
      assert.deepEqual(failures.slice(0, 3), []);
      assert.deepEqual(results.map((r) => (r as PromiseFulfilledResult<number>).value), [
        ...Array(300).keys(),
      ]);
    } finally {
      await database.close();
    }
  },
});
