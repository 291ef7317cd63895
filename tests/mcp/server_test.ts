/**
 * The hosted MCP endpoint (DECISIONS.md section 5) with the SDK's real Client over HTTP: the
 * service's handler is served on 127.0.0.1, so requests pass the real routing, key check and
 * transport exactly as in production.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  type CallToolResult,
  ErrorCode,
  McpError,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { dbTest } from "../helpers/db.ts";
import {
  loadFixture,
  makeKey,
  revokeKey,
  setUsed,
  type TestApp,
  testApp,
  usedOf,
} from "../helpers/app.ts";
import type { Sql } from "../../src/db/open.ts";
import { generateApiKey } from "../../src/accounts/keys.ts";
import { createMcpHandler } from "../../src/mcp/server.ts";
import { createContent } from "../../src/catalog/content.ts";
import { resetAtOf } from "../../src/accounts/usage.ts";

const PRO_TOOLS = ["query_opportunities", "list_trending_themes", "get_theme", "get_theme_history"];
const FREE_TOOLS = [
  "get_overview",
  "get_opportunity",
  "list_blog_posts",
  "get_blog_post",
  "get_usage",
  "search",
  "fetch",
];
/** The watch tools: free, and they change state (not read-only). */
const WATCH_TOOLS = ["create_watch", "list_watches", "delete_watch"];

interface Served {
  /** Base URL of the MCP endpoint, e.g. http://127.0.0.1:1234/mcp/ */
  url: string;
  close(): Promise<void>;
}

function serve(app: TestApp): Served {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request) => app.handler(request),
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}/mcp/`,
    close: () => server.shutdown(),
  };
}

interface Connected {
  client: Client;
  /** Headers of the last HTTP response the client received. */
  lastHeaders(): Headers;
  close(): Promise<void>;
}

/** A real MCP client, connected (initialize + notifications/initialized). */
async function connect(
  url: string,
  auth: { key?: string; header?: Record<string, string> } = {},
): Promise<Connected> {
  let last = new Headers();
  const headers: Record<string, string> = { ...auth.header };
  if (auth.key) headers["X-API-Key"] = auth.key;
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers },
    fetch: async (input: string | URL, init?: RequestInit) => {
      const response = await fetch(input, init);
      last = response.headers;
      return response;
    },
  });
  const client = new Client({ name: "oppintel-test", version: "0.0.0" });
  await client.connect(transport);
  await client.listTools();
  return { client, lastHeaders: () => last, close: () => client.close() };
}

/**
 * tools/call through the SDK client, which (once it has listed the tools, as connect() does)
 * checks structuredContent against the tool's outputSchema, error results included.
 */
async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<CallToolResult> {
  return await client.callTool({ name, arguments: args }) as CallToolResult;
}

/** The structured body of a tool result, after checking the text block carries the same JSON. */
function structured(result: CallToolResult): Record<string, unknown> {
  assert.ok(result.structuredContent, "structuredContent is present");
  assert.equal(result.content.length, 1);
  const [block] = result.content;
  assert.equal(block.type, "text");
  assert.deepEqual(JSON.parse((block as { text: string }).text), result.structuredContent);
  return result.structuredContent as Record<string, unknown>;
}

/** The error body of an isError result, without its request_id (which every one carries). */
function errorOf(result: CallToolResult): Record<string, unknown> {
  assert.equal(result.isError, true, `expected an error result: ${JSON.stringify(result)}`);
  const { request_id, ...body } = structured(result);
  assert.equal(typeof request_id, "string", "an MCP error result carries request_id");
  return body;
}

/** A REST answer's JSON; an error body without its request_id, to compare with MCP's. */
async function restJson(app: TestApp, path: string, key: string): Promise<Record<string, unknown>> {
  const { request_id: _, ...body } = await (await app.get(path, key)).json();
  return body;
}

async function themeIds(sql: Sql): Promise<Record<string, number>> {
  const rows = await sql<{ slug: string; id: number }[]>`select slug, id from themes`;
  return Object.fromEntries(rows.map((r) => [r.slug, r.id]));
}

async function rawPost(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
  method = "POST",
): Promise<Response> {
  return await fetch(url, {
    method,
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      ...headers,
    },
    body: method === "POST" ? JSON.stringify(body) : undefined,
  });
}

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "raw", version: "0" },
  },
};

dbTest("MCP initialize and tools/list: ten described tools, free of charge", async (db, t) => {
  const app = testApp(db);
  const served = serve(app);
  const { key, accountId } = await makeKey(db.sql, "free");
  const { client, lastHeaders, close } = await connect(served.url, { key });
  try {
    await t.step("initialize names the server and gives instructions", () => {
      assert.equal(client.getServerVersion()?.name, "oppintel");
      assert.match(client.getInstructions() ?? "", /get_overview/);
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
        const dialect = "https://json-schema.org/draft/2020-12/schema";
        assert.equal(tool.inputSchema.$schema, dialect);
        assert.equal(tool.outputSchema?.$schema, dialect);
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
      assert.deepEqual(required("get_theme"), ["id"]);
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
    const result = await client.callTool({ name, arguments: args }) as CallToolResult;
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
    };
    for (const name of PRO_TOOLS) {
      await t.step(`a Free key on ${name} gets plan_required`, async () => {
        const body = errorOf(await call(freeClient.client, name, proArgs[name]));
        assert.equal(body.error, "plan_required");
        assert.equal(body.required_plan, "pro");
        assert.equal(body.current_plan, "free");
        assert.match(String(body.message), new RegExp(name));
        assert.equal(freeClient.lastHeaders().get("x-quota-used"), "0");
      });
    }
    await t.step("the plan check matches REST's 403", async () => {
      const rest = await restJson(app, "/api/v1/opportunities", free.key);
      const mcp = errorOf(await call(freeClient.client, "query_opportunities"));
      assert.deepEqual({ ...mcp, message: "" }, { ...rest, message: "" });
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

dbTest("MCP quota: exhausted gives quota_exceeded, free calls go on", async (db, t) => {
  const app = testApp(db);
  const served = serve(app);
  const opp = await loadFixture(db.sql);
  const free = await makeKey(db.sql, "free");
  await setUsed(db.sql, free.accountId, 20);
  const { client, lastHeaders, close } = await connect(served.url, { key: free.key });
  try {
    await t.step("initialize, tools/list and ping still work at the limit", async () => {
      assert.equal((await client.listTools()).tools.length, 14);
      await client.ping();
      assert.equal(await usedOf(db.sql, free.accountId), 20);
    });
    for (const [name, args] of [["get_overview", {}], ["get_opportunity", { id: opp["opp-1"] }]]) {
      await t.step(`${name} gets quota_exceeded with current, limit and reset_at`, async () => {
        const body = errorOf(
          await call(client, name as string, args as Record<string, unknown>),
        );
        assert.equal(body.error, "quota_exceeded");
        assert.equal(body.current, 20);
        assert.equal(body.limit, 20);
        assert.equal(body.reset_at, resetAtOf(new Date()));
        assert.equal(lastHeaders().get("x-quota-remaining"), "0");
        assert.equal(lastHeaders().get("x-quota-used"), "20");
      });
    }
    await t.step("the body equals REST's 429", async () => {
      const mcp = errorOf(await call(client, "get_opportunity", { id: opp["opp-1"] }));
      const rest = await restJson(app, `/api/v1/opportunities/${opp["opp-1"]}`, free.key);
      assert.deepEqual(mcp, rest);
    });
    await t.step("blog tools cost nothing and keep working", async () => {
      const list = await call(client, "list_blog_posts");
      assert.equal(structured(list).total, 2);
      const post = await call(client, "get_blog_post", { slug: "invoices" });
      assert.equal(structured(post).slug, "invoices");
    });
    await t.step("an unknown id is a 404, not a 429", async () => {
      const body = errorOf(await call(client, "get_opportunity", { id: 999999 }));
      assert.equal(body.error, "not_found");
    });
    await t.step("nothing went past the limit", async () => {
      assert.equal(await usedOf(db.sql, free.accountId), 20);
    });
  } finally {
    await close();
    await served.close();
  }
});

dbTest("MCP and REST draw on one counter per account", async (db) => {
  const app = testApp(db);
  const served = serve(app);
  const opp = await loadFixture(db.sql);
  const free = await makeKey(db.sql, "free");
  const { client, lastHeaders, close } = await connect(served.url, { key: free.key });
  try {
    assert.equal((await app.get(`/api/v1/opportunities/${opp["opp-1"]}`, free.key)).status, 200);
    assert.equal(await usedOf(db.sql, free.accountId), 1);
    const result = await call(client, "get_opportunity", { id: opp["opp-1"] });
    assert.notEqual(result.isError, true);
    assert.equal(await usedOf(db.sql, free.accountId), 2);
    assert.equal(lastHeaders().get("x-quota-used"), "2");
    assert.equal(lastHeaders().get("x-quota-remaining"), "18");
    await setUsed(db.sql, free.accountId, 19);
    assert.notEqual((await call(client, "get_overview")).isError, true);
    const rest = await app.get(`/api/v1/opportunities/${opp["opp-1"]}`, free.key);
    assert.equal(rest.status, 429);
    assert.equal(await usedOf(db.sql, free.accountId), 20);
  } finally {
    await close();
    await served.close();
  }
});

dbTest("MCP keys: checked before JSON-RPC, in header, Bearer or ?api_key=", async (db, t) => {
  const app = testApp(db);
  const served = serve(app);
  const { key, keyId, accountId } = await makeKey(db.sql, "pro");

  async function jsonRpcError(res: Response, status: number, code: string) {
    assert.equal(res.status, status);
    assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    // A 401 starts OAuth discovery (RFC 9728); a 403 (a known key, switched off) does not.
    const challenge = res.headers.get("www-authenticate");
    if (status === 401) {
      const metadata = "https://oppintel.example/.well-known/oauth-protected-resource/mcp/";
      assert.ok(challenge?.startsWith("Bearer "), challenge ?? "no challenge");
      assert.ok(challenge?.includes(`resource_metadata="${metadata}"`), challenge!);
      assert.equal(/error="invalid_token"/.test(challenge!), code !== "missing_api_key");
    } else assert.equal(challenge, null);
    const body = await res.json();
    assert.equal(body.jsonrpc, "2.0");
    assert.equal(body.id, null);
    assert.equal(body.error.code, -32001);
    assert.equal(typeof body.error.message, "string");
    assert.equal(body.error.data.error, code);
    return body;
  }

  try {
    await t.step("no key: 401 missing_api_key", async () => {
      await jsonRpcError(await rawPost(served.url, INITIALIZE), 401, "missing_api_key");
    });
    await t.step("an unknown key: 401 invalid_api_key", async () => {
      const res = await rawPost(served.url, INITIALIZE, { "X-API-Key": generateApiKey() });
      await jsonRpcError(res, 401, "invalid_api_key");
    });
    await t.step("the SDK client without a key or auth provider fails to connect", async () => {
      await assert.rejects(() => connect(served.url));
    });
    await t.step("X-API-Key, Bearer and ?api_key= all connect, on /mcp and /mcp/", async () => {
      const variants = [
        connect(served.url, { key }),
        connect(served.url.replace(/\/$/, ""), { key }),
        connect(served.url, { header: { Authorization: `Bearer ${key}` } }),
        connect(`${served.url}?api_key=${key}`),
      ];
      for (const pending of variants) {
        const c = await pending;
        assert.equal((await c.client.listTools()).tools.length, 14);
        await c.close();
      }
    });
    await t.step("GET and DELETE answer 405; OPTIONS is a preflight", async () => {
      for (const method of ["GET", "DELETE"]) {
        const res = await rawPost(served.url, null, { "X-API-Key": key }, method);
        assert.equal(res.status, 405);
        const body = await res.json();
        assert.equal(body.jsonrpc, "2.0");
        assert.equal(body.error.data.error, "method_not_allowed");
      }
      const pre = await fetch(served.url, { method: "OPTIONS" });
      await pre.body?.cancel();
      assert.equal(pre.status, 204);
      assert.equal(pre.headers.get("access-control-allow-origin"), "*");
      assert.match(pre.headers.get("access-control-allow-headers") ?? "", /Mcp-Protocol-Version/);
    });
    await t.step("a revoked key: 403 key_revoked with revoked_by", async () => {
      await revokeKey(db.sql, keyId, "admin");
      const res = await rawPost(served.url, INITIALIZE, { "X-API-Key": key });
      const body = await jsonRpcError(res, 403, "key_revoked");
      assert.equal(body.error.data.revoked_by, "admin");
    });
    await t.step("none of this was charged", async () => {
      assert.equal(await usedOf(db.sql, accountId), 0);
    });
  } finally {
    await served.close();
  }
});

dbTest("MCP stateless JSON: no session id, JSON body, quota headers", async (db) => {
  const app = testApp(db);
  const served = serve(app);
  const { key } = await makeKey(db.sql, "pro");
  try {
    const res = await rawPost(served.url, INITIALIZE, { "X-API-Key": key });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/json; charset=utf-8");
    assert.equal(res.headers.get("mcp-session-id"), null);
    assert.equal(res.headers.get("x-quota-limit"), "1000");
    const body = await res.json();
    assert.equal(body.result.serverInfo.name, "oppintel");
    // A later request needs no session: tools/call straight away.
    const call = await rawPost(
      served.url,
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "list_blog_posts" } },
      { "X-API-Key": key, "Mcp-Protocol-Version": "2025-06-18" },
    );
    assert.equal(call.status, 200);
    const called = await call.json();
    assert.deepEqual(called.result.structuredContent, {
      items: [],
      total: 0,
      page: 1,
      page_size: 20,
    });
  } finally {
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
