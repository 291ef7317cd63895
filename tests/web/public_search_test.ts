/**
 * The public catalogue's question box (`/opportunities?q=`) reads public fields only: a word that
 * only a paid field holds (the description) finds nothing, and excluding it hides nothing, so the
 * paid text cannot be read one word at a time. Words of the title find their rows, best match
 * when none holds every word.
 */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { loadFixture, testApp } from "../helpers/app.ts";
import { writePaidFields } from "../helpers/paid_fields.ts";

/** The opportunity ids the page links to, in order. */
function linkedIds(page: string): number[] {
  return [...page.matchAll(/href="\/opportunities\/(\d+)\/[a-z0-9-]+"/g)].map((m) => Number(m[1]));
}

dbTest("GET /opportunities?q= matches public fields only, never the paid description", async (
  db,
  t,
) => {
  const ids = await loadFixture(db.sql);
  // "Zq7 secret description of the pain": words no public field holds.
  await writePaidFields(db.sql, ids["opp-3"]);
  const app = testApp(db);
  const search = async (q: string) => {
    const res = await app.get(`/opportunities?q=${encodeURIComponent(q)}`);
    assert.equal(res.status, 200, q);
    return linkedIds(await res.text());
  };

  await t.step("a word of the paid description finds nothing", async () => {
    assert.deepEqual(await search("zq7"), []);
    assert.deepEqual(await search("secret description"), []);
  });
  await t.step("excluding a paid word hides nothing", async () => {
    assert.deepEqual((await search("invoice -zq7")).sort(), [ids["opp-3"], ids["opp-4"]].sort());
  });
  await t.step("words of the title find their rows", async () => {
    assert.deepEqual(await search("invoice reminder"), [ids["opp-3"]]);
    assert.deepEqual(await search("flaky"), [ids["opp-2"], ids["opp-1"]].sort((a, b) => b - a));
  });
  await t.step("best match: rows holding some of the words when none holds all", async () => {
    const found = await search("invoice dashboard zzz");
    assert.deepEqual(found.sort(), [ids["opp-1"], ids["opp-3"], ids["opp-4"]].sort());
  });
  await t.step("the fixture's description words (daily pain) are paid too", async () => {
    assert.deepEqual(await search("daily pain"), []);
  });
});
