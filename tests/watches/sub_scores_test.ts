/**
 * Watches with sub-score bounds: stored and answered as given (validated like the list, 422 named
 * `query.<bound>`), and matched after an import by the list's rules: a row rising into a bound is
 * new once, a row outside it never.
 */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { loadFixture, makeKey, testApp } from "../helpers/app.ts";
import { importLines } from "../../src/ingest/import.ts";
import { batchesOf, changedFixtureLine, opportunityLine, sendJson } from "../helpers/watches.ts";

dbTest("a watch stores its sub-score bounds and delivers what rises into them", async (db, t) => {
  const app = testApp(db);
  await loadFixture(db.sql);
  const { key } = await makeKey(db.sql, "business");
  const create = async (query: unknown) =>
    await sendJson(app, "POST", "/api/v1/watches", key, {
      name: "Sub-scores",
      query,
      deliveries: { feed: true },
    });

  let payers = 0;
  let easy = 0;
  await t.step("stored and answered as given", async () => {
    const res = await create({ min_willingness_to_pay: 7, min_score: 0 });
    assert.equal(res.status, 201);
    const watch = await res.json();
    assert.deepEqual(watch.query, { min_score: 0, online_only: true, min_willingness_to_pay: 7 });
    payers = watch.id;
    const other = await create("max_tech_difficulty=3&min_pain_point_intensity=2");
    assert.equal(other.status, 201);
    const stored = await other.json();
    assert.equal(stored.query.max_tech_difficulty, 3);
    assert.equal(stored.query.min_pain_point_intensity, 2);
    easy = stored.id;
  });

  await t.step("refused like the list's", async () => {
    for (
      const [query, param] of [
        [{ max_tech_difficulty: 11 }, "query.max_tech_difficulty"],
        [{ min_sustainability: 5.5 }, "query.min_sustainability"],
        ["min_willingness_to_pay=abc", "query.min_willingness_to_pay"],
      ] as const
    ) {
      const res = await create(query);
      assert.equal(res.status, 422, JSON.stringify(query));
      const body = await res.json();
      assert.equal(body.error, "invalid_parameter");
      assert.equal(body.details[0].param, param);
    }
  });

  await t.step("matched after an import", async () => {
    // Every fixture row has willingness to pay 6 and difficulty 4.
    await importLines(db.sql, [
      changedFixtureLine("opp-2", { willingness_to_pay_score: 7 }),
      changedFixtureLine("opp-3", { tech_difficulty: 3 }),
      opportunityLine("cheap", { willingness_to_pay_score: 5, tech_difficulty: 2 }),
    ]);
    assert.deepEqual(await batchesOf(db.sql, payers), [["opp-2"]]);
    assert.deepEqual(await batchesOf(db.sql, easy), [["cheap", "opp-3"]]);
    // Rising further is not new; falling out and back in is new again.
    await importLines(db.sql, [changedFixtureLine("opp-2", { willingness_to_pay_score: 9 })]);
    assert.deepEqual(await batchesOf(db.sql, payers), [["opp-2"]]);
    await importLines(db.sql, [changedFixtureLine("opp-3", { tech_difficulty: 4 })]);
    await importLines(db.sql, [changedFixtureLine("opp-3", { tech_difficulty: 3 })]);
    assert.deepEqual(await batchesOf(db.sql, easy), [["cheap", "opp-3"], ["opp-3"]]);
  });
});
