/**
 * recordNewMatches: what is new for a watch after an import, from the rows the import changed
 * and their values before it (one batch per watch and import, never a row per match).
 */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { loadFixture, makeKey } from "../helpers/app.ts";
import type { Sql } from "../../src/db/open.ts";
import { importLines } from "../../src/ingest/import.ts";
import { batchesOf, changedFixtureLine, opportunityLine } from "../helpers/watches.ts";

/** A watch straight in the table (the REST validation is tested elsewhere). */
async function addWatch(
  sql: Sql,
  accountId: number,
  slot: number,
  filters: { q?: string; min_score?: number; paused?: boolean },
): Promise<number> {
  const [row] = await sql<{ id: number }[]>`
    insert into watches (account_id, slot, name, query, q, min_score, paused, email_token)
    values (${accountId}, ${slot}, ${`w${slot}`}, ${sql.json(filters as never)},
      ${filters.q ?? null}, ${filters.min_score ?? 0}, ${filters.paused ?? false},
      ${`token-${slot}`})
    returning id`;
  return row.id;
}

dbTest("recordNewMatches: a score rising into min_score is new, once", async (db) => {
  await loadFixture(db.sql);
  const { accountId } = await makeKey(db.sql, "business");
  const w = await addWatch(db.sql, accountId, 1, { min_score: 60 });
  // opp-6 has 15, opp-4 has 40 (offline, so never listed by the default online_only).
  await importLines(db.sql, [changedFixtureLine("opp-6", { score: 59 })]);
  assert.deepEqual(await batchesOf(db.sql, w), [], "59 stays below 60");
  await importLines(db.sql, [changedFixtureLine("opp-6", { score: 60 })]);
  assert.deepEqual(await batchesOf(db.sql, w), [["opp-6"]], "60 rises into it");
  await importLines(db.sql, [changedFixtureLine("opp-6", { score: 90 })]);
  assert.deepEqual(await batchesOf(db.sql, w), [["opp-6"]], "rising further is not new");
});

dbTest("recordNewMatches: an updated row that already matched is not delivered", async (db) => {
  await loadFixture(db.sql);
  const { accountId } = await makeKey(db.sql, "business");
  const all = await addWatch(db.sql, accountId, 1, {});
  const ci = await addWatch(db.sql, accountId, 2, { q: "flaky" });
  await importLines(db.sql, [
    changedFixtureLine("opp-1", { title: "Retry-aware CI dashboard for flaky builds" }),
    changedFixtureLine("opp-2", { score: 76 }),
    opportunityLine("fresh", { title: "Flaky test finder" }),
  ]);
  assert.deepEqual(await batchesOf(db.sql, all), [["fresh"]]);
  assert.deepEqual(await batchesOf(db.sql, ci), [["fresh"]]);
  const [{ batches }] = await db.sql<{ batches: number }[]>`
    select count(*)::int as batches from watch_batches`;
  assert.equal(batches, 2, "one batch per watch and import");
});

dbTest("recordNewMatches: q with words matches the words the row has now", async (db) => {
  await loadFixture(db.sql);
  const { accountId } = await makeKey(db.sql, "business");
  const both = await addWatch(db.sql, accountId, 1, { q: "invoice reminder" });
  const phrase = await addWatch(db.sql, accountId, 2, { q: '"wiki rot" -startups' });
  const paused = await addWatch(db.sql, accountId, 3, { q: "invoice", paused: true });
  await importLines(db.sql, [
    // opp-3 "Polite invoice reminder autopilot ...": still both words, not new.
    changedFixtureLine("opp-3", { title: "Polite invoice reminder robot for freelancers" }),
    // opp-4 is offline: the watch (online only) never sees it.
    changedFixtureLine("opp-4", { title: "Paper invoice reminder service" }),
    // opp-5 gains both words: new.
    changedFixtureLine("opp-5", { title: "Docs linter with invoice reminder" }),
    // opp-6 "Wiki rot detector for growing startups" loses the excluded word: new.
    changedFixtureLine("opp-6", {
      title: "Wiki rot detector for growing teams",
      description: "People describe wiki rot as a daily pain.",
    }),
    // opp-2 gains one of the two words only.
    changedFixtureLine("opp-2", { title: "Test quarantine bot that sends an invoice" }),
  ]);
  assert.deepEqual(await batchesOf(db.sql, both), [["opp-5"]]);
  assert.deepEqual(await batchesOf(db.sql, phrase), [["opp-6"]]);
  assert.deepEqual(await batchesOf(db.sql, paused), [], "a paused watch matches nothing");
  // Losing the words and gaining them back in one import is no change for the watch.
  await importLines(db.sql, [
    changedFixtureLine("opp-5", { title: "Docs linter" }),
    changedFixtureLine("opp-5", { title: "Docs linter with invoice reminder again" }),
  ]);
  assert.deepEqual(await batchesOf(db.sql, both), [["opp-5"]]);
});

dbTest("recordNewMatches: without an active watch an import records nothing", async (db) => {
  await loadFixture(db.sql);
  const { accountId } = await makeKey(db.sql, "business");
  const w = await addWatch(db.sql, accountId, 1, { paused: true });
  await importLines(db.sql, [opportunityLine("quiet", { title: "Quiet" })]);
  await db.sql`update watches set paused = false where id = ${w}`;
  // The row written while no watch was active is not new once the watch resumes.
  await importLines(db.sql, [changedFixtureLine("opp-1", { score: 93 })]);
  assert.deepEqual(await batchesOf(db.sql, w), []);
  await importLines(db.sql, [opportunityLine("loud", { title: "Loud" })]);
  assert.deepEqual(await batchesOf(db.sql, w), [["loud"]]);
});
