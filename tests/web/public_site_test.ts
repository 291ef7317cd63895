/**
 * The public catalogue without a key: /opportunities (filters, question, pages, bad parameters),
 * /themes/{slug} and /categories/{slug}, the links between them and from an opportunity's page
 * (never into the JSON API), the sitemap, and the home page's live counts and examples. Every
 * page is valid HTML with canonical and Open Graph tags, and shows no paid field (the record's,
 * the quote's thread, a theme's growth).
 */
import assert from "node:assert/strict";
import { HtmlValidate } from "html-validate";
import { dbTest } from "../helpers/db.ts";
import { bumpDataVersion, loadFixture, testApp } from "../helpers/app.ts";
import { publicLeaks, writePaidFields, writePaidThemeFields } from "../helpers/paid_fields.ts";
import { importLines } from "../../src/ingest/import.ts";
import { weeklyLines } from "../helpers/trends.ts";
import { RISING } from "../helpers/trends.ts";

const BASE = "https://oppintel.example";
const validator = new HtmlValidate({ extends: ["html-validate:recommended"] });

async function valid(page: string): Promise<string[]> {
  const report = await validator.validateString(page);
  return report.results.flatMap((r) =>
    r.messages.map((m) => `${m.line}:${m.column} ${m.ruleId} ${m.message}`)
  );
}

/** The opportunity ids the page links to, in order. */
function linkedIds(page: string): number[] {
  return [...page.matchAll(/href="\/opportunities\/(\d+)\/[a-z0-9-]+"/g)].map((m) => Number(m[1]));
}

/** The paths of every link into the API (none may be a link: only code names them). */
function apiLinks(page: string): string[] {
  return [...page.matchAll(/href="([^"]*\/api\/[^"]*)"/g)].map((m) => m[1]);
}

dbTest("the public catalogue: pages, filters, links, no paid field", async (db, t) => {
  const ids = await loadFixture(db.sql);
  await importLines(db.sql, weeklyLines("flaky-ci", RISING));
  await writePaidFields(db.sql, ids["opp-1"]);
  const [{ id: themeId }] = await db.sql`select id from themes where slug = 'flaky-ci'`;
  await writePaidThemeFields(db.sql, themeId);
  const app = testApp(db);
  const get = async (path: string) => {
    const response = await app.get(path);
    return {
      status: response.status,
      type: response.headers.get("content-type"),
      page: await response.text(),
    };
  };

  for (
    const [path, canonical] of [
      ["/opportunities", `${BASE}/opportunities`],
      ["/opportunities?category=developer-tools", `${BASE}/opportunities?category=developer-tools`],
      ["/themes/flaky-ci", `${BASE}/themes/flaky-ci`],
      ["/categories/developer-tools", `${BASE}/categories/developer-tools`],
    ]
  ) {
    await t.step(`${path}: 200 HTML, canonical, Open Graph, valid, no paid field`, async () => {
      const { status, type, page } = await get(path);
      assert.equal(status, 200);
      assert.equal(type, "text/html; charset=utf-8");
      assert.ok(page.includes(`<link rel="canonical" href="${canonical}">`), page);
      assert.ok(page.includes(`<meta property="og:url" content="${canonical}">`));
      assert.match(page, /<meta property="og:title" content="[^"]+">/);
      assert.match(page, /<meta property="og:description" content="[^"]+">/);
      assert.deepEqual(await valid(page), []);
      assert.deepEqual(publicLeaks(page), []);
      assert.deepEqual(apiLinks(page), []);
      assert.doesNotMatch(page, /<script/);
      assert.match(page, /href="\/account"/, "the way to sign up");
    });
  }

  await t.step("/opportunities lists every opportunity, best score first", async () => {
    const { page } = await get("/opportunities");
    assert.deepEqual(
      linkedIds(page),
      ["opp-1", "opp-3", "opp-2", "opp-5", "opp-4", "opp-6"].map((e) => ids[e]),
    );
    assert.match(page, /6 opportunities, best score first/);
  });
  await t.step("each public filter narrows the list", async () => {
    const cases: [string, string[]][] = [
      ["category=developer-tools", ["opp-1", "opp-2", "opp-5", "opp-6"]],
      ["theme=flaky-ci", ["opp-1", "opp-2"]],
      ["platform=reddit", ["opp-1", "opp-3", "opp-6"]],
      ["recommendation=Build", ["opp-1", "opp-3"]],
      ["min_score=70", ["opp-1", "opp-2", "opp-3"]],
      ["category=developer-tools&min_score=60&recommendation=Validate", ["opp-2", "opp-5"]],
      ["q=invoice", ["opp-3", "opp-4"]],
      ["platform=&category=&q=", ["opp-1", "opp-2", "opp-3", "opp-5", "opp-4", "opp-6"]],
    ];
    for (const [query, expected] of cases) {
      const { status, page } = await get(`/opportunities?${query}`);
      assert.equal(status, 200, query);
      assert.deepEqual(linkedIds(page).sort(), expected.map((e) => ids[e]).sort(), query);
    }
  });
  await t.step("the form keeps the filters it shows", async () => {
    const { page } = await get(
      "/opportunities?category=small-business&recommendation=Skip&q=paper",
    );
    assert.match(page, /<option value="small-business" selected>/);
    assert.match(page, /<option value="Skip" selected>/);
    assert.match(page, /name="q"[^>]*value="paper"/);
  });
  await t.step("bad parameters: a 400 page that names them, never JSON", async () => {
    for (
      const [query, param] of [
        ["min_score=101", "min_score"],
        ["recommendation=Maybe", "recommendation"],
        ["page=51", "page"],
        ["page=0", "page"],
      ]
    ) {
      const { status, type, page } = await get(`/opportunities?${query}`);
      assert.equal(status, 400, query);
      assert.equal(type, "text/html; charset=utf-8");
      assert.match(page, new RegExp(`<code>${param}</code>`), query);
    }
  });
  await t.step("paged by 20, with links to the next and previous pages", async () => {
    await importLines(
      db.sql,
      Array.from({ length: 25 }, (_, i) =>
        JSON.stringify({
          type: "opportunity",
          external_id: `extra-${i}`,
          theme: "legacy-docs",
          platform: "reddit",
          channel_name: "docs",
          title: `Extra docs helper number ${i}`,
          recommendation: "Validate",
          score: 50,
          pain_point_intensity: 5,
          willingness_to_pay_score: 5,
          tech_difficulty: 5,
          sustainability_score: 5,
          target_audience: "Writers",
          monetization_model: "Subscription",
          is_online_deliverable: true,
          created_at: "2026-05-10T00:00:00Z",
          description: "More",
        })),
    );
    await bumpDataVersion(db.sql);
    const first = (await get("/opportunities?theme=legacy-docs")).page;
    assert.equal(linkedIds(first).length, 20);
    assert.match(first, /Page 1 of 2/);
    assert.match(first, /href="\/opportunities\?theme=legacy-docs&amp;page=2" rel="next"/);
    const second = (await get("/opportunities?theme=legacy-docs&page=2")).page;
    assert.equal(linkedIds(second).length, 7);
    assert.match(second, /href="\/opportunities\?theme=legacy-docs" rel="prev"/);
    assert.deepEqual(linkedIds(first).filter((id) => linkedIds(second).includes(id)), []);
  });
  await t.step("/opportunities/ redirects to /opportunities with its query", async () => {
    const response = await app.get("/opportunities/?q=invoice");
    assert.equal(response.status, 301);
    assert.equal(response.headers.get("location"), "/opportunities?q=invoice");
    await response.body?.cancel();
  });
  await t.step("/themes/{slug}: status, chart, best opportunities, the way further", async () => {
    const { page } = await get("/themes/flaky-ci");
    assert.match(page, /<h1>Flaky CI pipelines<\/h1>/);
    assert.match(page, /Builds fail at random/);
    assert.match(page, /<strong>rising<\/strong>/);
    assert.match(page, /id="theme-chart"/);
    assert.match(page, /<svg[^>]*role="img"/);
    assert.deepEqual(linkedIds(page), [ids["opp-1"], ids["opp-2"]]);
    assert.match(page, /href="\/categories\/developer-tools"/);
    assert.match(page, /href="\/opportunities\?theme=flaky-ci"/);
    assert.match(page, new RegExp(`<code>GET /api/v1/themes/${themeId}</code>`));
    assert.match(page, /Pro plan/);
  });
  await t.step("/categories/{slug}: its themes and best opportunities", async () => {
    const { page } = await get("/categories/developer-tools");
    assert.match(page, /<h1>Developer Tools<\/h1>/);
    assert.match(page, /href="\/themes\/flaky-ci"/);
    assert.match(page, /href="\/themes\/legacy-docs"/);
    assert.doesNotMatch(page, /href="\/themes\/invoice-chasing"/);
    assert.equal(linkedIds(page)[0], ids["opp-1"]);
    assert.match(page, /href="\/opportunities\?category=developer-tools"/);
  });
  await t.step("unknown themes and categories are 404 pages", async () => {
    for (
      const path of ["/themes/no-such-theme", "/categories/nope", "/themes/", "/themes/Bad_Slug"]
    ) {
      const { status, type } = await get(path);
      assert.equal(status, 404, path);
      assert.equal(type, "text/html; charset=utf-8", path);
    }
  });
  await t.step(
    "an opportunity's page links its theme and category pages, not the API",
    async () => {
      const { page } = await get(
        `/opportunities/${ids["opp-1"]}/retry-aware-ci-dashboard-for-flaky-tests`,
      );
      assert.match(page, /href="\/themes\/flaky-ci"/);
      assert.match(page, /href="\/categories\/developer-tools"/);
      assert.deepEqual(apiLinks(page), []);
    },
  );
  await t.step("the sitemap lists the catalogue, every theme and category", async () => {
    const xml = await (await app.get("/sitemap.xml")).text();
    for (
      const path of [
        "/opportunities",
        "/themes/flaky-ci",
        "/themes/legacy-docs",
        "/categories/developer-tools",
        "/categories/small-business",
      ]
    ) {
      assert.ok(xml.includes(`<loc>${BASE}${path}</loc>`), path);
    }
  });
  await t.step("the home page: live counts and an example question with its answer", async () => {
    const { page } = await get("/");
    assert.match(page, /<strong>31<\/strong> opportunities/);
    assert.match(page, /<strong>3<\/strong> themes/);
    assert.match(page, /<strong>2<\/strong> categories/);
    assert.match(page, /href="\/opportunities\?q=flaky\+tests\+in\+CI"/);
    assert.ok(page.includes(`href="/opportunities/${ids["opp-1"]}/`), "its best answer");
    assert.match(page, /href="\/opportunities"/);
    assert.deepEqual(publicLeaks(page), []);
    assert.deepEqual(await valid(page), []);
  });
});
