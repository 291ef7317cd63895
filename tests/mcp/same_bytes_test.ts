/**
 * MCP tool results with `detail: "full"` carry byte for byte the JSON its REST twin answers, on
 * both protocol eras: the text block of a result is the REST body, and structuredContent parses
 * to it. The default answer is the compact view of the same: the records of REST's
 * `fields=compact`.
 */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { callToolIn, loadFixture, makeKey, type TestApp, testApp, usedOf } from "../helpers/app.ts";

/** One tools/call as a stateless 2025 client or a 2026-07-28 client sends it. */
async function callTool(
  app: TestApp,
  key: string,
  era: "2025" | "2026",
  name: string,
  args: Record<string, unknown>,
): Promise<{ text: string; structured: unknown; isError?: boolean }> {
  const result = await callToolIn(app, key, era, name, args);
  assert.equal(result.content.length, 1);
  return {
    text: result.content[0].text,
    structured: result.structuredContent,
    isError: result.isError,
  };
}

dbTest("MCP results are byte for byte their REST twins' answers, on both eras", async (db, t) => {
  const app = testApp(db);
  const opp = await loadFixture(db.sql);
  const [theme] = await db.sql<{ id: number }[]>`select id from themes order by id limit 1`;
  const [post] = await db.sql<{ slug: string }[]>`
    select slug from blog_posts where published_at <= now() order by slug limit 1`;
  const { key, accountId } = await makeKey(db.sql, "business");
  const cases: [string, Record<string, unknown>, string][] = [
    ["get_overview", {}, "/api/v1/overview"],
    ["get_opportunity", { id: opp["opp-1"] }, `/api/v1/opportunities/${opp["opp-1"]}`],
    // The list tools take 10 items a page by default (REST 20).
    ["query_opportunities", {}, "/api/v1/opportunities?page_size=10"],
    [
      "query_opportunities",
      { platform: "reddit", min_score: 10, sort: "newest", page_size: 2 },
      "/api/v1/opportunities?platform=reddit&min_score=10&sort=newest&page_size=2",
    ],
    ["query_opportunities", { q: "invoice" }, "/api/v1/opportunities?q=invoice&page_size=10"],
    ["list_trending_themes", {}, "/api/v1/themes/trending"],
    ["get_theme", { id: theme.id }, `/api/v1/themes/${theme.id}`],
    ["list_blog_posts", {}, "/api/v1/blog?page_size=10"],
    ["get_blog_post", { slug: post.slug }, `/api/v1/blog/${post.slug}`],
    ["get_usage", {}, "/api/v1/usage"],
  ];
  let charged = 0;
  for (const [name, args, path] of cases) {
    await t.step(`${name} ${JSON.stringify(args)}`, async () => {
      const rest = await app.get(path, key);
      assert.equal(rest.status, 200);
      const restText = await rest.text();
      // Charged calls change the usage report: it is compared with no charge in between.
      const free = name === "get_usage";
      for (const era of ["2025", "2026"] as const) {
        // detail: "full" is the REST answer; the default is its compact view (answer_size_test).
        const mcp = await callTool(app, key, era, name, { ...args, detail: "full" });
        assert.equal(mcp.isError, undefined, mcp.text);
        assert.equal(mcp.text, restText, `${era}: the same bytes`);
        assert.deepEqual(mcp.structured, JSON.parse(restText));
      }
      // REST charges; the same call through MCP, in both eras, is a repeat (issue 49).
      charged += free || name.startsWith("list_blog") || name.startsWith("get_blog") ? 0 : 1;
      assert.equal(await usedOf(db.sql, accountId), charged);
    });
  }
});

dbTest(
  "a detail read in the admission statement is byte for byte the detail read alone",
  async (db, t) => {
    const opp = await loadFixture(db.sql);
    const { key } = await makeKey(db.sql, "business");
    const { getOpportunity } = await import("../../src/catalog/lists/opportunities.ts");
    // Every fixture opportunity: with and without evidence and a related article.
    for (const [name, id] of Object.entries(opp)) {
      await t.step(name, async () => {
        const alone = JSON.stringify(
          await getOpportunity(db.sql, id, { publicBaseUrl: "https://oppintel.example" }),
        );
        // Fresh apps: nothing cached, so each surface's first call reads the detail with its charge.
        const rest = await (await testApp(db).get(`/api/v1/opportunities/${id}`, key)).text();
        assert.equal(rest, alone, "REST, first call");
        for (const era of ["2025", "2026"] as const) {
          const mcp = await callTool(testApp(db), key, era, "get_opportunity", {
            id,
            detail: "full",
          });
          assert.equal(mcp.isError, undefined, mcp.text);
          assert.equal(mcp.text, alone, `MCP ${era}, first call`);
        }
      });
    }
    await t.step("the evidence and the related article are in the answers compared", async () => {
      const details = await Promise.all(
        Object.values(opp).map(async (id) =>
          JSON.parse(await (await testApp(db).get(`/api/v1/opportunities/${id}`, key)).text())
        ),
      );
      assert.ok(details.some((d) => d.evidence.length > 0));
      assert.ok(details.some((d) => d.related_article_url !== null));
    });
  },
);

dbTest("an MCP default answer holds REST's fields=compact records", async (db) => {
  const app = testApp(db);
  await loadFixture(db.sql);
  const { key } = await makeKey(db.sql, "business");
  for (const era of ["2025", "2026"] as const) {
    const rest = await (await app.get("/api/v1/opportunities?fields=compact&page_size=10", key))
      .json();
    const mcp = await callTool(app, key, era, "query_opportunities", {});
    const structured = mcp.structured as Record<string, unknown>;
    assert.deepEqual(structured.items, rest.items, era);
    assert.equal(structured.total, rest.total);
    assert.ok(!("monetization_model" in rest.items[0]), "REST trims with fields=compact");
  }
});
