/**
 * The same call twice is charged once (issue 49, src/metering/repeats.ts and admission.ts): the
 * same operation with the same parameters, by the same account, answered from the same data
 * version within 24 hours, is not charged again, on REST and MCP alike; an export always is.
 */
import assert from "node:assert/strict";
import { dbTest, type TestDb } from "../helpers/db.ts";
import { admissionGroups } from "../../src/metering/admission_group.ts";
import {
  BASE,
  bumpDataVersion,
  FIXTURE_LINES,
  loadFixture,
  makeKey,
  mcpPost,
  setUsed,
  type TestApp,
  testApp,
  usedOf,
} from "../helpers/app.ts";
import { type Admission, admit, OPERATIONS, refund } from "../../src/metering/admission.ts";
import { callText, fingerprintOf, PRESENTATION_PARAMS } from "../../src/metering/repeats.ts";
import { createApp } from "../../src/app.ts";
import { createContent } from "../../src/catalog/content.ts";
import { PLAN_LIMITS } from "../../src/platform/plans.ts";
import { QuotaExceededError } from "../../src/platform/errors.ts";
import { QUOTA_META } from "../../src/mcp/server.ts";
import { importLines } from "../../src/ingest/import.ts";
import { createApiKey } from "../../src/accounts/api_keys.ts";
import { Browser, signUp, webTestApp } from "../helpers/web.ts";
import { OPPORTUNITY, version } from "../helpers/imports.ts";

/** A REST GET: status, X-Quota-Used and X-Quota-Charged (the body read to its end). */
async function rest(app: TestApp, key: string, path: string) {
  const res = await app.get(path, key);
  const body = await res.text();
  assert.ok(res.status === 200 || res.status >= 400, body);
  return {
    status: res.status,
    used: Number(res.headers.get("x-quota-used")),
    charged: res.headers.get("x-quota-charged"),
    body,
  };
}

const MODERN = "2026-07-28";

/** The envelope of a 2026-07-28 tools/call: its `_meta` and its headers. */
function modern(name: string) {
  const meta = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": { name: "repeat-test", version: "0" },
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  const headers = { "Mcp-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": name };
  return { meta, headers };
}

/** An MCP tools/call (2025 stateless, or 2026-07-28): X-Quota-Used, and the quota `_meta`. */
async function mcp(
  app: TestApp,
  key: string,
  name: string,
  args: Record<string, unknown>,
  era: "2025" | "2026" = "2025",
) {
  const envelope = era === "2026" ? modern(name) : undefined;
  const res = await mcpPost(app, key, {
    id: 1,
    method: "tools/call",
    params: { name, arguments: args, ...(envelope ? { _meta: envelope.meta } : {}) },
  }, envelope?.headers);
  assert.equal(res.status, 200);
  const { result } = await res.json();
  assert.ok(!result.isError, JSON.stringify(result));
  return {
    used: Number(res.headers.get("x-quota-used")),
    meta: result._meta?.[QUOTA_META] as { charged: number; used: number; remaining: number },
  };
}

dbTest("the same call twice charges once: REST twice, MCP twice, REST then MCP", async (db, t) => {
  const app = testApp(db);
  const ids = await loadFixture(db.sql);
  const { key, accountId } = await makeKey(db.sql, "pro");
  const list = "/api/v1/opportunities?min_score=50&sort=score";

  await t.step("REST twice", async () => {
    const first = await rest(app, key, list);
    assert.deepEqual([first.status, first.used, first.charged], [200, 1, "1"]);
    const second = await rest(app, key, list);
    assert.deepEqual([second.status, second.used, second.charged], [200, 1, "0"]);
    assert.equal(second.body, first.body, "the same answer");
    // A default spelled out, parameters in another order: the same call.
    const third = await rest(app, key, "/api/v1/opportunities?sort=score&page=1&min_score=50");
    assert.deepEqual([third.used, third.charged], [1, "0"]);
  });

  await t.step("REST then MCP", async () => {
    // The tool's own page is 10 items (REST 20): the same question asks for REST's page size.
    const same = await mcp(app, key, "query_opportunities", {
      sort: "score",
      min_score: 50,
      page_size: 20,
    });
    assert.equal(same.used, 1);
    assert.deepEqual(same.meta, { ...same.meta, charged: 0, used: 1, remaining: 999 });
  });

  await t.step("MCP twice", async () => {
    const args = { id: ids["opp-1"] };
    const first = await mcp(app, key, "get_opportunity", args);
    assert.deepEqual([first.used, first.meta.charged, first.meta.used], [2, 1, 2]);
    const second = await mcp(app, key, "get_opportunity", args);
    assert.deepEqual([second.used, second.meta.charged, second.meta.used], [2, 0, 2]);
    // The 2026-07-28 era carries the same `_meta` beside the SDK's own keys.
    const newer = await mcp(app, key, "get_opportunity", args, "2026");
    assert.deepEqual([newer.used, newer.meta.charged, newer.meta.used], [2, 0, 2]);
    // And REST after MCP.
    const third = await rest(app, key, `/api/v1/opportunities/${ids["opp-1"]}`);
    assert.deepEqual([third.status, third.used, third.charged], [200, 2, "0"]);
  });
  assert.equal(await usedOf(db.sql, accountId), 2);
});

dbTest("a changed parameter, another account or a new import charges again", async (db, t) => {
  const app = testApp(db);
  await loadFixture(db.sql);
  const a = await makeKey(db.sql, "pro");
  const b = await makeKey(db.sql, "pro");
  const list = "/api/v1/opportunities?min_score=50";
  assert.equal((await rest(app, a.key, list)).charged, "1");

  await t.step("a changed parameter", async () => {
    const other = await rest(app, a.key, "/api/v1/opportunities?min_score=51");
    assert.deepEqual([other.used, other.charged], [2, "1"]);
  });
  await t.step("another account", async () => {
    const theirs = await rest(app, b.key, list);
    assert.deepEqual([theirs.used, theirs.charged], [1, "1"]);
  });
  await t.step("a new import (another data version)", async () => {
    assert.equal((await rest(app, a.key, list)).charged, "0", "still a repeat before it");
    const before = await version(db.sql);
    const line = JSON.stringify({ ...OPPORTUNITY, channel_name: "devops" });
    await importLines(db.sql, [...FIXTURE_LINES, line]);
    assert.ok(await version(db.sql) > before, "the import made a new data version");
    const after = await rest(app, a.key, list);
    assert.deepEqual([after.used, after.charged], [3, "1"]);
    await bumpDataVersion(db.sql);
    assert.equal((await rest(app, a.key, list)).charged, "1");
    assert.equal((await rest(app, a.key, list)).charged, "0");
  });
  assert.equal(await usedOf(db.sql, a.accountId), 4);
});

dbTest("an export is charged each time; a repeat still needs its plan", async (db, t) => {
  const app = testApp(db);
  await loadFixture(db.sql);
  await t.step("an export twice takes two calls", async () => {
    const { key, accountId } = await makeKey(db.sql, "business");
    const first = await rest(app, key, "/api/v1/opportunities/export?min_score=50");
    const second = await rest(app, key, "/api/v1/opportunities/export?min_score=50");
    assert.deepEqual([first.status, first.charged], [200, "1"]);
    assert.deepEqual([second.status, second.charged], [200, "1"]);
    assert.equal(await usedOf(db.sql, accountId), 2);
  });
  await t.step("a Free key repeating a Pro call gets 403 each time", async () => {
    const { key, accountId } = await makeKey(db.sql, "free");
    for (let i = 0; i < 2; i++) {
      const res = await rest(app, key, "/api/v1/opportunities?min_score=50");
      assert.deepEqual([res.status, res.charged], [403, "0"]);
    }
    assert.equal(await usedOf(db.sql, accountId), 0);
  });
  await t.step("a repeat passes free when the quota is used up; a new call does not", async () => {
    const { key, accountId } = await makeKey(db.sql, "free");
    assert.equal((await rest(app, key, "/api/v1/overview")).charged, "1");
    await setUsed(db.sql, accountId, PLAN_LIMITS.free);
    const repeat = await rest(app, key, "/api/v1/overview");
    assert.deepEqual([repeat.status, repeat.used, repeat.charged], [200, 20, "0"]);
    const fresh = await rest(app, key, "/api/v1/opportunities/1");
    assert.deepEqual([fresh.status, fresh.charged], [429, "0"]);
  });
});

dbTest("a failed call does not make its repeat free", async (db) => {
  await loadFixture(db.sql);
  const { key, accountId } = await makeKey(db.sql, "pro");
  const real = createContent(db.sql, { publicBaseUrl: BASE });
  let fail = true;
  const content = {
    ...real,
    getOverview: (version: number) =>
      fail ? Promise.reject(new Error("the answer broke")) : real.getOverview(version),
  };
  const handler = createApp({ sql: db.sql, content, log: () => {} });
  const get = () =>
    handler(new Request(`${BASE}/api/v1/overview`, { headers: { "X-API-Key": key } }));
  const original = console.error;
  console.error = () => {};
  let failed: Response;
  try {
    failed = await get();
  } finally {
    console.error = original;
  }
  assert.equal(failed.status, 500);
  assert.equal(failed.headers.get("x-quota-charged"), "0");
  await failed.body?.cancel();
  assert.equal(await usedOf(db.sql, accountId), 0);
  fail = false;
  const ok = await get();
  assert.equal(ok.status, 200);
  assert.deepEqual([ok.headers.get("x-quota-used"), ok.headers.get("x-quota-charged")], ["1", "1"]);
  await ok.body?.cancel();
  const again = await get();
  assert.equal(again.headers.get("x-quota-charged"), "0");
  await again.body?.cancel();
});

dbTest("a refunded admission gives its claim back", async (db) => {
  const { key, accountId } = await makeKey(db.sql, "pro");
  const call = callText("getOverview", [{}]);
  const at = new Date();
  const first = await admit(
    db.sql,
    key,
    OPERATIONS.getOverview,
    undefined,
    at,
    "rest",
    undefined,
    call,
  );
  assert.ok(first.charged && first.fingerprint);
  await refund(db.sql, first.caller, at, "rest", first.fingerprint);
  const second = await admit(
    db.sql,
    key,
    OPERATIONS.getOverview,
    undefined,
    undefined,
    "rest",
    undefined,
    call,
  );
  assert.equal(second.charged, true, "charged again, not a repeat");
  const third = await admit(
    db.sql,
    key,
    OPERATIONS.getOverview,
    undefined,
    undefined,
    "mcp",
    undefined,
    call,
  );
  assert.deepEqual([third.charged, third.repeat], [undefined, true]);
  assert.equal(await usedOf(db.sql, accountId), 1);
});

/** Many distinct calls of one account, each `copies` times, and another account's, at once. */
async function concurrentCalls(db: TestDb, options: { grouped: boolean }) {
  const groups = admissionGroups(db.sql);
  const before = { ...groups.stats };
  // Past this many admissions at once, calls go in groups; so high, every call goes alone.
  const inFlight = groups.inFlight;
  if (!options.grouped) groups.inFlight = 10_000;
  try {
    await exactlyR(db);
  } finally {
    groups.inFlight = inFlight;
  }
  assert.equal(groups.stats.groups > before.groups, options.grouped, "went in groups or alone");
}

dbTest(
  "with R calls left, exactly R new calls succeed while their repeats pass free",
  async (db, t) => {
    await t.step("in groups", () => concurrentCalls(db, { grouped: true }));
    await t.step("alone", () => concurrentCalls(db, { grouped: false }));
  },
  { max: 4 },
);

async function exactlyR(db: TestDb) {
  {
    const { key, accountId } = await makeKey(db.sql, "pro");
    const other = await makeKey(db.sql, "pro");
    const left = 5;
    await setUsed(db.sql, accountId, PLAN_LIMITS.pro - left);
    const distinct = 12;
    const copies = 3;
    const calls: { call: number; outcome: Promise<Admission> }[] = [];
    for (let copy = 0; copy < copies; copy++) {
      for (let i = 0; i < distinct; i++) {
        const text = callText("listOpportunities", [{ min_score: i }]);
        const surface = copy % 2 === 0 ? "rest" : "mcp";
        const outcome = admit(
          db.sql,
          key,
          OPERATIONS.listOpportunities,
          undefined,
          undefined,
          surface,
          undefined,
          text,
        );
        calls.push({ call: i, outcome });
      }
      // Another account's calls at the same time, each its own.
      calls.push({
        call: -1,
        outcome: admit(
          db.sql,
          other.key,
          OPERATIONS.getOverview,
          undefined,
          undefined,
          "rest",
          undefined,
          callText("getOverview", [{}]),
        ),
      });
    }
    const outcomes = await Promise.all(calls.map((c) => c.outcome));
    const charged = new Map<number, number>();
    const repeats = new Map<number, number>();
    const refused = new Map<number, number>();
    calls.forEach(({ call }, i) => {
      if (call < 0) return;
      const o = outcomes[i];
      const tally = o.charged ? charged : o.repeat ? repeats : refused;
      if (!o.charged && !o.repeat) assert.ok(o.refusal instanceof QuotaExceededError);
      tally.set(call, (tally.get(call) ?? 0) + 1);
    });
    assert.equal(charged.size, left, "exactly R distinct calls charged");
    for (const [call, n] of charged) {
      assert.equal(n, 1, `call ${call} charged once`);
      assert.equal(repeats.get(call), copies - 1, `call ${call}'s repeats pass free`);
      assert.equal(refused.get(call), undefined);
    }
    for (const [call, n] of refused) {
      assert.ok(!charged.has(call) && !repeats.has(call));
      assert.equal(n, copies);
    }
    assert.equal(await usedOf(db.sql, accountId), PLAN_LIMITS.pro);
    // The other account: one charge, two repeats.
    const theirs = outcomes.filter((_, i) => calls[i].call < 0);
    assert.deepEqual(theirs.map((o) => o.charged ?? false).filter(Boolean).length, 1);
    assert.equal(await usedOf(db.sql, other.accountId), 1);
    const [row] = await db.sql<{ repeats: number }[]>`
      select repeats from usage_counters where account_id = ${accountId}`;
    assert.equal(row.repeats, left * (copies - 1));
  }
}

dbTest("usage shows repeats apart, on REST and in get_usage", async (db) => {
  const app = testApp(db);
  await loadFixture(db.sql);
  const { key } = await makeKey(db.sql, "pro");
  for (let i = 0; i < 3; i++) await rest(app, key, "/api/v1/overview");
  await mcp(app, key, "get_overview", {});
  const res = await app.get("/api/v1/usage", key);
  const report = await res.json();
  assert.deepEqual([report.used, report.repeats], [1, 3]);
  assert.equal(res.headers.get("x-quota-charged"), "0");
  const viaMcp = await mcpPost(app, key, {
    id: 1,
    method: "tools/call",
    params: { name: "get_usage", arguments: {} },
  });
  const { result } = await viaMcp.json();
  assert.deepEqual([result.structuredContent.used, result.structuredContent.repeats], [1, 3]);
});

dbTest("the account page shows the month's repeats apart", async (db) => {
  const web = webTestApp(db);
  await loadFixture(db.sql);
  const browser = new Browser(web);
  await signUp(browser, "repeats@example.com");
  const { key } = await createApiKey(db.sql, { email: "repeats@example.com", name: "agent" });
  for (let i = 0; i < 3; i++) {
    const res = await web.handler(
      new Request(`${web.base}/api/v1/overview`, { headers: { "X-API-Key": key } }),
    );
    assert.equal(res.status, 200);
    await res.body?.cancel();
  }
  const { text } = await browser.get("/account");
  const repeats = /<p id="usage-repeats">([\s\S]*?)<\/p>/.exec(text)?.[1] ?? "";
  assert.match(repeats, /Repeats answered free: <strong>2<\/strong>/);
});

Deno.test("callText: sorted keys, presentation parameters left out", async () => {
  assert.deepEqual(PRESENTATION_PARAMS, ["detail", "fields"]);
  const a = callText("listOpportunities", [{ min_score: 5, sort: "score", detail: "compact" }]);
  const b = callText("listOpportunities", [{ sort: "score", fields: ["id"], min_score: 5 }]);
  assert.equal(a, b);
  assert.notEqual(a, callText("getOpportunity", [{ min_score: 5, sort: "score" }]));
  assert.notEqual(a, callText("listOpportunities", [{ min_score: 6, sort: "score" }]));
  assert.match(await fingerprintOf(a), /^[0-9a-f]{64}$/);
});
