/**
 * The list index (src/catalog/lists/list_index.ts) beyond the sweep of list_sweep_test.ts: the walk
 * of the newest order that large lists take, the holder's loads (once at a time, never an older
 * version, a failure retried later, a catalogue too large left alone), and a page whose row was
 * deleted since the index was read, which PostgreSQL answers instead.
 */
import assert from "node:assert/strict";
import { createContent } from "../../src/catalog/content.ts";
import { readDataVersion } from "../../src/catalog/common.ts";
import { type ListIndex, loadListIndex, newestOrder } from "../../src/catalog/lists/list_index.ts";
import { createListIndexes } from "../../src/catalog/lists/list_index_holder.ts";
import { indexPage } from "../../src/catalog/lists/list_index_page.ts";
import { OpportunityQuerySchema } from "../../src/catalog/schemas.ts";
import { dbTest } from "../helpers/db.ts";
import { random, valuesOf } from "../helpers/sweep_values.ts";

dbTest("the newest order's walk finds the pages its sort finds", async (db) => {
  const sql = db.sql;
  const index = await loadListIndex(sql) as ListIndex;
  assert.equal(index.rows, 600);
  const values = await valuesOf(sql);
  const next = random(7);
  const pick = <T>(list: T[]): T => list[Math.floor(next() * list.length)];
  let compared = 0;
  for (let i = 0; i < 120; i++) {
    const base = {
      sort: "newest",
      platform: next() < 0.5 ? pick(values.platforms) : undefined,
      theme: next() < 0.2 ? pick(values.themes) : undefined,
      min_score: Math.floor(next() * 80),
      max_tech_difficulty: next() < 0.3 ? Math.floor(next() * 11) : undefined,
      page_size: pick([1, 5, 20]),
    };
    const query = OpportunityQuerySchema.parse({ ...base, page: 1 + Math.floor(next() * 6) });
    // Walked (nothing sorted) and sorted (everything), then reference order by SQL.
    const walked = indexPage(index, query, 0)!;
    const sorted = indexPage(index, query)!;
    assert.deepEqual(walked, sorted, JSON.stringify(query));
    const rows = await sql<{ id: number }[]>`
      select id from opportunities o
      where (${!query.online_only} or o.is_online_deliverable)
        and (${query.platform ?? null}::text is null or lower(o.platform) = lower(${
      query.platform ?? null
    }))
        and (${query.theme ?? null}::text is null
          or o.theme_id in (select id from themes where slug = ${query.theme ?? null}))
        and o.score >= ${query.min_score}
        and o.tech_difficulty <= ${query.max_tech_difficulty ?? 10}
      order by o.created_at desc, o.id desc`;
    const from = (query.page - 1) * query.page_size;
    assert.equal(sorted.total, rows.length);
    assert.deepEqual(
      sorted.ids,
      rows.slice(from, from + query.page_size + 1).map((r) => r.id),
      JSON.stringify(query),
    );
    if (rows.length > from) compared++;
  }
  assert.ok(compared >= 30, `only ${compared} non-empty pages`);
  assert.equal(await loadListIndex(sql, 599), "too_large");
}, { seed: { opportunities: 600 } });

dbTest("a row deleted after the index was read sends its page to PostgreSQL", async (db) => {
  const sql = db.sql;
  const content = createContent(sql, { publicBaseUrl: "https://x.test" }, {
    maxEntries: 0,
    listIndex: "wait",
  });
  const version = await readDataVersion(sql);
  const query = OpportunityQuerySchema.parse({ page_size: 5, online_only: false });
  const first = await content.listOpportunities(version, query);
  assert.equal(content.listIndex()?.answered, 1);
  const gone = first.items[2].id;
  await sql`update blog_posts set related_opportunity_id = null
    where related_opportunity_id = ${gone}`;
  await sql`delete from evidence_quotes where opportunity_id = ${gone}`;
  await sql`delete from opportunities where id = ${gone}`;
  const after = await content.listOpportunities(version, query);
  assert.equal(after.total, first.total - 1);
  assert.ok(!after.items.some((o) => o.id === gone));
  assert.deepEqual(after.items.slice(0, 2), first.items.slice(0, 2));
  assert.equal(content.listIndex()?.passed, 1);
}, { seed: { opportunities: 200 } });

Deno.test("the holder loads one index at a time, never for an older version", async () => {
  const loads: number[] = [];
  let release!: () => void;
  let gate = new Promise<void>((resolve) => release = resolve);
  let current = 3;
  let fail = false;
  const fake = (version: number) => ({ version, rows: version }) as unknown as ListIndex;
  const lists = createListIndexes(async (asked) => {
    loads.push(asked);
    await gate;
    if (fail) throw new Error("down");
    return current > 100 ? "too_large" : fake(current);
  }, { retryMs: 60_000, onError: () => {} });
  // In the background: no index yet, one load for many asks.
  assert.equal(await lists.at(3), undefined);
  assert.equal(await lists.at(3), undefined);
  release();
  assert.equal((await lists.at(3, true))?.version, 3);
  assert.equal(loads.length, 1);
  assert.equal(await lists.at(2), undefined, "an older version is not answered by a newer index");
  assert.equal(loads.length, 1, "nor loaded");
  // A failed load is not tried again before retryMs, unless waited for.
  gate = new Promise<void>((resolve) => release = resolve);
  fail = true;
  current = 4;
  assert.equal(await lists.at(4), undefined);
  release();
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(await lists.at(4), undefined);
  assert.equal(loads.length, 2);
  fail = false;
  assert.equal((await lists.at(4, true))?.version, 4);
  assert.equal(loads.length, 3);
  // Too large: not read again at that version.
  current = 500;
  assert.equal(await lists.at(5, true), undefined);
  assert.equal(await lists.at(5), undefined);
  assert.equal(loads.length, 4);
  // The index of 4 was let go before 5 was read (two are never held at once).
  assert.equal(lists.stats().version, null);
});

Deno.test("the holder lets an index go when the memory budget cannot hold it", async () => {
  const held: (number | undefined)[] = [];
  const fake = (version: number) => ({ version, rows: version }) as unknown as ListIndex;
  const lists = createListIndexes((version) => Promise.resolve(fake(version)), {
    onHeld: (index) => {
      held.push(index?.version);
      return index === undefined || index.version !== 2;
    },
  });
  assert.equal((await lists.at(1, true))?.version, 1);
  assert.equal(await lists.at(2, true), undefined);
  assert.equal(lists.held(), undefined);
  // Not read again at that version: its lists go to PostgreSQL.
  assert.equal(await lists.at(2, true), undefined);
  assert.deepEqual(held, [1, 2]);
  assert.equal((await lists.at(3, true))?.version, 3);
});

Deno.test("the newest order, sorted in chunks and merged, is the one a plain sort gives", async () => {
  // Past several chunks of 65,536, with ties on created_at that the id breaks.
  const n = 300_001;
  const next = random(51);
  const us = Float64Array.from({ length: n }, () => 1.7e15 + Math.floor(next() * 50_000) * 1e6);
  const id = Int32Array.from({ length: n }, (_, i) => (i * 7919) % 1_000_003);
  const plain = new Int32Array(n).map((_, p) => p).sort((a, b) => us[b] - us[a] || id[b] - id[a]);
  assert.deepEqual(await newestOrder(us, id), plain);
});

Deno.test("list index holder: with firstWaited, a list does not start the first load", async () => {
  const loads: number[] = [];
  const fake = (version: number) => ({ version, rows: version }) as unknown as ListIndex;
  const lists = createListIndexes(async (asked) => {
    loads.push(asked);
    await Promise.resolve();
    return fake(asked);
  }, { firstWaited: true });
  assert.equal(await lists.at(3), undefined);
  assert.deepEqual(loads, [], "a list that does not wait starts nothing");
  // The warm-up waits: the first load starts.
  assert.equal((await lists.at(3, true))?.version, 3);
  assert.deepEqual(loads, [3]);
  // After it, a newer version is loaded in the background as without firstWaited.
  assert.equal(await lists.at(4), undefined);
  assert.deepEqual(loads, [3, 4]);
});
