/**
 * The hosted MCP endpoint (DECISIONS.md section 5) with the SDK's real Client over HTTP: the
 * service's handler is served on 127.0.0.1, so requests pass the real routing, key check and
 * transport exactly as in production. This file: failures as isError results, never charged,
 * and unexpected errors.
 */
import assert from "node:assert/strict";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { dbTest } from "../helpers/db.ts";
import { loadFixture, makeKey, testApp, usedOf } from "../helpers/app.ts";
import type { Sql } from "../../src/db/open.ts";
import { createMcpHandler } from "../../src/mcp/server.ts";
import { createContent } from "../../src/catalog/content.ts";
import {
  call,
  connect,
  errorOf,
  PRO_TOOLS,
  restJson,
  serve,
  structured,
  themeIds,
} from "../helpers/mcp_http.ts";

dbTest("MCP tool failures are isError results with the REST body, never charged", async (db, t) => {
  const app = testApp(db);
  const served = serve(app);
  const opp = await loadFixture(db.sql);
  const themes = await themeIds(db.sql);
  const free = await makeKey(db.sql, "free");
  const pro = await makeKey(db.sql, "pro");
  const restKey = await makeKey(db.sql, "business");
  const freeClient = await connect(served.url, { key: free.key });
  const proClient = await connect(served.url, { key: pro.key });
  try {
    const proArgs: Record<string, Record<string, unknown>> = {
      query_opportunities: {},
      list_trending_themes: {},
      get_theme: { id: themes["flaky-ci"] },
      get_theme_history: { id: themes["flaky-ci"] },
      find_similar_opportunities: { id: 1 },
      match_idea: { text: "flaky tests" },
    };
    for (const name of PRO_TOOLS) {
      await t.step(`a Free key on ${name} gets plan_required`, async () => {
        const body = errorOf(await call(freeClient.client, name, proArgs[name]));
        assert.equal(body.error, "plan_required");
        assert.equal(body.required_plan, "pro");
        assert.equal(body.current_plan, "free");
        assert.match(String(body.message), / needs the Pro plan; you are on Free$/);
        assert.equal(body.operation, name, "named as the tool");
        assert.equal(freeClient.lastHeaders().get("x-quota-used"), "0");
      });
    }
    await t.step("the plan check matches REST's 403", async () => {
      const rest = await restJson(app, "/api/v1/opportunities", free.key);
      const mcp = errorOf(await call(freeClient.client, "query_opportunities"));
      // The same words; the operation is named as each surface names it.
      assert.equal(mcp.message, rest.message);
      assert.deepEqual({ ...mcp, operation: "" }, { ...rest, operation: "" });
    });
    await t.step("a Business key may call Pro tools", async () => {
      const business = await connect(served.url, { key: restKey.key });
      const trending = await call(business.client, "list_trending_themes");
      await business.close();
      assert.notEqual(trending.isError, true);
    });
    await t.step("unknown ids and slugs get not_found, as REST's 404", async () => {
      const cases: [string, Record<string, unknown>, string][] = [
        ["get_opportunity", { id: 999999 }, "/api/v1/opportunities/999999"],
        ["get_opportunity", { id: -1 }, "/api/v1/opportunities/-1"],
        ["get_theme", { id: 999999 }, "/api/v1/themes/999999"],
        ["get_blog_post", { slug: "no-such-post" }, "/api/v1/blog/no-such-post"],
        ["get_blog_post", { slug: "draft-post" }, "/api/v1/blog/draft-post"],
      ];
      for (const [name, args, path] of cases) {
        const body = errorOf(await call(proClient.client, name, args));
        assert.equal(body.error, "not_found");
        assert.deepEqual(body, await restJson(app, path, restKey.key));
      }
    });
    await t.step(
      "invalid arguments get invalid_parameter with details, as REST's 422",
      async () => {
        const body = errorOf(
          await call(proClient.client, "query_opportunities", { min_score: 101 }),
        );
        assert.deepEqual(body.details, [{ param: "min_score", message: "must be at most 100" }]);
        assert.deepEqual(
          body,
          await restJson(app, "/api/v1/opportunities?min_score=101", restKey.key),
        );
        const many = errorOf(
          await call(proClient.client, "query_opportunities", {
            page_size: 101,
            recommendation: "Maybe",
            q: "x".repeat(101),
          }),
        );
        assert.deepEqual(
          (many.details as { param: string }[]).map((d) => d.param).sort(),
          ["page_size", "q", "recommendation"],
        );
        const cases: [string, Record<string, unknown>, string][] = [
          ["list_trending_themes", { limit: 0 }, "limit"],
          ["list_trending_themes", { limit: 51 }, "limit"],
          ["get_opportunity", {}, "id"],
          ["get_opportunity", { id: 1.5 }, "id"],
          ["get_opportunity", { id: "abc" }, "id"],
          ["get_blog_post", { slug: "" }, "slug"],
          ["list_blog_posts", { page: 0 }, "page"],
        ];
        for (const [name, args, param] of cases) {
          const b = errorOf(await call(proClient.client, name, args));
          assert.equal(b.error, "invalid_parameter", `${name} ${JSON.stringify(args)}`);
          assert.deepEqual((b.details as { param: string }[]).map((d) => d.param), [param]);
        }
      },
    );
    await t.step("an unknown tool is a JSON-RPC invalid params error", async () => {
      await assert.rejects(
        () => call(proClient.client, "drop_tables"),
        (e: Error) =>
          e instanceof McpError && (e as { code?: number }).code === ErrorCode.InvalidParams,
      );
    });
    await t.step("none of the failures was charged", async () => {
      assert.equal(await usedOf(db.sql, free.accountId), 0);
      assert.equal(await usedOf(db.sql, pro.accountId), 0);
      assert.equal(proClient.lastHeaders().get("x-quota-used"), "0");
    });
    await t.step("a valid call still works after the failures", async () => {
      const ok = await call(proClient.client, "get_opportunity", { id: opp["opp-2"] });
      assert.equal(structured(ok).id, opp["opp-2"]);
      assert.equal(await usedOf(db.sql, pro.accountId), 1);
    });
  } finally {
    await freeClient.close();
    await proClient.close();
    await served.close();
  }
});

dbTest("MCP unexpected errors answer internal_error without database text", async (db) => {
  const secret = 'relation "secret_table" does not exist';
  // Every content statement fails as a broken query would; a thenable rather than a rejected
  // promise, so that fragments which are built but never awaited raise nothing on their own.
  // The key check and the charge run on the real database.
  const failing = { then: (_: unknown, reject: (e: Error) => void) => reject(new Error(secret)) };
  const brokenSql = (() => failing) as unknown as Sql;
  const context = { publicBaseUrl: "https://oppintel.example" };
  const handler = createMcpHandler({
    sql: db.sql,
    context,
    content: createContent(brokenSql, context),
  });
  const { key, accountId } = await makeKey(db.sql, "pro");
  const logged: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => logged.push(args.map(String).join(" "));
  let text: string;
  try {
    const res = await handler(
      new Request("http://x/mcp/", {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
          "Mcp-Protocol-Version": "2025-06-18",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 7,
          method: "tools/call",
          params: { name: "get_overview", arguments: {} },
        }),
      }),
      key,
    );
    assert.equal(res.response.status, 200);
    assert.equal(res.response.headers.get("x-quota-used"), "0");
    text = await res.response.text();
  } finally {
    console.error = original;
  }
  const body = JSON.parse(text);
  assert.equal(body.result.isError, true);
  assert.equal(body.result.structuredContent.error, "internal_error");
  assert.ok(!text.includes("secret_table"), "no database text in the answer");
  assert.ok(logged.some((l) => l.includes("secret_table") && l.includes("get_overview")));
  assert.equal(await usedOf(db.sql, accountId), 0, "the failed call was given back");
});
