/**
 * The hosted MCP endpoint (DECISIONS.md section 5) with the SDK's real Client over HTTP: the
 * service's handler is served on 127.0.0.1, so requests pass the real routing, key check and
 * transport exactly as in production. This file: the listing, and every tool answering what its
 * REST twin answers (with `detail: "full"`).
 */
import assert from "node:assert/strict";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { dbTest } from "../helpers/db.ts";
import { loadFixture, makeKey, testApp, usedOf } from "../helpers/app.ts";
import {
  connect,
  FREE_TOOLS,
  PRO_TOOLS,
  restJson,
  serve,
  structured,
  themeIds,
  WATCH_TOOLS,
} from "../helpers/mcp_http.ts";

dbTest("MCP initialize and tools/list: ten described tools, free of charge", async (db, t) => {
  const app = testApp(db);
  const served = serve(app);
  const { key, accountId } = await makeKey(db.sql, "free");
  const { client, lastHeaders, close } = await connect(served.url, { key });
  try {
    await t.step("initialize names the server and gives instructions", () => {
      assert.equal(client.getServerVersion()?.name, "oppintel");
      const instructions = client.getInstructions() ?? "";
      assert.match(instructions, /get_overview/);
      // Every tool's plan is named: the Pro sentence lists exactly the Pro tools.
      const pro = /Pro plan \(or Business\): ([a-z_, ]+)\./.exec(instructions)?.[1].split(", ");
      assert.deepEqual(pro?.sort(), [...PRO_TOOLS].sort());
      for (const name of [...FREE_TOOLS, ...WATCH_TOOLS]) {
        assert.match(instructions, new RegExp(name));
      }
      assert.match(instructions, /detail: "full"/);
      assert.ok(client.getServerCapabilities()?.tools);
    });
    const { tools } = await client.listTools();
    await t.step("all ten tools, to a Free key too", () => {
      assert.deepEqual(
        tools.map((x: Tool) => x.name).sort(),
        [...FREE_TOOLS, ...PRO_TOOLS, ...WATCH_TOOLS].sort(),
      );
    });
    for (const tool of tools as Tool[]) {
      await t.step(`${tool.name} declares schemas, annotations and its tier`, () => {
        assert.equal(tool.inputSchema.type, "object");
        assert.equal(tool.outputSchema?.type, "object");
        // No $schema: MCP's default dialect, JSON Schema 2020-12, the one zod writes.
        assert.equal(tool.inputSchema.$schema, undefined);
        assert.equal(tool.outputSchema?.$schema, undefined);
        // Single-type dialects (Gemini's OpenAPI subset) reject type arrays.
        assert.ok(!JSON.stringify(tool).includes('"type":['), "no type arrays");
        assert.ok(tool.title);
        if (WATCH_TOOLS.includes(tool.name)) {
          assert.equal(tool.annotations?.readOnlyHint, tool.name === "list_watches");
        } else {
          assert.equal(tool.annotations?.readOnlyHint, true);
          assert.equal(tool.annotations?.openWorldHint, false);
          assert.equal(tool.annotations?.idempotentHint, true);
        }
        for (const [name, field] of Object.entries(tool.inputSchema.properties ?? {})) {
          const description = (field as { description?: string }).description ?? "";
          assert.ok(description.length > 5, `${tool.name}.${name} has a description`);
        }
        const saysPro = /Requires the Pro plan/.test(tool.description ?? "");
        assert.equal(saysPro, PRO_TOOLS.includes(tool.name));
      });
    }
    await t.step("required inputs are marked required", () => {
      const required = (name: string) =>
        tools.find((x: Tool) => x.name === name)?.inputSchema.required;
      assert.deepEqual(required("get_opportunity"), ["id"]);
      // id or slug, exactly one: neither is required by the schema, the server asks for one.
      assert.equal(required("get_theme"), undefined);
      assert.deepEqual(required("get_blog_post"), ["slug"]);
      assert.equal(required("query_opportunities"), undefined);
    });
    await t.step("initialize, notifications, tools/list and ping cost nothing", async () => {
      await client.ping();
      assert.equal(await usedOf(db.sql, accountId), 0);
      assert.equal(lastHeaders().get("x-quota-used"), "0");
      assert.equal(lastHeaders().get("x-quota-limit"), "20");
      assert.equal(lastHeaders().get("access-control-allow-origin"), "*");
    });
  } finally {
    await close();
    await served.close();
  }
});

dbTest("MCP tools answer exactly what their REST twins answer", async (db, t) => {
  const app = testApp(db);
  const served = serve(app);
  const opp = await loadFixture(db.sql);
  const themes = await themeIds(db.sql);
  const mcpKey = await makeKey(db.sql, "pro");
  const restKey = await makeKey(db.sql, "business");
  const { client, lastHeaders, close } = await connect(served.url, { key: mcpKey.key });
  let charged = 0;

  async function check(
    name: string,
    args: Record<string, unknown>,
    restPath: string,
    cost: 0 | 1,
    strip: (b: Record<string, unknown>) => Record<string, unknown> = (b) => b,
  ): Promise<Record<string, unknown>> {
    // detail: "full" is the REST answer (the default is its compact view: answer_size_test), at
    // REST's page size (the list tools' default is 10).
    const paged = "page_size" in args || !/^(query_opportunities|list_blog_posts)$/.test(name);
    const full = { ...args, detail: "full", ...(paged ? {} : { page_size: 20 }) };
    const result = await client.callTool({ name, arguments: full }) as CallToolResult;
    assert.notEqual(result.isError, true, JSON.stringify(result));
    const body = structured(result);
    assert.deepEqual(strip(body), strip(await restJson(app, restPath, restKey.key)));
    charged += cost;
    assert.equal(await usedOf(db.sql, mcpKey.accountId), charged, `${name} costs ${cost}`);
    assert.equal(lastHeaders().get("x-quota-used"), String(charged));
    assert.equal(lastHeaders().get("x-quota-remaining"), String(1000 - charged));
    return body;
  }

  try {
    await t.step("get_overview", async () => {
      const body = await check("get_overview", {}, "/api/v1/overview", 1, (b) => {
        const { generated_at: _, ...rest } = b;
        return rest;
      });
      assert.equal((body.categories as unknown[]).length, 2);
      assert.match(String(body.generated_at), /^\d{4}-\d\d-\d\dT/);
    });
    await t.step("get_opportunity", async () => {
      const body = await check(
        "get_opportunity",
        { id: opp["opp-1"] },
        `/api/v1/opportunities/${opp["opp-1"]}`,
        1,
      );
      assert.equal(body.title, "Retry-aware CI dashboard for flaky tests");
    });
    await t.step("list_blog_posts", async () => {
      const body = await check("list_blog_posts", {}, "/api/v1/blog", 0);
      assert.equal(body.total, 2);
      await check(
        "list_blog_posts",
        { q: "invoices", page_size: 1 },
        "/api/v1/blog?q=invoices&page_size=1",
        0,
      );
    });
    await t.step("get_blog_post", async () => {
      const body = await check(
        "get_blog_post",
        { slug: "ci-analysis" },
        "/api/v1/blog/ci-analysis",
        0,
      );
      assert.equal(body.body_md, "# Why CI flakes\n\nBecause.");
    });
    await t.step("query_opportunities", async () => {
      const body = await check(
        "query_opportunities",
        { min_score: 60, platform: "REDDIT", recommendation: "Build" },
        "/api/v1/opportunities?min_score=60&platform=REDDIT&recommendation=build",
        1,
      );
      assert.deepEqual((body.items as { id: number }[]).map((i) => i.id), [
        opp["opp-1"],
        opp["opp-3"],
      ]);
      await check(
        "query_opportunities",
        { category: "developer-tools", online_only: false, page: 2, page_size: 1 },
        "/api/v1/opportunities?category=developer-tools&online_only=false&page=2&page_size=1",
        1,
      );
      const searched = await check(
        "query_opportunities",
        { q: 'flak -"quarantine bot" OR invoic', sort: "newest" },
        "/api/v1/opportunities?q=flak%20-%22quarantine%20bot%22%20OR%20invoic&sort=newest",
        1,
      );
      assert.deepEqual((searched.items as { id: number }[]).map((i) => i.id), [
        opp["opp-3"],
        opp["opp-1"],
      ]);
      await check(
        "query_opportunities",
        { q: "flaky tests", sort: "relevance" },
        "/api/v1/opportunities?q=flaky+tests&sort=RELEVANCE",
        1,
      );
    });
    await t.step("list_trending_themes", async () => {
      const body = await check(
        "list_trending_themes",
        { limit: 1 },
        "/api/v1/themes/trending?limit=1",
        1,
      );
      assert.deepEqual((body.items as { slug: string }[]).map((i) => i.slug), ["invoice-chasing"]);
    });
    await t.step("get_theme", async () => {
      const body = await check(
        "get_theme",
        { id: themes["flaky-ci"] },
        `/api/v1/themes/${themes["flaky-ci"]}`,
        1,
      );
      assert.equal((body.top_opportunities as unknown[]).length, 2);
    });
  } finally {
    await close();
    await served.close();
  }
});
