/**
 * Watches on themes: a watch with theme_status follows the status changes of its category's
 * themes, delivered by signed webhook, e-mail digest and feed, exactly once per change.
 */
import assert from "node:assert/strict";
import { Webhook } from "standardwebhooks";
import { dbTest } from "../helpers/db.ts";
import { BASE, loadFixture, makeKey, testApp } from "../helpers/app.ts";
import { importLines } from "../../src/ingest/import.ts";
import { createDeliveryWorker } from "../../src/watches/worker.ts";
import type { WatchMail } from "../../src/watches/digest.ts";
import { sendJson, startReceiver } from "../helpers/watches.ts";
import { flatWeeks, weeklyLines } from "../helpers/trends.ts";

const ENV = { WATCH_WEBHOOK_ALLOW: "127.0.0.1" };
const POLICY = { allow: ["127.0.0.1"] };

const STEADY = flatWeeks(60, 100);
const RISING = [...flatWeeks(56, 100), 200, 220, 240, 260];
const DECLINING = [...flatWeeks(56, 100), 50, 45, 40, 35];

dbTest(
  "a theme watch delivers each status change once, by webhook, e-mail and feed",
  async (db) => {
    const receiver = startReceiver();
    try {
      await loadFixture(db.sql);
      const app = testApp(db, ENV);
      const { key } = await makeKey(db.sql, "pro");
      const created = await (await sendJson(app, "POST", "/api/v1/watches", key, {
        name: "Small business turning up",
        query: { category: "small-business" },
        deliveries: { webhook: { url: receiver.url }, email: true, feed: true },
        theme_status: "rising",
      })).json();
      assert.equal(created.theme_status, "rising");
      const mails: WatchMail[] = [];
      const worker = createDeliveryWorker({
        sql: db.sql,
        publicBaseUrl: "https://oppintel.example",
        webhook: { urlPolicy: POLICY },
        mailer: { send: (mail) => Promise.resolve(void mails.push(mail)) },
      });
      const run = async () => (await worker.runOnce()).delivered;

      // A first status is not a change; a steady theme stays steady: nothing.
      await importLines(db.sql, [
        ...weeklyLines("invoice-chasing", STEADY),
        ...weeklyLines("flaky-ci", STEADY),
      ]);
      assert.equal(await run(), 0);

      // invoice-chasing (small-business) turns rising: one event, one mail.
      await importLines(db.sql, weeklyLines("invoice-chasing", RISING));
      assert.equal(await run(), 2);
      assert.equal(receiver.received.length, 1);
      const event = new Webhook(created.webhook_secret)
        .verify(receiver.received[0].body, receiver.received[0].headers) as {
          type: string;
          data: { watch: { id: number }; changes: Record<string, unknown>[] };
        };
      assert.equal(event.type, "watch.theme_status");
      assert.equal(event.data.watch.id, created.id);
      assert.deepEqual(
        event.data.changes.map((
          c,
        ) => [(c.theme as { slug: string }).slug, c.from_status, c.to_status]),
        [["invoice-chasing", "steady", "rising"]],
      );
      assert.equal(mails.length, 1);
      assert.match(mails[0].subject, /1 theme status change for "Small business turning up"/);
      assert.match(mails[0].text, /Chasing late invoices \(small-business\): steady -> rising/);

      // The same data again: no change, nothing more.
      await importLines(db.sql, weeklyLines("invoice-chasing", RISING));
      assert.equal(await run(), 0);
      // Another category's theme turning rising, and this theme turning declining: not followed.
      await importLines(db.sql, weeklyLines("flaky-ci", RISING));
      await importLines(db.sql, weeklyLines("invoice-chasing", DECLINING));
      assert.equal(await run(), 0);
      // Rising again is a new change: delivered once more.
      await importLines(db.sql, weeklyLines("invoice-chasing", RISING));
      assert.equal(await run(), 2);
      assert.equal(receiver.received.length, 2);
      assert.equal(mails.length, 2);

      // The feed lists both changes to rising, newest first.
      const feed = await app.handler(
        new Request(created.feed_url.replace("https://oppintel.example", BASE)),
      );
      const atom = await feed.text();
      const titles = [...atom.matchAll(/<title>([^<]*)<\/title>/g)].map((m) => m[1]);
      assert.deepEqual(titles.slice(1), [
        "Chasing late invoices: declining -&gt; rising",
        "Chasing late invoices: steady -&gt; rising",
      ]);
    } finally {
      await receiver.close();
    }
  },
);

dbTest("theme_status: any follows every change of every theme; bad values are 422", async (db) => {
  await loadFixture(db.sql);
  const app = testApp(db, ENV);
  const { key } = await makeKey(db.sql, "free");
  const bad = await sendJson(app, "POST", "/api/v1/watches", key, {
    name: "x",
    deliveries: { email: true },
    theme_status: "booming",
  });
  assert.equal(bad.status, 422);
  assert.equal((await bad.json()).details[0].param, "theme_status");
  const made = await (await sendJson(app, "POST", "/api/v1/watches", key, {
    name: "Everything",
    deliveries: { email: true },
    theme_status: "any",
  })).json();
  const mails: WatchMail[] = [];
  const worker = createDeliveryWorker({
    sql: db.sql,
    publicBaseUrl: "https://oppintel.example",
    mailer: { send: (mail) => Promise.resolve(void mails.push(mail)) },
  });
  await importLines(db.sql, [
    ...weeklyLines("invoice-chasing", STEADY),
    ...weeklyLines("flaky-ci", STEADY),
  ]);
  await importLines(db.sql, [
    ...weeklyLines("invoice-chasing", RISING),
    ...weeklyLines("flaky-ci", DECLINING),
  ]);
  assert.equal((await worker.runOnce()).delivered, 1);
  assert.equal(mails.length, 1);
  assert.match(mails[0].subject, /^2 theme status changes/);
  // PATCH null stops following: the next change reaches nobody.
  const patched = await sendJson(app, "PATCH", `/api/v1/watches/${made.id}`, key, {
    theme_status: null,
  });
  assert.equal(patched.status, 200);
  assert.equal((await patched.json()).theme_status, undefined);
  await importLines(db.sql, weeklyLines("invoice-chasing", DECLINING));
  assert.equal((await worker.runOnce()).delivered, 0);
});

dbTest("theme_status with query.theme follows that theme alone", async (db) => {
  await loadFixture(db.sql);
  const app = testApp(db, ENV);
  const { key } = await makeKey(db.sql, "pro");
  const made = await sendJson(app, "POST", "/api/v1/watches", key, {
    name: "Flaky CI",
    query: { theme: "flaky-ci" },
    deliveries: { feed: true },
    theme_status: "any",
  });
  assert.equal(made.status, 201);
  const { id } = await made.json();
  await importLines(db.sql, [
    ...weeklyLines("flaky-ci", STEADY),
    ...weeklyLines("legacy-docs", STEADY),
  ]);
  // legacy-docs shares flaky-ci's category: only flaky-ci's change is the watch's.
  await importLines(db.sql, [
    ...weeklyLines("flaky-ci", RISING),
    ...weeklyLines("legacy-docs", RISING),
  ]);
  const rows = await db.sql<{ slug: string }[]>`
    select t.slug from theme_watch_batches b, unnest(b.change_ids) u(id)
    join theme_status_changes s on s.id = u.id join themes t on t.id = s.theme_id
    where b.watch_id = ${id}`;
  assert.deepEqual(rows.map((r) => r.slug), ["flaky-ci"]);
});
