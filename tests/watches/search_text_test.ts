/**
 * A watch's q is searched as the list's q: created with operators PostgreSQL's parser nests (a
 * run of dashes), it is stored, and its new matches after an import are the rows the list finds
 * for the same q.
 */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { loadFixture, makeKey, testApp } from "../helpers/app.ts";
import { importLines } from "../../src/ingest/import.ts";
import { opportunityLine, sendJson } from "../helpers/watches.ts";

dbTest("a watch whose q has a run of dashes matches what the list finds for it", async (db) => {
  const app = testApp(db);
  await loadFixture(db.sql);
  const { key } = await makeKey(db.sql, "business");
  const cases = [
    [`invoice ${"- ".repeat(40)}polite`, "invoice - polite"],
    [`invoice ${"-".repeat(60)}polite`, "invoice -polite"],
  ];
  for (const [q, stored] of cases) {
    const made = await sendJson(app, "POST", "/api/v1/watches", key, {
      name: "Invoices, not polite ones",
      query: { q, online_only: false },
      deliveries: { feed: true },
    });
    assert.equal(made.status, 201, q);
    const watch = await made.json();
    assert.equal(watch.query.q, stored, "stored as it is searched");

    const fresh = [
      ["w-chaser", "Invoice chaser for plumbers"],
      ["w-polite", "Polite invoice nudges"],
      ["w-other", "Calendar sync for dentists"],
    ].map(([id, title]) => [`${id}-${watch.id}`, title]);
    await importLines(db.sql, fresh.map(([id, title]) => opportunityLine(id, { title })));
    const [batch] = await db.sql<{ ids: string[] }[]>`
      select array(
        select o.external_id from unnest(b.opportunity_ids) u(id)
        join opportunities o on o.id = u.id order by o.external_id) as ids
      from watch_batches b where b.watch_id = ${watch.id}`;

    const listed = await app.get(
      `/api/v1/opportunities?online_only=false&page_size=100&q=${encodeURIComponent(q)}`,
      key,
    );
    assert.equal(listed.status, 200);
    const items: { id: number }[] = (await listed.json()).items;
    const external = await db.sql<{ external_id: string }[]>`
      select external_id from opportunities
      where id = any(${items.map((i) => i.id)}) and external_id = any(${fresh.map((f) => f[0])})
      order by external_id`;
    assert.deepEqual(batch?.ids, [fresh[0][0]], "the new invoice row, not the polite one");
    assert.deepEqual(batch?.ids, external.map((r) => r.external_id), "the list's rows");
  }
});
