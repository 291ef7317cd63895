/**
 * GET /opportunities/{id}/{slug}: the public page at every opportunity's canonical `url`. It shows
 * the public facts, never a paid field of its record (checked against values set only for this
 * test), carries canonical and Open Graph tags, redirects a wrong or missing slug, answers 404
 * for an unknown id, and is cached like the articles (ETag, a new page after a change).
 */
import assert from "node:assert/strict";
import { HtmlValidate } from "html-validate";
import { dbTest } from "../helpers/db.ts";
import { bumpDataVersion, loadFixture, makeKey, testApp } from "../helpers/app.ts";
import { PAID, paidIn, writePaidFields } from "../helpers/paid_fields.ts";

const BASE = "https://oppintel.example";

dbTest("GET /opportunities/{id}/{slug}: the public facts, no paid field", async (db, t) => {
  const ids = await loadFixture(db.sql);
  const id = ids["opp-1"];
  await writePaidFields(db.sql, id);
  const app = testApp(db);
  const { key } = await makeKey(db.sql, "free");
  const detail = await (await app.get(`/api/v1/opportunities/${id}`, key)).json();
  const path = new URL(detail.url).pathname;

  await t.step("the detail's url is the page, and the detail holds the paid values", () => {
    assert.equal(
      detail.url,
      `${BASE}/opportunities/${id}/retry-aware-ci-dashboard-for-flaky-tests`,
    );
    // The check below can fail: the same values are in the full record.
    assert.equal(paidIn(JSON.stringify(detail)).length, Object.values(PAID).flat().length);
  });

  const response = await app.get(path);
  const page = await response.text();
  await t.step("200 HTML with the site's headers", () => {
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "text/html; charset=utf-8");
    assert.equal(response.headers.get("cache-control"), "public, max-age=60");
    assert.match(response.headers.get("etag") ?? "", /^"[0-9a-f]{24}"$/);
    assert.match(response.headers.get("content-security-policy") ?? "", /script-src 'self'/);
  });

  await t.step("title, verdict, score and its parts, audience, theme, category, evidence", () => {
    assert.match(page, /<h1>Retry-aware CI dashboard for flaky tests<\/h1>/);
    assert.match(page, /Verdict <strong>Build<\/strong>/);
    assert.match(page, /score <strong>91<\/strong>\/100/);
    for (
      const [label, value] of [["Pain point intensity", 7], ["Willingness to pay", 6], [
        "Technical difficulty",
        4,
      ], ["Sustainability", 5]]
    ) {
      assert.match(page, new RegExp(`${label} <span[^>]*>[^<]*</span></th>\\s*<td>${value}/10`));
    }
    assert.match(page, /<dd>Engineering teams<\/dd>/);
    assert.match(page, />Flaky CI pipelines<\/a>/);
    assert.match(page, />Developer Tools<\/a>/);
    assert.match(page, /2 community posts/, "the stored evidence count, not the quotes");
    assert.match(page, /href="https:\/\/oppintel\.example\/blog\/ci-analysis">Why CI flakes</);
    assert.match(page, /href="\/account"/);
    assert.match(page, new RegExp(`GET /api/v1/opportunities/${id}`));
  });

  await t.step("no paid field of the record is in the HTML", () => {
    assert.deepEqual(paidIn(page), []);
    assert.doesNotMatch(page, /\$50M|Acme|Crowded|daily pain/, "nor the fixture's own values");
  });

  await t.step("canonical and Open Graph tags name the url", () => {
    assert.ok(page.includes(`<link rel="canonical" href="${detail.url}">`));
    assert.ok(page.includes(`<meta property="og:url" content="${detail.url}">`));
    assert.match(
      page,
      /<meta property="og:title" content="Retry-aware CI dashboard for flaky tests">/,
    );
    assert.match(page, /<meta property="og:description" content="Score 91\/100, verdict Build/);
    assert.match(page, /<meta property="og:type" content="website">/);
  });

  await t.step("valid HTML", async () => {
    const report = await new HtmlValidate({ extends: ["html-validate:recommended"] })
      .validateString(page);
    const messages = report.results.flatMap((r) =>
      r.messages.map((m) => `${m.line}:${m.column} ${m.ruleId} ${m.message}`)
    );
    assert.deepEqual(messages, []);
  });

  await t.step("no related article: said so, no link", async () => {
    const other = await (await app.get(`/api/v1/opportunities/${ids["opp-2"]}`, key)).json();
    const text = await (await app.get(new URL(other.url).pathname)).text();
    assert.match(text, /No article about this opportunity is published yet/);
    assert.doesNotMatch(text, /\/blog\/ci-analysis/, "the draft about it does not count");
  });
});

dbTest("GET /opportunities/...: redirects to the canonical slug, 404s, caching", async (db, t) => {
  const ids = await loadFixture(db.sql);
  const id = ids["opp-3"];
  const app = testApp(db);
  const canonical = `/opportunities/${id}/polite-invoice-reminder-autopilot-for-freelancers`;

  await t.step("a wrong or missing slug is a 301 to the canonical path", async () => {
    for (
      const path of [`/opportunities/${id}`, `/opportunities/${id}/`, `/opportunities/${id}/x`]
    ) {
      const response = await app.get(path);
      assert.equal(response.status, 301, path);
      assert.equal(response.headers.get("location"), canonical, path);
      await response.body?.cancel();
    }
    assert.equal((await app.get(canonical)).status, 200);
  });

  await t.step("an unknown or malformed id is a 404 page", async () => {
    for (const path of ["/opportunities/999999/x", "/opportunities/0", "/opportunities/abc/x"]) {
      const response = await app.get(path);
      assert.equal(response.status, 404, path);
      assert.equal(response.headers.get("content-type"), "text/html; charset=utf-8");
      assert.match(await response.text(), /There is no opportunity at this address/);
    }
  });

  await t.step("304 for its ETag; POST is 405; HEAD has no body", async () => {
    const etag = (await app.get(canonical)).headers.get("etag")!;
    const again = await app.get(canonical, undefined, { headers: { "If-None-Match": etag } });
    assert.equal(again.status, 304);
    const post = await app.get(canonical, undefined, { method: "POST" });
    assert.equal(post.status, 405);
    await post.body?.cancel();
    const head = await app.get(canonical, undefined, { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.equal(await head.text(), "");
  });

  await t.step("a retitled opportunity: new page, the old slug redirects", async () => {
    await db.sql`
      update opportunities set title = 'Invoice nudges', slug = 'invoice-nudges' where id = ${id}`;
    await bumpDataVersion(db.sql);
    const moved = await app.get(canonical);
    assert.equal(moved.status, 301);
    assert.equal(moved.headers.get("location"), `/opportunities/${id}/invoice-nudges`);
    await moved.body?.cancel();
    const page = await (await app.get(`/opportunities/${id}/invoice-nudges`)).text();
    assert.match(page, /<h1>Invoice nudges<\/h1>/);
  });
});
