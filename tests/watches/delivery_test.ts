/**
 * New matches after an import, delivered as signed webhooks to a real receiver on loopback:
 * exactly one event per import carrying each new match once, verified with the
 * standardwebhooks library; nothing for an import that changes nothing; a score that rises
 * into min_score counts as new; the matching answers as the list endpoint does.
 */
import assert from "node:assert/strict";
import { Webhook } from "standardwebhooks";
import { dbTest } from "../helpers/db.ts";
import { loadFixture, makeKey, testApp } from "../helpers/app.ts";
import { importLines } from "../../src/ingest/import.ts";
import { createDeliveryWorker } from "../../src/watches/worker.ts";
import { TESTS_PER_MINUTE } from "../../src/watches/webhook.ts";
import { countOpportunities, listOpportunityPage } from "../../src/catalog/lists/opportunities.ts";
import { OpportunityQuerySchema } from "../../src/catalog/schemas.ts";
import {
  changedFixtureLine,
  opportunityLine,
  sendJson,
  startReceiver,
} from "../helpers/watches.ts";

const ENV = { WATCH_WEBHOOK_ALLOW: "127.0.0.1" };
const POLICY = { allow: ["127.0.0.1"] };

dbTest("After an import each new match reaches the webhook once, signed", async (db) => {
  const receiver = startReceiver();
  try {
    await loadFixture(db.sql);
    const app = testApp(db, ENV);
    const { key } = await makeKey(db.sql, "pro");
    const created = await (await sendJson(app, "POST", "/api/v1/watches", key, {
      name: "Good ones",
      query: { min_score: 60 },
      deliveries: { webhook: { url: receiver.url } },
    })).json();
    const worker = createDeliveryWorker({
      sql: db.sql,
      publicBaseUrl: "https://oppintel.example",
      webhook: { urlPolicy: POLICY },
    });

    // The watch starts from now: the fixture's old matches are never sent.
    assert.deepEqual(await worker.runOnce(), { delivered: 0, retried: 0, dead: 0, cancelled: 0 });

    const lines = [
      opportunityLine("new-high", { title: "Shiny new scheduling tool", score: 80 }),
      opportunityLine("new-low", { title: "Dull new thing", score: 30 }),
      changedFixtureLine("opp-6", { score: 65 }), // rises from 15 into min_score 60
      // Matched before the watch was created and still matches: changed, but not new for it.
      changedFixtureLine("opp-1", { score: 92 }),
    ];
    await importLines(db.sql, lines);
    const summary = await worker.runOnce();
    assert.equal(summary.delivered, 1);
    assert.equal(receiver.received.length, 1, "one event for one import");

    const [got] = receiver.received;
    const payload = new Webhook(created.webhook_secret).verify(got.body, got.headers) as {
      type: string;
      data: { watch: { id: number }; opportunities: { id: number; title: string }[] };
    };
    assert.equal(payload.type, "watch.matches");
    assert.equal(payload.data.watch.id, created.id);
    const ids = await db.sql<{ external_id: string; id: number }[]>`
      select external_id, id from opportunities`;
    const byExternal = Object.fromEntries(ids.map((r) => [r.external_id, r.id]));
    assert.deepEqual(
      payload.data.opportunities.map((o) => o.id).sort((a, b) => a - b),
      [byExternal["opp-6"], byExternal["new-high"]].sort((a, b) => a - b),
    );
    assert.match(got.headers["webhook-id"], /^msg_\d+$/);
    assert.throws(() => new Webhook(created.webhook_secret).verify(got.body + " ", got.headers));

    // The same file again changes nothing and sends nothing.
    await importLines(db.sql, lines);
    assert.equal((await worker.runOnce()).delivered, 0);
    // A further change of an opportunity already delivered is not new for the watch.
    await importLines(db.sql, [changedFixtureLine("opp-6", { score: 70 })]);
    assert.equal((await worker.runOnce()).delivered, 0);
    assert.equal(receiver.received.length, 1);

    const deliveries = await (await sendJson(
      app,
      "GET",
      `/api/v1/watches/${created.id}/deliveries`,
      key,
    )).json();
    assert.equal(deliveries.items.length, 1);
    assert.equal(deliveries.items[0].ok, true);
    assert.equal(deliveries.items[0].status_code, 200);
    assert.equal(deliveries.items[0].event_id, got.headers["webhook-id"]);
  } finally {
    await receiver.close();
  }
});

dbTest("POST /api/v1/watches/{id}/test sends a signed sample event, uncharged", async (db) => {
  const receiver = startReceiver(() => new Response("nope", { status: 503 }));
  try {
    const app = testApp(db, ENV);
    const { key } = await makeKey(db.sql, "pro");
    const created = await (await sendJson(app, "POST", "/api/v1/watches", key, {
      name: "T",
      deliveries: { webhook: { url: receiver.url } },
    })).json();
    const res = await sendJson(app, "POST", `/api/v1/watches/${created.id}/test`, key);
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.equal(body.ok, false);
    assert.equal(body.status_code, 503);
    assert.equal(receiver.received.length, 1);
    const event = new Webhook(created.webhook_secret).verify(
      receiver.received[0].body,
      receiver.received[0].headers,
    ) as { type: string };
    assert.equal(event.type, "watch.test");
    assert.equal(res.headers.get("x-quota-used"), "0");
    const feedOnly = await (await sendJson(app, "POST", "/api/v1/watches", key, {
      name: "F",
      deliveries: { feed: true },
    })).json();
    const none = await sendJson(app, "POST", `/api/v1/watches/${feedOnly.id}/test`, key);
    assert.equal(none.status, 422);
  } finally {
    await receiver.close();
  }
});

dbTest("Test events: a few a minute per account, and none on Free", async (db) => {
  const receiver = startReceiver();
  try {
    const app = testApp(db, ENV);
    const { key, accountId } = await makeKey(db.sql, "pro");
    const created = await (await sendJson(app, "POST", "/api/v1/watches", key, {
      name: "T",
      deliveries: { webhook: { url: receiver.url } },
    })).json();
    const test = () => sendJson(app, "POST", `/api/v1/watches/${created.id}/test`, key);
    for (let i = 0; i < TESTS_PER_MINUTE; i++) {
      const res = await test();
      assert.equal(res.status, 200);
      await res.body?.cancel();
    }
    const limited = await test();
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get("retry-after"), "60");
    const body = await limited.json();
    assert.equal(body.error, "rate_limited");
    assert.equal(limited.headers.get("x-quota-used"), "0");
    assert.equal(receiver.received.length, TESTS_PER_MINUTE, "nothing sent past the limit");
    // An account moved to Free keeps its watch, but its webhook sends nothing.
    await db.sql`update accounts set plan = 'free' where id = ${accountId}`;
    await db.sql`delete from web_rate_limits`;
    const free = await test();
    assert.equal(free.status, 403);
    assert.equal((await free.json()).error, "plan_required");
    assert.equal(receiver.received.length, TESTS_PER_MINUTE);
  } finally {
    await receiver.close();
  }
});

dbTest("The matching gives the list endpoint's answers for every kind of filter", async (db) => {
  await loadFixture(db.sql);
  const { accountId } = await makeKey(db.sql, "business");
  const queries: Record<string, unknown>[] = [
    {},
    { online_only: false },
    { q: "invoice" },
    { q: "new -dull" },
    { q: '"scheduling tool" OR quarantine' },
    { q: "ai" },
    { platform: "REDDIT" },
    { channel: "SaaS" },
    { min_score: 50, recommendation: "Build" },
    { category: "developer-tools", online_only: false },
    { q: "--" },
  ];
  for (const [i, query] of queries.entries()) {
    await db.sql`
      insert into watches (account_id, slot, name, query, q, platform, channel, min_score,
        recommendation, category, online_only, email_token, feed_token_hash)
      values (${accountId}, ${i + 1}, ${`w${i}`}, ${db.sql.json(query as never)},
        ${(query.q as string) ?? null}, ${(query.platform as string) ?? null},
        ${(query.channel as string) ?? null}, ${(query.min_score as number) ?? 0},
        ${(query.recommendation as string) ?? null}, ${(query.category as string) ?? null},
        ${(query.online_only as boolean) ?? true}, ${`t${i}`}, ${
      i.toString(16).padStart(64, "0")
    })`;
  }
  const titles = [
    "Shiny new scheduling tool",
    "Dull new invoice thing",
    "AI invoice chaser",
    "Email triage for SaaS founders",
    "Aim trainer",
  ];
  const lines = titles.flatMap((title, i) => [
    opportunityLine(`n${i}a`, {
      title,
      score: 40 + i * 10,
      platform: "reddit",
      channel_name: "SaaS",
    }),
    opportunityLine(`n${i}b`, {
      title,
      theme: "invoice-chasing",
      score: 90 - i * 10,
      recommendation: "Build",
      platform: "Reddit",
      is_online_deliverable: i % 2 === 0,
    }),
  ]);
  // Changed fixture rows: one whose change moves it into no query (41 crosses no min_score),
  // one whose title gains words, one whose title loses them, one that goes online.
  lines.push(
    changedFixtureLine("opp-4", { score: 41 }),
    changedFixtureLine("opp-1", { title: "AI invoice dashboard for flaky tests" }),
    changedFixtureLine("opp-3", { title: "Polite reminder autopilot for freelancers" }),
    changedFixtureLine("opp-6", { is_online_deliverable: false, score: 55 }),
  );
  const watches = await db.sql<{ id: number; query: Record<string, unknown> }[]>`
    select id, query from watches order by id`;
  const listIds = async (query: Record<string, unknown>) => {
    const parsed = OpportunityQuerySchema.parse({ ...query, page_size: 100 });
    assert.ok(await countOpportunities(db.sql, parsed) <= 100);
    return (await listOpportunityPage(db.sql, parsed)).map((o) => o.id);
  };
  const before = new Map<number, Set<number>>();
  for (const w of watches) before.set(w.id, new Set(await listIds(w.query)));
  await importLines(db.sql, lines);
  let nonEmpty = 0;
  let changedRows = 0;
  for (const w of watches) {
    // New for a watch: listed by its query now, not listed before the import.
    const expected = (await listIds(w.query)).filter((id) => !before.get(w.id)!.has(id))
      .sort((a, b) => a - b);
    const matched = (await db.sql<{ id: number }[]>`
      select unnest(opportunity_ids) as id from watch_batches where watch_id = ${w.id}`)
      .map((r) => r.id).sort((a, b) => a - b);
    assert.deepEqual(matched, expected, JSON.stringify(w.query));
    if (expected.length) nonEmpty++;
    const [{ n }] = await db.sql<{ n: number }[]>`
      select count(*)::int as n from opportunities
      where id = any(${matched}::int[]) and external_id like 'opp-%'`;
    changedRows += n;
  }
  assert.ok(changedRows >= 2, "changed rows that newly match are among the answers");
  assert.ok(nonEmpty >= 8, "most queries match something, so the comparison means something");
});
