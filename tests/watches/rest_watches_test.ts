/**
 * REST management of watches: POST/GET/PATCH/DELETE /api/v1/watches, validation by the list
 * query's schema (422 with dotted details), plan limits, ownership, and no quota charged.
 */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { makeKey, testApp, usedOf } from "../helpers/app.ts";
import { sendJson } from "../helpers/watches.ts";

const ENV = { WATCH_WEBHOOK_ALLOW: "127.0.0.1" };

const send = sendJson;

dbTest("POST /api/v1/watches creates a watch, shows its secrets once, lists it", async (db) => {
  const app = testApp(db, ENV);
  const { key, accountId } = await makeKey(db.sql, "pro");
  const created = await send(app, "POST", "/api/v1/watches", key, {
    name: "Invoices",
    query: { q: "invoice", min_score: 70, recommendation: "build" },
    deliveries: { webhook: { url: "http://127.0.0.1:9/hook" }, email: true, feed: true },
  });
  assert.equal(created.status, 201);
  assert.match(created.headers.get("content-type")!, /application\/json/);
  const watch = await created.json();
  assert.equal(watch.name, "Invoices");
  assert.deepEqual(watch.query, {
    q: "invoice",
    min_score: 70,
    recommendation: "Build",
    online_only: true,
  });
  assert.match(watch.webhook_secret, /^whsec_[A-Za-z0-9+/=]{40,}$/);
  assert.match(watch.feed_url, /^https:\/\/oppintel\.example\/feeds\/watch\?token=oi_feed_/);
  assert.deepEqual(watch.deliveries, {
    webhook: { url: "http://127.0.0.1:9/hook", disabled_at: null, failing_since: null },
    email: true,
    feed: true,
  });

  const list = await (await send(app, "GET", "/api/v1/watches", key)).json();
  assert.equal(list.items.length, 1);
  assert.equal(list.items[0].webhook_secret, undefined, "the secret is shown only once");
  assert.equal(list.items[0].feed_url, undefined);
  const one = await send(app, "GET", `/api/v1/watches/${watch.id}`, key);
  assert.equal(one.status, 200);
  assert.equal((await one.json()).id, watch.id);
  const [stored] = await db.sql`select feed_token_hash from watches where id = ${watch.id}`;
  const token = new URL(watch.feed_url).searchParams.get("token");
  assert.notEqual(stored.feed_token_hash, token, "the feed token is stored as a digest");
  assert.match(stored.feed_token_hash, /^[0-9a-f]{64}$/);
  assert.equal(await usedOf(db.sql, accountId), 0, "managing watches costs no quota");
});

dbTest("A query string is accepted as the query, validated like the list endpoint", async (db) => {
  const app = testApp(db, ENV);
  const { key } = await makeKey(db.sql, "pro");
  const res = await send(app, "POST", "/api/v1/watches", key, {
    name: "CI",
    query: "q=flaky&platform=reddit&online_only=false&page=3",
    deliveries: { feed: true },
  });
  assert.equal(res.status, 201);
  assert.deepEqual((await res.json()).query, {
    q: "flaky",
    platform: "reddit",
    min_score: 0,
    online_only: false,
  });
});

dbTest("POST /api/v1/watches answers 422 with every problem named by its path", async (db, t) => {
  const app = testApp(db, ENV);
  const { key, accountId } = await makeKey(db.sql, "pro");
  const cases: [string, unknown, string][] = [
    [
      "bad min_score",
      { name: "x", query: { min_score: 101 }, deliveries: { feed: true } },
      "query.min_score",
    ],
    [
      "query string",
      { name: "x", query: "min_score=abc", deliveries: { feed: true } },
      "query.min_score",
    ],
    ["no delivery", { name: "x", deliveries: {} }, "deliveries"],
    ["empty name", { name: " ", deliveries: { feed: true } }, "name"],
    ["missing deliveries", { name: "x" }, "deliveries"],
    ["bad email type", { name: "x", deliveries: { email: "yes" } }, "deliveries.email"],
    ["not JSON", "{oops", "body"],
    ["NUL in name", { name: "a\u0000b", deliveries: { feed: true } }, "name"],
    [
      "ftp url",
      { name: "x", deliveries: { webhook: { url: "ftp://example.com/" } } },
      "deliveries.webhook.url",
    ],
  ];
  for (const [name, body, param] of cases) {
    await t.step(name, async () => {
      const res = await send(app, "POST", "/api/v1/watches", key, body);
      assert.equal(res.status, 422);
      const error = await res.json();
      assert.equal(error.error, "invalid_parameter");
      assert.ok(
        error.details.some((d: { param: string }) => d.param === param),
        JSON.stringify(error.details),
      );
    });
  }
  const [{ count }] = await db.sql`select count(*)::int as count from watches`;
  assert.equal(count, 0);
  assert.equal(await usedOf(db.sql, accountId), 0);
});

dbTest("Plans: Free keeps 1 watch without webhooks, Pro 10", async (db) => {
  const app = testApp(db, ENV);
  const free = await makeKey(db.sql, "free");
  const webhook = await send(app, "POST", "/api/v1/watches", free.key, {
    name: "x",
    deliveries: { webhook: { url: "http://127.0.0.1:9/" } },
  });
  assert.equal(webhook.status, 403);
  assert.equal((await webhook.json()).error, "plan_required");
  const feed = { name: "x", deliveries: { feed: true, email: true } };
  assert.equal((await send(app, "POST", "/api/v1/watches", free.key, feed)).status, 201);
  const second = await send(app, "POST", "/api/v1/watches", free.key, feed);
  assert.equal(second.status, 403);
  assert.deepEqual(
    { ...(await second.json()), message: undefined, request_id: undefined },
    {
      error: "watch_limit_reached",
      limit: 1,
      current_plan: "free",
      message: undefined,
      request_id: undefined,
    },
  );

  const pro = await makeKey(db.sql, "pro");
  // Concurrent creations cannot pass the limit together.
  const answers = await Promise.all(
    Array.from({ length: 12 }, () => send(app, "POST", "/api/v1/watches", pro.key, feed)),
  );
  assert.equal(answers.filter((r) => r.status === 201).length, 10);
  assert.equal(answers.filter((r) => r.status === 403).length, 2);
  await Promise.all(answers.map((r) => r.body?.cancel()));
});

dbTest("PATCH, DELETE and ownership of /api/v1/watches/{id}", async (db) => {
  const app = testApp(db, ENV);
  const { key } = await makeKey(db.sql, "pro");
  const other = await makeKey(db.sql, "pro");
  const watch = await (await send(app, "POST", "/api/v1/watches", key, {
    name: "x",
    deliveries: { feed: true },
  })).json();
  const path = `/api/v1/watches/${watch.id}`;

  assert.equal((await send(app, "GET", path, other.key)).status, 404, "another account's watch");
  assert.equal((await send(app, "DELETE", path, other.key)).status, 404);
  assert.equal((await send(app, "GET", "/api/v1/watches/999999", key)).status, 404);
  assert.equal((await send(app, "GET", "/api/v1/watches/abc", key)).status, 422);
  assert.equal((await send(app, "GET", path, undefined)).status, 401);
  const put = await send(app, "PUT", path, key, {});
  assert.equal(put.status, 405);
  assert.equal(put.headers.get("allow"), "GET, HEAD, PATCH, DELETE");

  const patched = await send(app, "PATCH", path, key, {
    name: "renamed",
    query: { category: "developer-tools" },
    paused: true,
    deliveries: { webhook: { url: "http://127.0.0.1:9/x" } },
  });
  assert.equal(patched.status, 200);
  const body = await patched.json();
  assert.equal(body.name, "renamed");
  assert.equal(body.paused, true);
  assert.equal(body.query.category, "developer-tools");
  assert.match(body.webhook_secret, /^whsec_/, "a new webhook gets a secret, shown once");
  const rotated = await (await send(app, "PATCH", path, key, { rotate_webhook_secret: true }))
    .json();
  assert.notEqual(rotated.webhook_secret, body.webhook_secret);
  const feed = await (await send(app, "PATCH", path, key, { rotate_feed_token: true })).json();
  assert.match(feed.feed_url, /oi_feed_/);
  const bad = await send(app, "PATCH", path, key, { query: { min_score: -1 } });
  assert.equal(bad.status, 422);
  assert.equal((await bad.json()).details[0].param, "query.min_score");
  // A watch keeps at least one delivery, as at creation.
  const [stored] = await db.sql`select * from watches where id = ${watch.id}`;
  const none = await send(app, "PATCH", path, key, {
    deliveries: { webhook: null, feed: false, email: false },
  });
  assert.equal(none.status, 422);
  assert.deepEqual((await none.json()).details, [
    { param: "deliveries", message: "must keep at least one of webhook, email, feed" },
  ]);
  assert.deepEqual((await db.sql`select * from watches where id = ${watch.id}`)[0], stored);
  const swapped = await send(app, "PATCH", path, key, {
    deliveries: { webhook: null, feed: false, email: true },
  });
  assert.equal(swapped.status, 200);
  assert.deepEqual((await swapped.json()).deliveries, { webhook: null, email: true, feed: false });

  const deleted = await send(app, "DELETE", path, key);
  assert.equal(deleted.status, 204);
  assert.equal(deleted.headers.get("access-control-allow-origin"), "*");
  assert.equal((await send(app, "GET", path, key)).status, 404);
});

dbTest("OPTIONS on a watch path lists the write methods", async (db) => {
  const app = testApp(db, ENV);
  const res = await send(app, "OPTIONS", "/api/v1/watches", undefined);
  assert.equal(res.status, 204);
  assert.match(res.headers.get("access-control-allow-methods")!, /PATCH/);
});

dbTest("Watch answers validate against their OpenAPI schemas", async (db) => {
  const app = testApp(db, ENV);
  const { key } = await makeKey(db.sql, "pro");
  const doc = await (await app.get("/api/v1/openapi.json")).json();
  const ajv = new Ajv2020({ strict: false });
  addFormats.default(ajv);
  for (const [name, schema] of Object.entries(doc.components.schemas)) {
    ajv.addSchema(schema as object, `#/components/schemas/${name}`);
  }
  const check = (ref: string, body: unknown) => {
    const validate = ajv.getSchema(`#/components/schemas/${ref}`)!;
    assert.ok(validate(body), JSON.stringify(validate.errors));
  };
  const created = await send(app, "POST", "/api/v1/watches", key, {
    name: "Documented",
    query: { q: "invoice" },
    deliveries: { webhook: { url: "http://127.0.0.1:9/" }, feed: true },
  });
  assert.ok(doc.paths["/api/v1/watches"].post.responses["201"]);
  const watch = await created.json();
  check("WatchWithSecrets", watch);
  check("WatchList", await (await send(app, "GET", "/api/v1/watches", key)).json());
  check("Watch", await (await send(app, "GET", `/api/v1/watches/${watch.id}`, key)).json());
  check(
    "DeliveryList",
    await (await send(app, "GET", `/api/v1/watches/${watch.id}/deliveries`, key)).json(),
  );
});

dbTest(
  "A watch kept from a paid plan can still be edited on Free, its webhook left as it is",
  async (db) => {
    const app = testApp(db, ENV);
    const { key, accountId } = await makeKey(db.sql, "pro");
    const url = "http://127.0.0.1:9/hook";
    const created = await (await sendJson(app, "POST", "/api/v1/watches", key, {
      name: "Kept",
      deliveries: { webhook: { url } },
    })).json();
    await db.sql`update accounts set plan = 'free' where id = ${accountId}`;
    const path = `/api/v1/watches/${created.id}`;
    // What the dashboard's edit form sends: every field, the webhook URL unchanged.
    const same = await sendJson(app, "PATCH", path, key, {
      name: "Renamed",
      deliveries: { webhook: { url } },
    });
    assert.equal(same.status, 200, await same.clone().text());
    assert.equal((await same.json()).name, "Renamed");
    const other = await sendJson(app, "PATCH", path, key, {
      deliveries: { webhook: { url: "http://127.0.0.1:10/hook" } },
    });
    assert.equal(other.status, 403);
    assert.equal((await other.json()).error, "plan_required");
    const [row] = await db.sql`select name, webhook_url from watches where id = ${created.id}`;
    assert.deepEqual({ ...row }, { name: "Renamed", webhook_url: url });
  },
);
