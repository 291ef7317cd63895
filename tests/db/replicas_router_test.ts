/**
 * createReadRouter with stand-in pools (no server): what a real standby cannot easily be made to
 * do in tests/db/replicas_test.ts. A replica that never answers is abandoned at the read deadline
 * for the primary; a domain error of the read (not found) is the answer, not a fault.
 */
import assert from "node:assert/strict";
import { createReadRouter } from "../../src/db/replicas.ts";
import type { Sql } from "../../src/db/open.ts";
import { NotFoundError } from "../../src/platform/errors.ts";

/** A pool that answers the version check with `version`, or never answers at all. */
function standIn(label: string, answer: { version: number } | "hang"): Sql {
  const sql = (strings: TemplateStringsArray) => {
    if (answer === "hang") return new Promise(() => {});
    const text = strings.join("?");
    if (text.includes("pg_current_wal_lsn")) return Promise.resolve([{ lsn: "0/0" }]);
    if (text.includes("pg_is_in_recovery")) {
      return Promise.resolve([{ lag_s: 0, bytes: 0, paused: false }]);
    }
    return Promise.resolve([{ version: answer.version }]);
  };
  return Object.assign(sql, { label, end: () => Promise.resolve() }) as unknown as Sql;
}

/** Which stand-in a read was given. */
const labelOf = (sql: Sql) => Promise.resolve((sql as unknown as { label: string }).label);

function router(replica: Sql, log: Record<string, unknown>[]) {
  return createReadRouter({
    primary: standIn("primary", { version: 7 }),
    replicas: [{ sql: replica, name: "replica-host:5432/oppintel" }],
    maxLagMs: 10_000,
    readDeadlineMs: 200,
    log: (entry) => log.push(entry),
  });
}

Deno.test("createReadRouter: a caught-up replica reads, a hung one is left for the primary", async (t) => {
  await t.step("a replica at the version asked takes the read", async () => {
    const log: Record<string, unknown>[] = [];
    const reads = router(standIn("replica", { version: 7 }), log);
    const on = await reads.run(
      7,
      labelOf,
    );
    assert.equal(on, "replica");
    assert.equal(
      await reads.run(8, labelOf),
      "primary",
    );
    assert.deepEqual(reads.primaryReads(), { none_ready: 1, failed: 0 });
    assert.deepEqual(log, []);
  });

  await t.step("a replica that never answers: the primary answers after the deadline", async () => {
    const log: Record<string, unknown>[] = [];
    const reads = router(standIn("replica", "hang"), log);
    const started = performance.now();
    const on = await reads.run(
      7,
      labelOf,
    );
    assert.equal(on, "primary");
    assert.ok(performance.now() - started < 2_000);
    assert.equal(log[0]?.event, "replica_skipped");
    assert.match(String(log[0]?.reason), /no answer within 200 ms/);
    assert.equal(log[0]?.replica, "replica-host:5432/oppintel");
    const [status] = await reads.check();
    assert.equal(status.state, "down");
  });

  await t.step("a read that hangs on the replica is done again on the primary", async () => {
    const log: Record<string, unknown>[] = [];
    const replica = standIn("replica", { version: 7 });
    const reads = router(replica, log);
    const answer = await reads.run(
      7,
      (sql) =>
        sql === replica ? new Promise<string>(() => {}) : Promise.resolve("from the primary"),
    );
    assert.equal(answer, "from the primary");
    assert.deepEqual(reads.primaryReads(), { none_ready: 0, failed: 1 });
    assert.equal(log.filter((e) => e.event === "replica_skipped").length, 1);
  });

  await t.step("a not-found from the replica is the answer, not a fault", async () => {
    const log: Record<string, unknown>[] = [];
    const reads = router(standIn("replica", { version: 7 }), log);
    let ran = 0;
    await assert.rejects(
      reads.run(7, () => {
        ran++;
        return Promise.reject(new NotFoundError("Cannot find opportunity 9"));
      }),
      NotFoundError,
    );
    assert.equal(ran, 1);
    assert.deepEqual(log, []);
  });
});
