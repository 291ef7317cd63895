/**
 * The public catalogue's question box (`/opportunities?q=`) reads public fields only: a word that
 * only a paid field holds (the description) finds nothing, and excluding it hides nothing, so the
 * paid text cannot be read one word at a time. Words of the title find their rows, best match
 * when none holds every word. Keyless searches are limited per client address (60 a minute).
 */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { loadFixture, testApp } from "../helpers/app.ts";
import { writePaidFields } from "../helpers/paid_fields.ts";
import { webTestApp } from "../helpers/web.ts";

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

dbTest("keyless searches are limited per client address, with a 429 page saying when", async (
  db,
  t,
) => {
  await loadFixture(db.sql);
  const app = webTestApp(db);
  const search = (ip: string, q = "invoice") =>
    app.handler(
      new Request(`${app.base}/opportunities?q=${encodeURIComponent(q)}`, {
        headers: { "X-Test-IP": ip },
      }),
    );
  await t.step("60 searches a minute answer; the 61st is a 429 page with Retry-After", async () => {
    for (let i = 0; i < 60; i++) {
      const res = await search("192.0.2.50", `invoice ${i % 7}`);
      assert.equal(res.status, 200, `search ${i + 1}`);
      await res.body?.cancel();
    }
    // The window is fixed (db/rate_limits.ts): a run across its end may get up to 60 more.
    let refused = await search("192.0.2.50");
    for (let i = 0; i < 60 && refused.status === 200; i++) {
      await refused.body?.cancel();
      refused = await search("192.0.2.50");
    }
    assert.equal(refused.status, 429);
    assert.match(refused.headers.get("content-type") ?? "", /text\/html/);
    const wait = Number(refused.headers.get("retry-after"));
    assert.ok(wait >= 1 && wait <= 60, `Retry-After ${wait}`);
    assert.match(await refused.text(), new RegExp(`again in ${wait} seconds?`));
  });
  await t.step("another address still searches; browsing without q is not limited", async () => {
    const other = await search("192.0.2.51");
    assert.equal(other.status, 200);
    await other.body?.cancel();
    const browse = await app.handler(
      new Request(`${app.base}/opportunities?category=developer-tools`, {
        headers: { "X-Test-IP": "192.0.2.50" },
      }),
    );
    assert.equal(browse.status, 200);
    await browse.body?.cancel();
  });
});
