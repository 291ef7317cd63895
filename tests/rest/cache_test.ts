/** Cached answers never outlive an import, on REST (the MCP tools share the same cache). */
import assert from "node:assert/strict";
import { importLines } from "../../src/ingest/import.ts";
import { dbTest } from "../helpers/db.ts";
import { FIXTURE_LINES, loadFixture, makeKey, testApp } from "../helpers/app.ts";

dbTest("an import invalidates every cached answer at once", async (db, t) => {
  const app = testApp(db);
  const ids = await loadFixture(db.sql);
  const { key } = await makeKey(db.sql, "pro");
  const read = async (path: string) => await (await app.get(path, key)).json();
  const detailPath = `/api/v1/opportunities/${ids["opp-3"]}`;

  const before = await read(detailPath);
  const listBefore = await read("/api/v1/opportunities?q=autopilot");
  const overviewBefore = await read("/api/v1/overview");
  await t.step("repeated reads are served the same answer", async () => {
    assert.deepEqual(await read(detailPath), before);
    assert.deepEqual((await read("/api/v1/overview")).generated_at, overviewBefore.generated_at);
  });

  const changed = FIXTURE_LINES.map((line) => {
    const record = JSON.parse(line);
    if (record.external_id === "opp-3") {
      record.title = "Polite invoice reminder autopilot, now with SMS";
      record.score = 99;
    }
    return JSON.stringify(record);
  });
  changed.push(JSON.stringify({
    type: "category",
    slug: "new-category",
    name: "A new category",
    description: "Added by the second import",
  }));
  await importLines(db.sql, changed);

  await t.step("the detail shows the imported value on the very next call", async () => {
    const after = await read(detailPath);
    assert.equal(after.title, "Polite invoice reminder autopilot, now with SMS");
    assert.equal(after.score, 99);
  });
  await t.step("lists, totals and the overview follow the import too", async () => {
    const list = await read("/api/v1/opportunities?q=autopilot");
    assert.equal(listBefore.items[0].score, 75);
    assert.equal(list.items[0].score, 99);
    const overview = await read("/api/v1/overview");
    assert.equal(overviewBefore.totals.categories, 2);
    assert.equal(overview.totals.categories, 3);
  });
});
