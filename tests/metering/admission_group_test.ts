/**
 * Admission in groups (src/metering/admission_group.ts): calls that arrive together are admitted
 * in one statement, and each is still found, checked and charged exactly as alone.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { dbTest, ENGINES, withTestDb } from "../helpers/db.ts";
import { loadFixture, makeKey, revokeKey, setUsed, testApp, usedOf } from "../helpers/app.ts";
import { type Admission, admit, OPERATIONS } from "../../src/metering/admission.ts";
import { admissionGroups } from "../../src/metering/admission_group.ts";
import { PLAN_LIMITS } from "../../src/platform/plans.ts";
import {
  InvalidApiKeyError,
  KeyRevokedError,
  PlanRequiredError,
  QuotaExceededError,
} from "../../src/platform/errors.ts";

type Outcome = Admission | { error: Error };

function settle(p: Promise<Admission>): Promise<Outcome> {
  return p.catch((error) => ({ error }));
}

/** True when the call was admitted and took a unit of quota. */
function isCharged(o: Outcome): boolean {
  return "charged" in o && o.charged === true;
}

async function today(sql: Parameters<typeof usedOf>[0], accountId: number) {
  const [row] = await sql<{ today: Record<string, number> }[]>`
    select today from usage_counters where account_id = ${accountId}`;
  return row?.today ?? {};
}

dbTest(
  "admission groups: many calls at once are charged once each, counted per key and surface",
  async (db) => {
    const a = await makeKey(db.sql, "business");
    const b = await makeKey(db.sql, "pro");
    const free = await makeKey(db.sql, "free");
    const before = { ...admissionGroups(db.sql).stats };
    const calls: Promise<Outcome>[] = [];
    for (let i = 0; i < 30; i++) {
      calls.push(
        settle(admit(db.sql, a.key, OPERATIONS.getOverview, undefined, undefined, "rest")),
      );
      calls.push(settle(admit(db.sql, a.key, OPERATIONS.getOverview, undefined, undefined, "mcp")));
      calls.push(settle(admit(db.sql, b.key, OPERATIONS.listOpportunities)));
      // Costs nothing: never charged, never counted.
      calls.push(settle(admit(db.sql, b.key, OPERATIONS.listCategories)));
      // Below its plan: refused, not charged.
      calls.push(settle(admit(db.sql, free.key, OPERATIONS.listTrendingThemes)));
    }
    calls.push(settle(admit(db.sql, "oi_live_" + "x".repeat(48), OPERATIONS.getOverview)));
    const outcomes = await Promise.all(calls);
    const after = admissionGroups(db.sql).stats;
    assert.ok(after.groups > before.groups, "some calls went together");
    assert.ok(after.calls - before.calls >= 2 * (after.groups - before.groups));

    const unknown = outcomes.pop() as { error: Error };
    assert.ok(unknown.error instanceof InvalidApiKeyError);
    // Calls i % 5 = 0 and 1 are a's, 2 and 3 b's, 4 the free key's.
    const aCharged = outcomes.filter((o, i) => i % 5 < 2 && isCharged(o)) as Admission[];
    assert.equal(aCharged.length, 60);
    // Each charge of an account saw its own count: 1 to 60, once each.
    assert.deepEqual(
      aCharged.map((o) => o.caller.usage.used).sort((x, y) => x - y),
      Array.from({ length: 60 }, (_, i) => i + 1),
    );
    assert.equal(await usedOf(db.sql, a.accountId), 60);
    assert.deepEqual(await today(db.sql, a.accountId), {
      [`${a.keyId}:rest`]: 30,
      [`${a.keyId}:mcp`]: 30,
    });
    assert.equal(await usedOf(db.sql, b.accountId), 30);
    assert.deepEqual(await today(db.sql, b.accountId), { [`${b.keyId}:rest`]: 30 });
    const free_ = outcomes.filter((_, i) => i % 5 === 4) as Admission[];
    assert.ok(free_.every((o) => o.refusal instanceof PlanRequiredError && !o.charged));
    const categories = outcomes.filter((_, i) => i % 5 === 3) as Admission[];
    assert.ok(categories.every((o) => !o.refusal && !o.charged));
    assert.equal(await usedOf(db.sql, free.accountId), 0);
  },
  { max: 4 },
);

dbTest(
  "admission groups: near the limit exactly the calls that fit are charged",
  async (db) => {
    const k = await makeKey(db.sql, "pro");
    const other = await makeKey(db.sql, "pro");
    const revoked = await makeKey(db.sql, "pro");
    await revokeKey(db.sql, revoked.keyId);
    const remaining = 5;
    await setUsed(db.sql, k.accountId, PLAN_LIMITS.pro - remaining);
    const before = { ...admissionGroups(db.sql).stats };
    const mine = Array.from(
      { length: 40 },
      () => settle(admit(db.sql, k.key, OPERATIONS.getOverview)),
    );
    const theirs = Array.from(
      { length: 20 },
      () => settle(admit(db.sql, other.key, OPERATIONS.getOverview)),
    );
    const gone = settle(admit(db.sql, revoked.key, OPERATIONS.getOverview));
    const [outcomes, others, revokedOutcome] = await Promise.all([
      Promise.all(mine),
      Promise.all(theirs),
      gone,
    ]);
    assert.ok(admissionGroups(db.sql).stats.groups > before.groups, "some calls went together");
    const ok = outcomes.filter(isCharged);
    const refused = outcomes.filter((o) =>
      "refusal" in o && o.refusal instanceof QuotaExceededError
    );
    assert.equal(ok.length, remaining);
    assert.equal(refused.length, 40 - remaining);
    assert.equal(await usedOf(db.sql, k.accountId), PLAN_LIMITS.pro);
    // Another account in the same groups is not held back by this one's limit.
    assert.equal(others.filter(isCharged).length, 20);
    assert.equal(await usedOf(db.sql, other.accountId), 20);
    assert.ok((revokedOutcome as { error: Error }).error instanceof KeyRevokedError);
    assert.equal(await usedOf(db.sql, revoked.accountId), 0);
  },
  { max: 4 },
);

dbTest(
  "admission groups: the first charge of a new day files the last day's counts",
  async (db) => {
    const k = await makeKey(db.sql, "pro");
    const day1 = new Date("2026-11-03T10:00:00Z");
    const day2 = new Date("2026-11-04T00:00:01Z");
    const slot = `${k.keyId}:rest`;
    await Promise.all(
      Array.from(
        { length: 12 },
        () => admit(db.sql, k.key, OPERATIONS.getOverview, undefined, day1),
      ),
    );
    await Promise.all(
      Array.from(
        { length: 12 },
        () => admit(db.sql, k.key, OPERATIONS.getOverview, undefined, day2),
      ),
    );
    const [row] = await db.sql<{ used: number; today: object; earlier: object[] }[]>`
    select used, today, earlier from usage_counters where account_id = ${k.accountId}`;
    assert.equal(row.used, 24);
    assert.deepEqual(row.today, { [slot]: 12 });
    assert.deepEqual(row.earlier, [{ day: "2026-11-03", calls: { [slot]: 12 } }]);
  },
  { max: 4 },
);

// The embedded engine has one connection: two statements never wait on each other there.
if (ENGINES.includes("postgres")) {
  Deno.test({
    name: "admission groups: a group that deadlocks is admitted call by call [postgres]",
    sanitizeResources: false,
    sanitizeOps: false,
    fn: () =>
      withTestDb("postgres", async (db) => {
        const first = await makeKey(db.sql, "pro");
        const second = await makeKey(db.sql, "pro");
        for (const k of [first, second]) await setUsed(db.sql, k.accountId, 0);
        // PostgreSQL looks for a cycle once, deadlock_timeout after a session begins to wait, and
        // fails the session that looks. The group's calls look after 4 s (the writer's wait, which
        // closes the cycle, is well begun by then even on a busy machine), the writer after 60 s:
        // only the group can be failed.
        const pool = postgres(db.url, {
          max: 4,
          onnotice: () => {},
          connection: { deadlock_timeout: "4s" },
        });
        // Its array types read before the group's statement: postgres.js reads them on a pool's
        // first connection, and a statement sent on a second one meanwhile had its text[]
        // parameters sent as "a,b" (malformed array literal) on a busy machine.
        await pool`select 1`;
        const groups = admissionGroups(pool);
        const before = { ...groups.stats };
        // Polled until true, 10 s at most.
        const until = async (what: string, check: () => boolean | Promise<boolean>) => {
          for (let i = 0; i < 400 && !await check(); i++) {
            await new Promise((resolve) => setTimeout(resolve, 25));
          }
          assert.ok(await check(), what);
        };
        try {
          // Another writer locks the second account's counter, then (once the group holds the
          // first's and waits for the second's) the first's: a cycle, which PostgreSQL breaks by
          // failing the one that waited first, the group, whose calls then go alone.
          let lockedSecond!: () => void;
          const locked = new Promise<void>((resolve) => lockedSecond = resolve);
          let groupWaits!: () => void;
          const waits = new Promise<void>((resolve) => groupWaits = resolve);
          const writer = db.sql.begin(async (tx) => {
            await tx`set local deadlock_timeout = '60s'`;
            await tx`update usage_counters set used = used where account_id = ${second.accountId}`;
            lockedSecond();
            await waits;
            await tx`update usage_counters set used = used where account_id = ${first.accountId}`;
          }).then(() => "committed", (e) => e.code);
          await locked;
          // Both calls wait, then go as one group.
          groups.inFlight = 0;
          const calls = [first, second].map((k) =>
            settle(admit(pool, k.key, OPERATIONS.getOverview))
          );
          await until("both calls wait", () => groups.waiting === 2);
          groups.inFlight = 1;
          await until("the group waits for the second account's counter", async () => {
            const [row] = await db.sql<{ n: number }[]>`
              select count(*)::int as n from pg_stat_activity
              where datname = current_database() and wait_event_type = 'Lock'
                and query like '%with ordinality as r(hash%'`;
            return row.n === 1;
          });
          groupWaits();
          const outcomes = await Promise.all(calls);
          assert.equal(await writer, "committed", "PostgreSQL failed the group, not the writer");
          assert.ok(outcomes.every(isCharged), "every call charged");
          assert.equal(groups.stats.deadlocks, before.deadlocks + 1, "the group deadlocked");
          assert.equal(groups.stats.groups, before.groups, "the group did not admit");
          for (const k of [first, second]) assert.equal(await usedOf(db.sql, k.accountId), 1);
        } finally {
          groups.inFlight = 4;
          await pool.end();
        }
      }),
  });
}

dbTest("admission groups: REST calls at once are grouped, shown in /metrics", async (db) => {
  const token = "metrics-token-for-admission-groups";
  const app = testApp(db, { METRICS_TOKEN: token });
  await loadFixture(db.sql);
  const k = await makeKey(db.sql, "pro");
  const metric = async (name: string) => {
    const response = await app.get("/metrics", undefined, {
      headers: { authorization: `Bearer ${token}` },
    });
    const found = new RegExp(`^${name} (\\S+)$`, "m").exec(await response.text());
    return found ? Number(found[1]) : NaN;
  };
  const before = await metric("oppintel_admission_grouped_calls_total");
  // Calls admitted by key, plan and quota alone (no existence check, no prefetch), each another
  // call: the same call again would be a repeat, free (issue 49).
  assert.equal((await app.get("/api/v1/themes/trending?limit=50", k.key)).status, 200);
  const responses = await Promise.all(
    Array.from({ length: 30 }, (_, i) => app.get(`/api/v1/themes/trending?limit=${i + 1}`, k.key)),
  );
  const remaining = responses.map((r) => Number(r.headers.get("x-quota-remaining")));
  await Promise.all(responses.map((r) => r.body?.cancel()));
  assert.ok(responses.every((r) => r.status === 200));
  // Each answer's headers carry its own count: 998 down to 969, once each.
  assert.deepEqual(
    remaining.sort((x, y) => y - x),
    Array.from({ length: 30 }, (_, i) => PLAN_LIMITS.pro - 2 - i),
  );
  assert.equal(await usedOf(db.sql, k.accountId), 31);
  assert.ok(await metric("oppintel_admission_grouped_calls_total") > before);
}, { max: 4 });
