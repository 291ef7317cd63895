/**
 * A sentence encoder that cannot load (src/catalog/meaning/encoder.ts): questions are still
 * answered 200, by their words, `read_as.by_meaning` says so, stop words are named as ignored,
 * and /healthz reports the failure.
 */
import assert from "node:assert/strict";
import { startEncoder, stopEncoder } from "../../src/catalog/meaning/encoder.ts";
import { dbTest } from "../helpers/db.ts";
import { loadFixture, makeKey, testApp } from "../helpers/app.ts";
import { call, connect, serve, structured } from "../helpers/mcp_http.ts";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

dbTest("a model that fails to load leaves answers lexical and 200", async (db) => {
  const failed = await startEncoder({ load: () => Promise.reject(new Error("no weights here")) });
  try {
    assert.equal(failed, undefined);
    await loadFixture(db.sql);
    const app = testApp(db);
    const { key } = await makeKey(db.sql, "pro");
    const response = await app.get("/api/v1/opportunities?q=chasing+the+invoices", key);
    assert.equal(response.status, 200);
    const body = await response.json();
    assert.ok(body.items.length > 0);
    assert.equal(body.read_as.by_meaning, false);
    assert.deepEqual(body.read_as.meant_themes, []);
    assert.deepEqual(body.ignored_terms, ["the"]);
    const health = await app.get("/healthz");
    assert.equal(health.status, 200);
    assert.deepEqual((await health.json()).encoder, { state: "failed", error: "no weights here" });
  } finally {
    stopEncoder(); // the encoder is one per process: the next test starts with none
  }
});

dbTest("read_as and ignored_terms on the export and the MCP tools of both eras", async (db, t) => {
  await loadFixture(db.sql);
  const app = testApp(db);
  const { key } = await makeKey(db.sql, "business");
  await t.step("the export's headers", async () => {
    const response = await app.get("/api/v1/opportunities/export?q=low+effort+invoices", key);
    assert.equal(response.status, 200);
    await response.body?.cancel();
    const readAs = JSON.parse(decodeURIComponent(response.headers.get("X-Read-As")!));
    assert.deepEqual(readAs.filters, { max_tech_difficulty: 4 });
    assert.equal(response.headers.get("X-Ignored-Terms"), "");
  });
  const served = serve(app);
  try {
    await t.step("query_opportunities, 2025 era (outputSchema checked by the client)", async () => {
      const client = await connect(served.url, { key });
      const body = structured(await call(client.client, "query_opportunities", { q: "the ideas" }));
      await client.close();
      assert.deepEqual(body.ignored_terms, ["ideas", "the"]);
      assert.equal((body.read_as as { by_meaning: boolean }).by_meaning, false);
    });
    await t.step("query_opportunities, 2026-07-28", async () => {
      const client = new Client({ name: "t", version: "0" }, {
        versionNegotiation: { mode: { pin: "2026-07-28" } },
      });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(served.url), {
          requestInit: { headers: { "X-API-Key": key } },
        }),
      );
      await client.listTools();
      const result = await client.callTool({
        name: "query_opportunities",
        arguments: { q: "painful invoices" },
      });
      await client.close();
      const body = result.structuredContent as Record<string, { filters: unknown }>;
      assert.deepEqual(body.read_as.filters, { min_pain_point_intensity: 7 });
    });
  } finally {
    await served.close();
  }
});
