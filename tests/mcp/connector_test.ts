/**
 * The `search` and `fetch` tools as a ChatGPT connector uses them (OpenAI's documented shapes),
 * on both protocol eras: a 2025-era client and one pinned to 2026-07-28, over a real socket, with
 * PUBLIC_BASE_URL set to that server so that every result's url can be opened. Checked: the
 * tools' single-string inputs, one text block equal to structuredContent, `{results: [{id,
 * title, url}]}` with non-empty urls that answer 200, `{id, title, text, url, metadata}` for every
 * result, and tiers and charges as the tools they stand for (query_opportunities,
 * get_opportunity, the blog tools), never charging a failure.
 */
import assert from "node:assert/strict";
import {
  type CallToolResult,
  Client,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { dbTest } from "../helpers/db.ts";
import { loadFixture, makeKey, setUsed, usedOf } from "../helpers/app.ts";
import { serveOnPort } from "../helpers/web.ts";

const ERAS = [{ name: "2025-era", mode: "legacy" as const }, {
  name: "2026-07-28",
  mode: { pin: "2026-07-28" },
}];

async function connect(base: string, key: string, mode: (typeof ERAS)[number]["mode"]) {
  const client = new Client({ name: "chatgpt-shaped", version: "0.0.0" }, {
    versionNegotiation: { mode },
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp/`), {
      requestInit: { headers: { "X-API-Key": key } },
    }),
  );
  return client;
}

/** The JSON of the one text block, after checking it equals structuredContent. */
function jsonOf(result: CallToolResult): Record<string, unknown> {
  assert.equal(result.content.length, 1, "exactly one content item");
  const [block] = result.content;
  assert.equal(block.type, "text");
  const body = JSON.parse((block as { text: string }).text);
  assert.deepEqual(result.structuredContent, body);
  return body;
}

interface Result {
  id: string;
  title: string;
  url: string;
}

dbTest("search and fetch, ChatGPT-shaped, on both eras", async (db, t) => {
  const ids = await loadFixture(db.sql);
  const served = serveOnPort(db);
  try {
    await t.step("the tools take one string each, read only, with output schemas", async () => {
      const { key } = await makeKey(db.sql, "free");
      const client = await connect(served.base, key, "legacy");
      const { tools } = await client.listTools();
      await client.close();
      for (const [name, arg] of [["search", "query"], ["fetch", "id"]]) {
        const tool = tools.find((x) => x.name === name);
        assert.ok(tool, name);
        assert.deepEqual(Object.keys(tool.inputSchema.properties ?? {}), [arg]);
        assert.deepEqual(tool.inputSchema.required, [arg]);
        assert.equal(
          (tool.inputSchema.properties as Record<string, { type: string }>)[arg].type,
          "string",
        );
        assert.equal(tool.annotations?.readOnlyHint, true);
        assert.equal(tool.annotations?.openWorldHint, false);
        assert.ok(tool.outputSchema);
      }
    });

    for (const era of ERAS) {
      await t.step(
        `${era.name}: a Pro key searches opportunities and articles for 1 call`,
        async () => {
          const pro = await makeKey(db.sql, "pro");
          const client = await connect(served.base, pro.key, era.mode);
          try {
            const body = jsonOf(
              await client.callTool({
                name: "search",
                arguments: { query: "invoice" },
              }) as CallToolResult,
            );
            // OpenAI's results, and how well the opportunities answer the query.
            assert.deepEqual(Object.keys(body).sort(), [
              "confidence",
              "ignored_terms",
              "read_as",
              "results",
              "suggestions",
              "unmatched_terms",
            ]);
            assert.equal(body.confidence, 1);
            assert.deepEqual(body.unmatched_terms, []);
            const results = body.results as Result[];
            assert.deepEqual(results.map((r) => r.id), [
              `opportunity:${ids["opp-3"]}`,
              `opportunity:${ids["opp-4"]}`,
              "article:invoices",
            ]);
            assert.equal(await usedOf(db.sql, pro.accountId), 1, "charged as query_opportunities");
            for (const result of results) {
              assert.deepEqual(Object.keys(result).sort(), ["id", "title", "url"]);
              assert.ok(result.title.length > 0 && result.url.length > 0);
              const page = await fetch(result.url);
              assert.equal(page.status, 200, result.url);
              assert.match(page.headers.get("content-type")!, /^text\/html/);
              await page.body?.cancel();
            }
            // fetch every result: an opportunity costs 1 (as get_opportunity), an article nothing.
            for (const result of results) {
              const doc = jsonOf(
                await client.callTool({
                  name: "fetch",
                  arguments: { id: result.id },
                }) as CallToolResult,
              );
              assert.deepEqual(Object.keys(doc).sort(), ["id", "metadata", "text", "title", "url"]);
              assert.equal(doc.id, result.id);
              assert.equal(doc.title, result.title);
              assert.equal(doc.url, result.url);
              assert.ok(String(doc.text).length > 0);
              assert.equal(typeof doc.metadata, "object");
            }
            assert.equal(await usedOf(db.sql, pro.accountId), 3, "two opportunities fetched");
            const opportunity = jsonOf(
              await client.callTool({
                name: "fetch",
                arguments: { id: `opportunity:${ids["opp-1"]}` },
              }) as CallToolResult,
            );
            assert.match(String(opportunity.text), /## Key features\n\n- One\n- Two/);
            assert.match(String(opportunity.text), /\[user\]/, "evidence, scrubbed");
            assert.equal((opportunity.metadata as Record<string, unknown>).score, 91);
          } finally {
            await client.close();
          }
        },
      );

      await t.step(
        `${era.name}: a Free key gets articles and page:plans, free of charge`,
        async () => {
          const free = await makeKey(db.sql, "free");
          const client = await connect(served.base, free.key, era.mode);
          try {
            const result = await client.callTool({
              name: "search",
              arguments: { query: "invoice" },
            }) as CallToolResult;
            assert.ok(!result.isError);
            const body = jsonOf(result);
            const results = body.results as Result[];
            assert.deepEqual(results.map((r) => r.id), ["article:invoices", "page:plans"]);
            assert.match(results[1].title, /Pro plan/);
            assert.equal(await usedOf(db.sql, free.accountId), 0, "articles are free");
            const plans = await fetch(results[1].url);
            assert.equal(plans.status, 200);
            assert.match(await plans.text(), /id="plans-title"/);
            const doc = jsonOf(
              await client.callTool({
                name: "fetch",
                arguments: { id: "page:plans" },
              }) as CallToolResult,
            );
            assert.match(String(doc.text), /Pro and Business/);
            // fetch reads an opportunity on every plan, as get_opportunity does.
            const opp = jsonOf(
              await client.callTool({
                name: "fetch",
                arguments: { id: `opportunity:${ids["opp-2"]}` },
              }) as CallToolResult,
            );
            assert.equal(opp.id, `opportunity:${ids["opp-2"]}`);
            assert.equal(await usedOf(db.sql, free.accountId), 1);
          } finally {
            await client.close();
          }
        },
      );
    }

    await t.step("failures are tool errors and never charged", async () => {
      const free = await makeKey(db.sql, "free");
      const client = await connect(served.base, free.key, "legacy");
      try {
        const cases: [Record<string, unknown>, string][] = [
          [{ id: "opportunity:999999" }, "not_found"],
          [{ id: "article:no-such-post" }, "not_found"],
          [{ id: "article:draft-post" }, "not_found"],
          [{ id: "opportunity:abc" }, "invalid_parameter"],
          [{ id: "https://example.com/x" }, "invalid_parameter"],
          [{}, "invalid_parameter"],
        ];
        for (const [args, code] of cases) {
          const result = await client.callTool({
            name: "fetch",
            arguments: args,
          }) as CallToolResult;
          assert.equal(result.isError, true, JSON.stringify(args));
          assert.equal(jsonOf(result).error, code, JSON.stringify(args));
        }
        const long = await client.callTool({
          name: "search",
          arguments: { query: "x".repeat(101) },
        }) as CallToolResult;
        assert.equal(jsonOf(long).error, "invalid_parameter");
        assert.equal(await usedOf(db.sql, free.accountId), 0);
        const blank = jsonOf(
          await client.callTool({ name: "search", arguments: { query: "  " } }) as CallToolResult,
        );
        assert.deepEqual(blank, {
          results: [],
          confidence: null,
          unmatched_terms: [],
          suggestions: [],
          ignored_terms: [],
          read_as: null,
        });
        assert.equal(await usedOf(db.sql, free.accountId), 0, "an empty search reads nothing");
      } finally {
        await client.close();
      }
    });

    await t.step(
      "at the quota limit: Pro search is quota_exceeded, Free search still answers",
      async () => {
        const pro = await makeKey(db.sql, "pro");
        await setUsed(db.sql, pro.accountId, 1000);
        const free = await makeKey(db.sql, "free");
        await setUsed(db.sql, free.accountId, 20);
        const proClient = await connect(served.base, pro.key, "legacy");
        const freeClient = await connect(served.base, free.key, "legacy");
        try {
          const refused = await proClient.callTool({
            name: "search",
            arguments: { query: "ci" },
          }) as CallToolResult;
          assert.equal(refused.isError, true);
          assert.equal(jsonOf(refused).error, "quota_exceeded");
          const articles = jsonOf(
            await freeClient.callTool({
              name: "search",
              arguments: { query: "ci" },
            }) as CallToolResult,
          );
          assert.deepEqual((articles.results as Result[]).map((r) => r.id), [
            "article:ci-analysis",
            "page:plans",
          ]);
          const detail = await freeClient.callTool({
            name: "fetch",
            arguments: { id: `opportunity:${ids["opp-1"]}` },
          }) as CallToolResult;
          assert.equal(jsonOf(detail).error, "quota_exceeded");
          const article = jsonOf(
            await freeClient.callTool({
              name: "fetch",
              arguments: { id: "article:ci-analysis" },
            }) as CallToolResult,
          );
          assert.equal(article.title, "Why CI flakes");
          assert.equal(await usedOf(db.sql, pro.accountId), 1000);
          assert.equal(await usedOf(db.sql, free.accountId), 20);
        } finally {
          await proClient.close();
          await freeClient.close();
        }
      },
    );
  } finally {
    await served.close();
  }
});
