/**
 * Catalogue reads on a real hot standby (DATABASE_READ_URL): which server runs each read (both
 * log every statement), coherence by data version across an import, a standby stopped, paused or
 * timing out, and the quota's exactness while the reads are on the standby. One primary and
 * standby pair for the whole file (tests/helpers/replication.ts).
 */
import assert from "node:assert/strict";
import { buildHandler } from "../../main.ts";
import { readConfig } from "../../src/platform/config.ts";
import { type Database, openDatabase } from "../../src/db/open.ts";
import { migrate } from "../../src/db/migrate.ts";
import { importLines } from "../../src/ingest/import.ts";
import { BASE, FIXTURE_LINES, loadFixture, makeKey, setUsed, usedOf } from "../helpers/app.ts";
import { canReplicate, type ReplicaPair, startReplicaPair } from "../helpers/replication.ts";

/**
 * Only the count statements of a list read (src/catalog/lists/counts.ts) contain this. Those are
 * read with the list index off (LIST_INDEX_MAX_ROWS=0), as every app here is unless it says
 * otherwise: with it, a list reads only its page's rows (LIST_ROWS), and the index itself on the
 * primary.
 */
const LIST_COUNT = "sum(c.n)";
const LIST_ROWS = "o.id = any(";
/** The fixture's opportunities a list counts by default (online only). */
const ONLINE = 5;
const CURSOR_SECRET = "replica-test-cursor-secret-0123456789abcdef";

interface ReplicaApp {
  db: Database;
  get(path: string, key?: string): Promise<Response>;
  /** The replicas' log lines (skipped, restored, lagging). */
  events: Record<string, unknown>[];
  close(): Promise<void>;
}

async function openApp(pair: ReplicaPair, env: Record<string, string> = {}): Promise<ReplicaApp> {
  const config = readConfig({
    DATABASE_URL: pair.primaryUrl,
    DATABASE_READ_URL: pair.standbyUrl,
    PUBLIC_BASE_URL: "https://oppintel.example",
    CURSOR_SECRET,
    METRICS_TOKEN: "metrics-token",
    LIST_INDEX_MAX_ROWS: "0",
    ...env,
  });
  const events: Record<string, unknown>[] = [];
  const db = await openDatabase(config, { serving: true, log: (e) => events.push(e) });
  const handler = buildHandler(db, config, { log: () => {} });
  return {
    db,
    events,
    get: (path, key) =>
      handler(
        new Request(BASE + path, {
          headers: { ...key ? { "X-API-Key": key } : {}, Authorization: "Bearer metrics-token" },
        }),
      ),
    close: () => db.close(),
  };
}

/** How many times `text` occurs in what `server` logged since `from`. */
async function logged(pair: ReplicaPair, server: "primary" | "standby", from: number) {
  const { text } = await pair.log(server, from);
  return text.split(LIST_COUNT).length - 1;
}

async function marks(pair: ReplicaPair) {
  return {
    primary: (await pair.log("primary")).end,
    standby: (await pair.log("standby")).end,
  };
}

async function total(app: ReplicaApp, key: string, filter: string): Promise<number> {
  const response = await app.get(`/api/v1/opportunities?${filter}`, key);
  const body = await response.json();
  assert.equal(response.status, 200, JSON.stringify(body));
  return body.total;
}

let added = 0;
/** `n` new opportunities like opp-1, imported on the primary (each import bumps the version). */
function newLines(n: number): string[] {
  const opp = JSON.parse(FIXTURE_LINES.find((l) => l.includes('"opp-1"'))!);
  return Array.from({ length: n }, () => {
    added++;
    return JSON.stringify({ ...opp, external_id: `new-${added}`, title: `Fresh idea ${added}` });
  });
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!await check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

Deno.test({
  name: "catalogue reads on a hot standby (DATABASE_READ_URL)",
  ignore: !canReplicate(),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const pair = await startReplicaPair();
    const apps: ReplicaApp[] = [];
    const open = async (env: Record<string, string> = {}) => {
      const app = await openApp(pair, env);
      apps.push(app);
      return app;
    };
    try {
      await migrate(pair.primary);
      await loadFixture(pair.primary);
      await pair.caughtUp();
      const app = await open();
      const { key, accountId } = await makeKey(pair.primary, "pro");

      await t.step("the list reads run on the standby, the charge on the primary", async () => {
        const from = await marks(pair);
        for (let i = 0; i < 5; i++) assert.equal(await total(app, key, `min_score=${i}`), ONLINE);
        assert.ok(await logged(pair, "standby", from.standby) >= 5);
        assert.equal(await logged(pair, "primary", from.primary), 0);
        assert.match((await pair.log("primary", from.primary)).text, /usage_counters/);
        assert.equal(await usedOf(pair.primary, accountId), 5);
      });

      await t.step("with the list index, a list's rows are read on the standby", async () => {
        const indexed = await open({ LIST_INDEX_MAX_ROWS: "1000" });
        await total(indexed, key, "min_score=1");
        // The index loads on the primary (one snapshot per version); then lists read their rows.
        await waitFor("the list index", async () => {
          const metrics = await (await indexed.get("/metrics")).text();
          return /^oppintel_list_index_rows [1-9]/m.test(metrics);
        });
        const from = await marks(pair);
        for (let i = 2; i < 5; i++) {
          assert.equal(await total(indexed, key, `min_score=${i}`), ONLINE);
        }
        const standby = (await pair.log("standby", from.standby)).text;
        const primary = (await pair.log("primary", from.primary)).text;
        assert.equal(standby.split(LIST_ROWS).length - 1, 3);
        assert.ok(!primary.includes(LIST_ROWS));
        assert.ok(!primary.includes(LIST_COUNT) && !standby.includes(LIST_COUNT));
      });

      await t.step("without DATABASE_READ_URL the same reads run on the primary", async () => {
        const plain = await open({ DATABASE_READ_URL: "" });
        assert.equal(plain.db.replicas, undefined);
        const from = await marks(pair);
        assert.equal(await total(plain, key, "min_score=3"), ONLINE);
        assert.equal(await logged(pair, "standby", from.standby), 0);
        assert.ok(await logged(pair, "primary", from.primary) >= 1);
      });

      await t.step("the public pages and the sitemap read on the standby", async () => {
        const from = await marks(pair);
        for (const path of ["/opportunities?min_score=9", "/sitemap.xml", "/blog"]) {
          const response = await app.get(path);
          assert.equal(response.status, 200, path);
          await response.text();
        }
        const standby = (await pair.log("standby", from.standby)).text;
        const primary = (await pair.log("primary", from.primary)).text;
        for (const marker of [LIST_COUNT, "'/opportunities/' || id", "from blog_posts"]) {
          assert.ok(standby.includes(marker), `the standby ran ${marker}`);
          assert.ok(!primary.includes(marker), `the primary did not run ${marker}`);
        }
        // The primary was asked only for its data version.
        assert.match(primary, /from data_version/);
      });

      await t.step("/healthz and /metrics show the standby's state and lag", async () => {
        const health = await app.get("/healthz");
        assert.equal(health.status, 200);
        const body = await health.json();
        assert.equal(body.status, "ok");
        assert.equal(body.replicas.length, 1);
        assert.equal(body.replicas[0].state, "ready");
        assert.equal(body.replicas[0].lag_seconds, 0);
        assert.equal(typeof body.replicas[0].lag_bytes, "number");
        assert.ok(body.replicas[0].reads >= 5);
        const metrics = await (await app.get("/metrics")).text();
        assert.match(metrics, /^oppintel_db_replica_up\{replica="1"\} 1$/m);
        assert.match(metrics, /^oppintel_db_replica_lag_seconds\{replica="1"\} 0$/m);
        assert.match(metrics, /^oppintel_db_replica_reads_total\{replica="1"\} \d+$/m);
      });

      await t.step("a standby that has not replayed an import is not read", async () => {
        const before = await total(app, key, "platform=reddit");
        await pair.standby`select pg_wal_replay_pause()`;
        try {
          await importLines(pair.primary, newLines(1));
          const from = await marks(pair);
          // The import's version is newer than the standby's: the primary answers, afresh.
          assert.equal(await total(app, key, "platform=reddit"), before + 1);
          assert.equal(await logged(pair, "standby", from.standby), 0);
          assert.ok(await logged(pair, "primary", from.primary) >= 1);
          const body = await (await app.get("/healthz")).json();
          assert.equal(body.status, "ok");
          assert.equal(body.replicas[0].state, "behind");
          assert.equal(body.replicas[0].paused, true);
          assert.ok(body.replicas[0].lag_bytes > 0, JSON.stringify(body));
          assert.match(await (await app.get("/metrics")).text(), /reason="none_ready"\} [1-9]/);
        } finally {
          await pair.standby`select pg_wal_replay_resume()`;
        }
        await pair.caughtUp();
        // Once it has replayed the import, the standby takes the reads again.
        let n = 1;
        await waitFor("reads back on the standby", async () => {
          const from = (await pair.log("standby")).end;
          assert.equal(await total(app, key, `platform=reddit&min_score=${n++}`), before + 1);
          return await logged(pair, "standby", from) > 0;
        });
      });

      await t.step("a replay paused past DB_READ_MAX_LAG_MS skips the standby", async () => {
        const strict = await open({ DB_READ_MAX_LAG_MS: "200" });
        assert.equal(await total(strict, key, "min_score=2"), ONLINE + added);
        await pair.standby`select pg_wal_replay_pause()`;
        try {
          // WAL the standby receives but does not replay (no new data version).
          await setUsed(pair.primary, accountId, 100);
          await new Promise((resolve) => setTimeout(resolve, 400));
          await waitFor("the lag to pass the bound", async () => {
            const body = await (await strict.get("/healthz")).json();
            return body.replicas[0].state === "lagging";
          });
          const from = await marks(pair);
          assert.equal(await total(strict, key, "min_score=4"), ONLINE + added);
          assert.equal(await logged(pair, "standby", from.standby), 0);
          assert.ok(strict.events.some((e) => e.event === "replica_lagging"));
        } finally {
          await pair.standby`select pg_wal_replay_resume()`;
        }
        await pair.caughtUp();
      });

      await t.step("totals never go down while imports land under load", async () => {
        const filter = "channel=devops";
        const start = await total(app, key, filter);
        let importing = true;
        const readers = Array.from({ length: 4 }, async (_, r) => {
          const seen: number[] = [];
          const read = (i: number) =>
            total(app, key, `${filter}&page_size=${1 + ((r * 7 + i) % 50)}`);
          while (importing) seen.push(await read(seen.length));
          // Begun after the last import committed: its answer must include it.
          seen.push(await read(seen.length));
          return seen;
        });
        for (let i = 0; i < 5; i++) await importLines(pair.primary, newLines(2));
        importing = false;
        const finalTotal = start + 10;
        for (const seen of await Promise.all(readers)) {
          for (let i = 1; i < seen.length; i++) {
            assert.ok(seen[i] >= seen[i - 1], `an older total after a newer one: ${seen}`);
          }
          assert.equal(seen.at(-1), finalTotal);
        }
      });

      await t.step("a stopped standby: reads go to the primary, then back to it", async () => {
        await pair.stopStandby();
        const from = await marks(pair);
        const answers = await Promise.all(
          Array.from(
            { length: 20 },
            (_, i) => app.get(`/api/v1/opportunities?min_score=${i}`, key),
          ),
        );
        assert.deepEqual(answers.map((a) => a.status), answers.map(() => 200));
        await Promise.all(answers.map((a) => a.body?.cancel()));
        assert.ok(await logged(pair, "primary", from.primary) >= 1);
        assert.ok(app.events.some((e) => e.event === "replica_skipped"));
        const down = await (await app.get("/healthz")).json();
        assert.equal(down.status, "ok");
        assert.equal(down.replicas[0].state, "down");

        await pair.startStandby();
        await pair.caughtUp();
        let n = 30;
        await waitFor("reads back on the standby", async () => {
          const mark = (await pair.log("standby")).end;
          await total(app, key, `min_score=${n++}`);
          return await logged(pair, "standby", mark) > 0;
        });
        assert.ok(app.events.some((e) => e.event === "replica_restored"));
      });

      await t.step(
        "a standby's statement time-out: answered by the primary, charged once",
        async () => {
          const slow = await open({ DB_STATEMENT_TIMEOUT_MS: "300" });
          // An exclusive lock replayed on the standby, whose release the paused replay never
          // reaches: the standby's reads of opportunities wait until their time-out.
          let release = () => {};
          const held = new Promise<void>((resolve) => release = resolve);
          const locking = pair.primary.begin(async (tx) => {
            await tx`lock table opportunities in access exclusive mode`;
            await held;
          });
          try {
            await waitFor("the lock on the standby", async () => {
              // A commit elsewhere flushes the WAL that holds the lock, so that it is sent.
              await pair.primary`select txid_current()`;
              const [row] = await pair.standby<{ n: number }[]>`
              select count(*)::int as n from pg_locks
              where relation = 'opportunities'::regclass and mode = 'AccessExclusiveLock'`;
              return row.n > 0;
            });
            await pair.standby`select pg_wal_replay_pause()`;
          } finally {
            release();
            await locking;
          }
          try {
            await setUsed(pair.primary, accountId, 10);
            const response = await slow.get("/api/v1/opportunities?min_score=55", key);
            assert.equal(response.status, 200);
            assert.equal((await response.json()).total, 4 + added);
            assert.equal(await usedOf(pair.primary, accountId), 11);
            const skipped = slow.events.find((e) => e.event === "replica_skipped");
            assert.match(String(skipped?.reason), /statement timeout/);
          } finally {
            await pair.standby`select pg_wal_replay_resume()`;
          }
          await pair.caughtUp();
        },
      );

      await t.step(
        "1,100 concurrent charged calls, limit 1,000, reads on the standby",
        async () => {
          const instances = [await open(), await open()];
          const quota = await makeKey(pair.primary, "pro");
          const from = await marks(pair);
          const results = await Promise.all(
            Array.from({ length: 1100 }, async (_, i) => {
              // 1,100 different calls: the same call again would be a repeat, free (issue 49).
              const size = 1 + Math.floor(i / 100);
              const path = `/api/v1/opportunities?min_score=${i % 100}&page_size=${size}`;
              const response = await instances[i % 2].get(path, quota.key);
              await response.body?.cancel();
              return response.status;
            }),
          );
          assert.equal(results.filter((s) => s === 200).length, 1000);
          assert.equal(results.filter((s) => s === 429).length, 100);
          assert.equal(await usedOf(pair.primary, quota.accountId), 1000);
          assert.ok(await logged(pair, "standby", from.standby) > 0);
        },
      );
    } finally {
      for (const app of apps) await app.close().catch(() => {});
      await pair.close();
    }
  },
});
