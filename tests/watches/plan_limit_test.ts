/**
 * Watches beyond the plan's limit after a downgrade, on both engines: the newest watches within
 * the new limit keep delivering, the older ones are paused (no matches recorded, pending
 * deliveries cancelled), REST, MCP and the dashboard say why, and an upgrade resumes them.
 */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { loadFixture } from "../helpers/app.ts";
import { Browser, signUp, type WebTestApp, webTestApp } from "../helpers/web.ts";
import { opportunityLine } from "../helpers/watches.ts";
import { findAccountByEmail } from "../../src/accounts/accounts.ts";
import { createApiKey } from "../../src/accounts/api_keys.ts";
import { importLines } from "../../src/ingest/import.ts";
import { createDeliveryWorker } from "../../src/watches/worker.ts";
import type { MailMessage } from "../../src/platform/mailer.ts";
import { openApiDocument } from "../../src/rest/openapi.ts";

interface WatchRecord {
  id: number;
  name: string;
  paused: boolean;
  status: string;
  status_reason: string | null;
}

async function rest(app: WebTestApp, key: string, method: string, path: string, body?: unknown) {
  const response = await app.handler(
    new Request(`${app.base}${path}`, {
      method,
      headers: { "X-API-Key": key, "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  return { status: response.status, body: await response.json() };
}

async function mcpList(app: WebTestApp, key: string): Promise<WatchRecord[]> {
  const response = await app.handler(
    new Request(`${app.base}/mcp`, {
      method: "POST",
      headers: {
        "X-API-Key": key,
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        "Mcp-Protocol-Version": "2025-06-18",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "list_watches", arguments: {} },
      }),
    }),
  );
  assert.equal(response.status, 200);
  const { result } = await response.json();
  assert.equal(result.isError, undefined, JSON.stringify(result));
  return result.structuredContent.items;
}

dbTest("watches beyond the plan's limit are paused after a downgrade", async (db, t) => {
  await loadFixture(db.sql);
  const app = webTestApp(db);
  const browser = new Browser(app, "192.0.2.41");
  const email = `watcher-${crypto.randomUUID().slice(0, 6)}@example.com`;
  await signUp(browser, email);
  const account = (await findAccountByEmail(db.sql, email))!;
  const key = (await createApiKey(db.sql, { email, name: "k" })).key;
  const setPlan = (plan: string) =>
    db.sql`update accounts set plan = ${plan} where id = ${account.id}`;
  await setPlan("business");
  const mails: MailMessage[] = [];
  const worker = createDeliveryWorker({
    sql: db.sql,
    mailer: {
      send: (m) => {
        mails.push(m);
        return Promise.resolve();
      },
    },
    publicBaseUrl: app.base,
  });
  const ids: number[] = [];
  for (const name of ["Oldest", "Middle", "Newest"]) {
    const made = await rest(app, key, "POST", "/api/v1/watches", {
      name,
      query: { q: "scheduling" },
      deliveries: { email: true, feed: true },
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.equal(made.body.status, "active");
    ids.push(made.body.id);
  }
  const [oldest, middle, newest] = ids;
  let n = 0;
  const importOne = () =>
    importLines(db.sql, [
      opportunityLine(`p${++n}`, { title: `Scheduling tool number ${n}`, score: 70 }),
    ]);
  const mailedWatches = () => mails.map((m) => /"([A-Za-z]+)"/.exec(m.subject)?.[1]).sort();

  await t.step("on Business all three deliver", async () => {
    await importOne();
    await worker.runOnce();
    assert.deepEqual(mailedWatches(), ["Middle", "Newest", "Oldest"]);
  });

  await t.step(
    "after a move to Free, pending deliveries of the older two are cancelled",
    async () => {
      mails.length = 0;
      await importOne();
      await setPlan("free");
      const summary = await worker.runOnce();
      assert.deepEqual(mailedWatches(), ["Newest"]);
      assert.equal(summary.cancelled, 2);
    },
  );

  await t.step("the older two record no matches; the newest goes on", async () => {
    mails.length = 0;
    const before = await db.sql`
      select watch_id, count(*)::int as n from watch_batches group by watch_id order by watch_id`;
    await importOne();
    await worker.runOnce();
    const after = await db.sql`
      select watch_id, count(*)::int as n from watch_batches group by watch_id order by watch_id`;
    const grew = after.filter((a, i) => a.n !== before[i].n).map((a) => a.watch_id);
    assert.deepEqual(grew, [newest]);
    assert.deepEqual(mailedWatches(), ["Newest"]);
  });

  await t.step(
    "REST says which and why (list and one), with paused left to the owner",
    async () => {
      const list = await rest(app, key, "GET", "/api/v1/watches");
      const byId = new Map<number, WatchRecord>(list.body.items.map((w: WatchRecord) => [w.id, w]));
      for (const id of [oldest, middle]) {
        const w = byId.get(id)!;
        assert.equal(w.status, "paused_plan_limit");
        assert.equal(w.paused, false, "paused stays the owner's switch");
        assert.match(w.status_reason!, /Free plan keeps 1 watch on/);
      }
      assert.equal(byId.get(newest)!.status, "active");
      assert.equal(byId.get(newest)!.status_reason, null);
      const one = await rest(app, key, "GET", `/api/v1/watches/${oldest}`);
      assert.equal(one.body.status, "paused_plan_limit");
    },
  );

  await t.step("MCP list_watches and the OpenAPI document carry the same status", async () => {
    const items = await mcpList(app, key);
    assert.deepEqual(items.map((w) => w.status), [
      "paused_plan_limit",
      "paused_plan_limit",
      "active",
    ]);
    const doc = openApiDocument() as {
      components: { schemas: Record<string, { properties: Record<string, { enum?: string[] }> }> };
    };
    assert.deepEqual(doc.components.schemas.Watch.properties.status.enum, [
      "active",
      "paused",
      "paused_plan_limit",
    ]);
  });

  await t.step("the dashboard says why", async () => {
    const { text } = await browser.get("/account");
    assert.match(text, new RegExp(`id="watch-${oldest}-plan-limit"`));
    assert.match(text, new RegExp(`id="watch-${middle}-plan-limit"`));
    assert.doesNotMatch(text, new RegExp(`id="watch-${newest}-plan-limit"`));
    assert.match(text, /Paused: over your plan's\s+watch limit/);
    assert.match(text, /\(paused by the plan's limit\)/);
  });

  await t.step("pausing the newest hands its place to the next newest", async () => {
    assert.equal(
      (await rest(app, key, "PATCH", `/api/v1/watches/${newest}`, { paused: true })).status,
      200,
    );
    const list = await rest(app, key, "GET", "/api/v1/watches");
    assert.deepEqual(list.body.items.map((w: WatchRecord) => w.status), [
      "paused_plan_limit",
      "active",
      "paused",
    ]);
    await rest(app, key, "PATCH", `/api/v1/watches/${newest}`, { paused: false });
  });

  await t.step("an upgrade resumes them all", async () => {
    await setPlan("pro");
    mails.length = 0;
    await importOne();
    await worker.runOnce();
    assert.deepEqual(mailedWatches(), ["Middle", "Newest", "Oldest"]);
    const list = await rest(app, key, "GET", "/api/v1/watches");
    assert.deepEqual(list.body.items.map((w: WatchRecord) => w.status), [
      "active",
      "active",
      "active",
    ]);
  });
});
