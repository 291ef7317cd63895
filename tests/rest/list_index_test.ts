/**
 * Lists through REST once the list index is held (src/catalog/lists/list_index.ts): their rows are
 * read in the admission statement (a ListPlan of content.ts), and each answer equals what the
 * statements alone answer, charged once; after an import the lists follow the new version (from
 * PostgreSQL until the new index is held, then from it).
 */
import assert from "node:assert/strict";
import { createContent } from "../../src/catalog/content.ts";
import { readDataVersion } from "../../src/catalog/common.ts";
import { importLines } from "../../src/ingest/import.ts";
import { OpportunityQuerySchema } from "../../src/catalog/schemas.ts";
import { parseQuery } from "../../src/catalog/params.ts";
import { dbTest } from "../helpers/db.ts";
import { makeKey, testApp, usedOf } from "../helpers/app.ts";
import { catalogueLines } from "../helpers/catalogue_lines.ts";

const TOKEN = "list-index-test-metrics-token";

/** A counter or gauge of /metrics. */
async function metric(app: ReturnType<typeof testApp>, name: string): Promise<number> {
  const response = await app.get("/metrics", undefined, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  const found = new RegExp(`^${name} (\\S+)$`, "m").exec(await response.text());
  return found ? Number(found[1]) : NaN;
}

/** Waits until the app's list index holds `version` (bounded: 30 s). */
async function indexAt(app: ReturnType<typeof testApp>, version: number): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (await metric(app, "oppintel_list_index_version") === version) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`The list index did not reach version ${version}`);
}

const PATHS = [
  "/api/v1/opportunities?page_size=7",
  "/api/v1/opportunities?min_score=40&sort=sustainability&page=2&page_size=5",
  "/api/v1/opportunities?recommendation=Build&online_only=false&sort=newest",
  "/api/v1/opportunities?min_pain_point_intensity=5&max_tech_difficulty=6&page=3&page_size=4",
  "/api/v1/opportunities?platform=REDDIT&sort=tech_difficulty&page_size=9",
  "/api/v1/opportunities?category=nothing-here",
];

dbTest("lists from the list index read their rows in the admission statement", async (db) => {
  const sql = db.sql;
  const app = testApp(db, { METRICS_TOKEN: TOKEN });
  const { key, accountId } = await makeKey(sql, "pro");
  const reference = createContent(sql, { publicBaseUrl: "https://oppintel.example" }, {
    maxEntries: 0,
    listIndex: "off",
  });
  const same = async (path: string) => {
    const response = await app.get(path, key);
    assert.equal(response.status, 200, path);
    const query = parseQuery(OpportunityQuerySchema, new URL(path, "http://x.test"));
    const expected = await reference.listOpportunities(await readDataVersion(sql), query);
    assert.deepEqual(await response.json(), JSON.parse(JSON.stringify(expected)), path);
  };
  // The first list finds no index: PostgreSQL answers, and the index loads.
  await same(PATHS[0]);
  await indexAt(app, await readDataVersion(sql));
  for (const path of PATHS.slice(1)) await same(path);
  assert.equal(await metric(app, "oppintel_list_index_prefetched_total"), PATHS.length - 1);
  assert.equal(await usedOf(sql, accountId), PATHS.length);

  // A cursor page too.
  const first = await (await app.get("/api/v1/opportunities?page_size=3&sort=newest", key)).json();
  await same(`/api/v1/opportunities?page_size=3&sort=newest&cursor=${first.next_cursor}`);

  // An import: the next lists are right at the new version, whoever answers them.
  await importLines(
    sql,
    catalogueLines(
      ["later"],
      [1, 2, 3].map((i) => ({
        external_id: `later-${i}`,
        theme: "later",
        title: `A later opportunity ${i}`,
        description: "Imported after the index was read",
        score: 97 + i,
      })),
    ),
  );
  const version = await readDataVersion(sql);
  await same("/api/v1/opportunities?page_size=7&online_only=false");
  await indexAt(app, version);
  await same("/api/v1/opportunities?page_size=8&online_only=false");
  assert.equal(await metric(app, "oppintel_list_index_version"), version);
}, { seed: { opportunities: 400 } });

dbTest("LIST_INDEX_MAX_ROWS bounds the list index, and 0 turns it off", async (db) => {
  const sql = db.sql;
  const { key } = await makeKey(sql, "pro");
  const off = testApp(db, { METRICS_TOKEN: TOKEN, LIST_INDEX_MAX_ROWS: "0" });
  assert.equal((await off.get("/api/v1/opportunities?page_size=2", key)).status, 200);
  assert.ok(Number.isNaN(await metric(off, "oppintel_list_index_rows")), "no index at all");
  const small = testApp(db, { METRICS_TOKEN: TOKEN, LIST_INDEX_MAX_ROWS: "49" });
  const first = await (await small.get("/api/v1/opportunities?page_size=2", key)).json();
  // The load finds 50 rows, more than 49: nothing is held, and lists keep their answers.
  for (let i = 0; i < 50 && await metric(small, "oppintel_list_index_loads_total") < 1; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.equal(await metric(small, "oppintel_list_index_loads_total"), 1);
  assert.equal(await metric(small, "oppintel_list_index_rows"), 0);
  const again = await (await small.get("/api/v1/opportunities?page_size=3", key)).json();
  assert.deepEqual(again.items.slice(0, 2), first.items);
  assert.equal(await metric(small, "oppintel_list_index_loads_total"), 1, "not read again");
}, { seed: { opportunities: 50 } });
