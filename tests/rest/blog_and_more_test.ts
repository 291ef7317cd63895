/** Blog endpoints, the REST twins, CORS, methods, unknown paths, health and OpenAPI. */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { BASE, bumpDataVersion, loadFixture, makeKey, testApp } from "../helpers/app.ts";
import {
  BlogListSchema,
  BlogPostSchema,
  CategoryListSchema,
  OverviewSchema,
  ThemeDetailSchema,
  TrendingThemesSchema,
} from "../../src/catalog/schemas.ts";

dbTest("GET /api/v1/blog and /blog/{slug}: published only, canonical url", async (db, t) => {
  const app = testApp(db);
  await loadFixture(db.sql);
  const { key } = await makeKey(db.sql, "free");

  await t.step("the list holds published articles, newest first", async () => {
    const res = await app.get("/api/v1/blog", key);
    assert.equal(res.status, 200);
    const body = BlogListSchema.parse(await res.json());
    assert.deepEqual(body.items.map((i) => i.slug), ["invoices", "ci-analysis"]);
    assert.equal(body.total, 2);
    assert.equal(body.items[0].url, "https://oppintel.example/blog/invoices");
    assert.ok(!("body_md" in body.items[0]));
  });
  await t.step("q searches title and excerpt", async () => {
    const body = await (await app.get("/api/v1/blog?q=FREELANCERS", key)).json();
    assert.deepEqual(body.items.map((i: { slug: string }) => i.slug), ["invoices"]);
  });
  await t.step("paging and 422 as for opportunities", async () => {
    const body = await (await app.get("/api/v1/blog?page_size=1&page=2", key)).json();
    assert.deepEqual(body.items.map((i: { slug: string }) => i.slug), ["ci-analysis"]);
    assert.equal((await app.get("/api/v1/blog?page_size=500", key)).status, 422);
  });
  await t.step("an article has body_md and updated_at", async () => {
    const res = await app.get("/api/v1/blog/ci-analysis", key);
    const body = BlogPostSchema.parse(await res.json());
    assert.equal(body.body_md, "# Why CI flakes\n\nBecause.");
    assert.equal(body.related_opportunity_id !== null, true);
  });
  await t.step("a draft or a scheduled article is 404", async () => {
    assert.equal((await app.get("/api/v1/blog/draft-post", key)).status, 404);
    await db
      .sql`update blog_posts set published_at = now() + interval '1 day' where slug = 'invoices'`;
    await bumpDataVersion(db.sql);
    assert.equal((await app.get("/api/v1/blog/invoices", key)).status, 404);
    const body = await (await app.get("/api/v1/blog", key)).json();
    assert.equal(body.total, 1);
  });
});

dbTest("REST twins of the tools: overview, categories, trending themes, theme", async (db, t) => {
  const app = testApp(db);
  await loadFixture(db.sql);
  const { key } = await makeKey(db.sql, "pro");
  const themeId = (await db.sql`select id from themes where slug = 'invoice-chasing'`)[0].id;

  await t.step("overview: categories with counts, trending top 5, totals", async () => {
    const body = OverviewSchema.parse(await (await app.get("/api/v1/overview", key)).json());
    assert.deepEqual(body.totals, { categories: 2, themes: 3, opportunities: 6 });
    const dev = body.categories.find((c) => c.slug === "developer-tools")!;
    assert.equal(dev.theme_count, 2);
    assert.equal(dev.opportunity_count, 4);
    assert.deepEqual(body.trending.map((t) => t.slug), [
      "invoice-chasing",
      "flaky-ci",
      "legacy-docs",
    ]);
  });
  await t.step("categories", async () => {
    const body = CategoryListSchema.parse(await (await app.get("/api/v1/categories", key)).json());
    assert.equal(body.items.length, 2);
  });
  await t.step("trending: only themes trending up, by trend_change", async () => {
    const body = TrendingThemesSchema.parse(
      await (await app.get("/api/v1/themes/trending", key)).json(),
    );
    assert.deepEqual(body.items.map((t) => [t.slug, t.trend_direction, t.trend_change]), [
      ["invoice-chasing", "up", 200],
      ["flaky-ci", "up", 50],
    ]);
    const limited = await (await app.get("/api/v1/themes/trending?limit=1", key)).json();
    assert.equal(limited.items.length, 1);
    const cat = await (await app.get("/api/v1/themes/trending?category=developer-tools", key))
      .json();
    assert.deepEqual(cat.items.map((t: { slug: string }) => t.slug), ["flaky-ci"]);
    assert.equal((await app.get("/api/v1/themes/trending?limit=51", key)).status, 422);
  });
  await t.step("theme: the theme and its top opportunities by score", async () => {
    const body = ThemeDetailSchema.parse(
      await (await app.get(`/api/v1/themes/${themeId}`, key)).json(),
    );
    assert.equal(body.theme.slug, "invoice-chasing");
    assert.equal(body.theme.category, "small-business");
    assert.equal(body.theme.opportunity_count, 2);
    assert.equal(body.theme.avg_score, 57.5);
    assert.deepEqual(body.top_opportunities.map((o) => o.score), [75, 40]);
    assert.equal((await app.get("/api/v1/themes/999999", key)).status, 404);
    // Not digits: a slug; an unknown one is 404, a malformed one 422.
    assert.equal((await app.get("/api/v1/themes/x", key)).status, 404);
    assert.equal((await app.get("/api/v1/themes/X", key)).status, 422);
  });
});

dbTest("REST edges: CORS, preflight, 405, unknown paths, health, OpenAPI", async (db, t) => {
  const app = testApp(db);
  const { key } = await makeKey(db.sql, "pro");

  await t.step("OPTIONS is a 204 preflight without a key", async () => {
    const res = await app.handler(
      new Request(`${BASE}/api/v1/opportunities`, {
        method: "OPTIONS",
        headers: {
          Origin: "https://elsewhere.example",
          "Access-Control-Request-Method": "GET",
          "Access-Control-Request-Headers": "x-api-key",
        },
      }),
    );
    assert.equal(res.status, 204);
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    assert.match(res.headers.get("access-control-allow-headers") ?? "", /X-API-Key/i);
    assert.match(res.headers.get("access-control-allow-methods") ?? "", /GET/);
  });
  await t.step("other methods answer 405 method_not_allowed with Allow", async () => {
    for (const method of ["POST", "PUT", "DELETE", "PATCH"]) {
      const res = await app.handler(
        new Request(`${BASE}/api/v1/opportunities`, { method, headers: { "X-API-Key": key } }),
      );
      assert.equal(res.status, 405, method);
      assert.equal((await res.json()).error, "method_not_allowed");
      assert.equal(res.headers.get("allow"), "GET, HEAD");
    }
  });
  await t.step("unknown paths answer 404 JSON", async () => {
    for (const path of ["/api/v1/nothing", "/api/v2/opportunities", "/nothing-here"]) {
      const res = await app.get(path, key);
      assert.equal(res.status, 404, path);
      assert.equal((await res.json()).error, "not_found");
    }
  });
  await t.step("the site root is the home page (tests/web/home_test.ts)", async () => {
    const res = await app.get("/");
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "text/html; charset=utf-8");
    assert.match(await res.text(), /<a href="\/docs">Docs<\/a>/);
  });
  await t.step("a trailing slash is accepted", async () => {
    assert.equal((await app.get("/api/v1/opportunities/", key)).status, 200);
  });
  await t.step("/healthz answers without a key", async () => {
    const res = await app.get("/healthz");
    assert.equal(res.status, 200);
    const { memory, ...rest } = await res.json();
    // No encoder started in this process: questions are read by their words.
    assert.deepEqual(rest, { status: "ok", encoder: { state: "off" } });
    // The memory budget (MEMORY_BUDGET_MB, default 288): what it holds, nothing refused.
    assert.equal(memory.budget_mb, 288);
    assert.deepEqual(memory.refused, []);
  });
  await t.step("/api/v1/openapi.json without a key, version 1.0.0", async () => {
    const res = await app.get("/api/v1/openapi.json");
    assert.equal(res.status, 200);
    const doc = await res.json();
    assert.equal(doc.openapi, "3.1.0");
    assert.equal(doc.info.version, "1.0.0");
    assert.ok(doc.paths["/api/v1/opportunities"].get.responses["429"]);
  });
});

Deno.test("the OpenAPI document passes a real OpenAPI 3.1 validator", async () => {
  const { default: SwaggerParser } = await import("@apidevtools/swagger-parser");
  const { openApiDocument } = await import("../../src/rest/openapi.ts");
  const doc = structuredClone(openApiDocument());
  // deno-lint-ignore no-explicit-any
  const api = await SwaggerParser.validate(doc as any) as { paths: Record<string, unknown> };
  assert.deepEqual(Object.keys(api.paths).sort(), [
    "/api/v1/blog",
    "/api/v1/blog/{slug}",
    "/api/v1/categories",
    "/api/v1/ideas/match",
    "/api/v1/opportunities",
    "/api/v1/opportunities/export",
    "/api/v1/opportunities/{id}",
    "/api/v1/opportunities/{id}/similar",
    "/api/v1/overview",
    "/api/v1/themes/trending",
    "/api/v1/themes/{id}",
    "/api/v1/themes/{id}/history",
    "/api/v1/usage",
    "/api/v1/watches",
    "/api/v1/watches/{id}",
    "/api/v1/watches/{id}/deliveries",
    "/api/v1/watches/{id}/test",
  ]);
});
