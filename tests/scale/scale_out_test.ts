/**
 * Scale-out: two instances of the service as separate processes on one PostgreSQL database
 * agree on everything that matters, because all of it lives in the database: the quota counter,
 * the key state, the data version that keys every in-process cache, and the secret that signs
 * list cursors.
 */
import assert from "node:assert/strict";
import { importLines } from "../../src/ingest/import.ts";
import { ENGINES, withTestDb } from "../helpers/db.ts";
import { FIXTURE_LINES, loadFixture, makeKey, revokeKey, setUsed, usedOf } from "../helpers/app.ts";
import { getJson, type Instance, startInstance, stopAll } from "../helpers/instances.ts";

const OLD_TITLE = "Retry-aware CI dashboard for flaky tests";
const NEW_TITLE = "Retry-aware CI dashboard for flaky tests, now with owners";

/** The fixture with opp-1's title changed. */
function changedFixture(): string[] {
  return FIXTURE_LINES.map((line) => {
    const record = JSON.parse(line);
    if (record.external_id === "opp-1") record.title = NEW_TITLE;
    return JSON.stringify(record);
  });
}

Deno.test({
  name: "two instances on one PostgreSQL share quota, key state and data version",
  ignore: !ENGINES.includes("postgres"),
  sanitizeResources: false,
  sanitizeOps: false,
  fn: (t) =>
    withTestDb("postgres", async (db) => {
      const ids = await loadFixture(db.sql);
      const path = `/api/v1/opportunities/${ids["opp-1"]}`;
      let instances: Instance[] = [];
      try {
        instances = await Promise.all([
          startInstance("a", db.url),
          startInstance("b", db.url),
        ]);
        const [a, b] = instances;

        await t.step(
          "1,100 concurrent charged calls over both: exactly 1,000 succeed",
          async () => {
            const { key, accountId } = await makeKey(db.sql, "pro");
            await setUsed(db.sql, accountId, 0);
            // 1,100 different calls: the same call again would be a repeat, free (issue 49).
            const list = (i: number) =>
              `/api/v1/opportunities?min_score=${i % 100}&page_size=${1 + Math.floor(i / 100)}`;
            const results = await Promise.all(
              Array.from({ length: 1100 }, (_, i) => getJson(instances[i % 2].base, list(i), key)),
            );
            const count = (status: number) => results.filter((r) => r.status === status).length;
            assert.equal(count(200), 1000);
            assert.equal(count(429), 100);
            assert.ok(
              results.filter((r) => r.status === 429).every((r) =>
                r.body.error === "quota_exceeded"
              ),
            );
            // Both instances charged calls, so the limit held across processes.
            for (const instance of [a, b]) {
              const mine = results.filter((r, i) =>
                instances[i % 2] === instance && r.status === 200
              );
              assert.ok(mine.length > 0, `instance ${instance.name} answered 200s`);
            }
            assert.equal(await usedOf(db.sql, accountId), 1000);
          },
        );

        await t.step("a revoke takes effect on the next call on both instances", async () => {
          const { key, keyId } = await makeKey(db.sql, "pro");
          for (const instance of instances) {
            assert.equal((await getJson(instance.base, path, key)).status, 200);
          }
          await revokeKey(db.sql, keyId);
          for (const instance of instances) {
            const { status, body, contentType } = await getJson(instance.base, path, key);
            assert.equal(status, 403, `instance ${instance.name}`);
            assert.match(contentType, /^application\/json/);
            assert.equal(body.error, "key_revoked");
          }
        });

        await t.step("a cursor made by one instance continues on the other", async () => {
          // No CURSOR_SECRET: both sign with the secret kept in their database.
          const { key } = await makeKey(db.sql, "pro");
          const list = "/api/v1/opportunities?online_only=false&page_size=2";
          const first = await getJson(a.base, list, key);
          assert.equal(first.status, 200);
          const cursor = encodeURIComponent(first.body.next_cursor as string);
          const onA = await getJson(a.base, `${list}&cursor=${cursor}`, key);
          const onB = await getJson(b.base, `${list}&cursor=${cursor}`, key);
          assert.equal(onB.status, 200, JSON.stringify(onB.body));
          const ids = (body: Record<string, unknown>) =>
            (body.items as { id: number }[]).map((item) => item.id);
          assert.deepEqual(ids(onB.body), ids(onA.body));
          assert.equal(onB.body.next_cursor, onA.body.next_cursor, "both sign alike");
        });

        await t.step("an import under load: no failure, and no stale answer after it", async () => {
          const { key } = await makeKey(db.sql, "business");
          // Both caches hold the old answer before the import.
          for (const instance of instances) {
            const { status, body } = await getJson(instance.base, path, key);
            assert.equal(status, 200);
            assert.equal(body.title, OLD_TITLE);
          }
          interface Seen {
            instance: string;
            afterImport: boolean;
            status: number;
            title: unknown;
          }
          const seen: Seen[] = [];
          let imported = false;
          let stop = false;
          const postImport = () => seen.filter((s) => s.afterImport).length;
          // Three readers per instance, each sending its next request when the last is answered.
          const readers = instances.flatMap((instance) =>
            [0, 1, 2].map(async () => {
              while (!stop) {
                const afterImport = imported;
                const { status, body } = await getJson(instance.base, path, key);
                seen.push({ instance: instance.name, afterImport, status, title: body.title });
              }
            })
          );
          while (seen.length < 60) await new Promise((r) => setTimeout(r, 10));
          const summary = await importLines(db.sql, changedFixture());
          assert.equal(summary.changed, true);
          imported = true;
          const target = postImport() + 120;
          while (postImport() < target) await new Promise((r) => setTimeout(r, 10));
          stop = true;
          await Promise.all(readers);

          const failed = seen.filter((s) => s.status !== 200);
          assert.deepEqual(failed, [], "every request during the import answered 200");
          const after = seen.filter((s) => s.afterImport);
          for (const name of ["a", "b"]) {
            assert.ok(after.some((s) => s.instance === name), `instance ${name} served after`);
          }
          const stale = after.filter((s) => s.title !== NEW_TITLE);
          assert.deepEqual(stale, [], "no answer from before the import once it committed");
          const before = seen.filter((s) => !s.afterImport);
          assert.ok(before.length >= 60);
          assert.ok(before.every((s) => s.title === OLD_TITLE || s.title === NEW_TITLE));
        });
      } catch (error) {
        for (const instance of instances) {
          console.error(`--- stderr of instance ${instance.name}\n${instance.stderr()}`);
        }
        throw error;
      } finally {
        await stopAll(instances);
      }
    }),
});
