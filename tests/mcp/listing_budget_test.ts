/**
 * What `tools/list` costs a conversation: every client that connects pays its whole text in
 * context (about four characters a token), so it has a budget of 32,000 characters for all
 * sixteen tools, on both protocol eras the endpoint speaks. Also: the output schemas stay real
 * schemas (every record keeps its fields and types), and no input field is described twice.
 */
import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { dbTest } from "../helpers/db.ts";
import {
  loadFixture,
  makeKey,
  mcpPost,
  MODERN_META,
  MODERN_REVISION,
  type TestApp,
  testApp,
} from "../helpers/app.ts";

/** The budget of the `tools/list` result's JSON text, in characters. */
const BUDGET = 32_000;

/** The JSON text of the tools/list result as a 2025 or a 2026-07-28 client receives it. */
async function listingText(app: TestApp, key: string, era: "2025" | "2026"): Promise<string> {
  const modern = era === "2026";
  const res = await mcpPost(
    app,
    key,
    { id: 1, method: "tools/list", params: modern ? { _meta: MODERN_META } : {} },
    {
      "Mcp-Protocol-Version": modern ? MODERN_REVISION : "2025-11-25",
      ...(modern ? { "Mcp-Method": "tools/list" } : {}),
    },
  );
  assert.equal(res.status, 200);
  const { result } = await res.json();
  return JSON.stringify(result);
}

type Schema = Record<string, unknown>;

/** Every `description` in a schema, with the path where it stands. */
function descriptions(node: unknown, path = ""): [string, string][] {
  if (typeof node !== "object" || node === null) return [];
  return Object.entries(node).flatMap(([k, v]) =>
    k === "description" && typeof v === "string"
      ? [[path, v] as [string, string]]
      : descriptions(v, `${path}/${k}`)
  );
}

dbTest("MCP tools/list fits 32,000 characters with all sixteen tools", async (db, t) => {
  const app = testApp(db);
  const { key } = await makeKey(db.sql, "free");
  for (const era of ["2025", "2026"] as const) {
    await t.step(`era ${era}`, async () => {
      const text = await listingText(app, key, era);
      const { tools } = JSON.parse(text) as { tools: Schema[] };
      assert.equal(tools.length, 16);
      assert.ok(text.length <= BUDGET, `tools/list is ${text.length} characters (${BUDGET} max)`);
    });
  }
  const { tools } = JSON.parse(await listingText(app, key, "2025")) as { tools: Schema[] };
  const byName = new Map(tools.map((tool) => [tool.name as string, tool]));

  await t.step("output schemas carry no descriptions (the tool's description does)", () => {
    for (const tool of tools) {
      assert.deepEqual(descriptions(tool.outputSchema), [], `${tool.name}`);
    }
  });

  await t.step("no input description is repeated, within a tool or across tools", () => {
    const seen = new Map<string, string>();
    for (const tool of tools) {
      for (const [path, text] of descriptions(tool.inputSchema)) {
        // Short ones ("Opportunity id", "Items per page, 1 to 100") may recur.
        if (text.length < 60) continue;
        const where = `${tool.name}${path}`;
        assert.ok(!seen.has(text), `${where} repeats ${seen.get(text)}`);
        seen.set(text, where);
      }
    }
  });

  await t.step("output schemas still give every field of a record its type", () => {
    const detail = (byName.get("get_opportunity")!.outputSchema as { anyOf: Schema[] }).anyOf[0];
    const properties = detail.properties as Record<string, Schema>;
    assert.deepEqual(properties.score, { type: "integer", minimum: 0, maximum: 100 });
    assert.equal((properties.evidence.items as Schema).type, "object");
    assert.ok((detail.required as string[]).includes("evidence"));
    const list = (byName.get("query_opportunities")!.outputSchema as { anyOf: Schema[] })
      .anyOf[0];
    const item = (list.properties as Record<string, Schema>).items.items as Schema;
    assert.deepEqual(
      Object.keys(item.properties as Schema).length,
      19,
      "a list item names its 18 fields and its relevance",
    );
  });

  await t.step(
    "the output schemas still refuse a wrong answer and admit the error body",
    async () => {
      const ajv = new Ajv2020({ strict: false });
      addFormats.default(ajv);
      const opp = await loadFixture(db.sql);
      const pro = await makeKey(db.sql, "pro");
      const call = async (name: string, args: Record<string, unknown>) => {
        const res = await mcpPost(app, pro.key, {
          id: 2,
          method: "tools/call",
          params: { name, arguments: args },
        }, { "Mcp-Protocol-Version": "2025-11-25" });
        return (await res.json()).result.structuredContent as Record<string, unknown>;
      };
      const validate = (name: string) => ajv.compile(byName.get(name)!.outputSchema as Schema);
      const list = await call("query_opportunities", {});
      assert.ok(validate("query_opportunities")(list));
      const items = list.items as Record<string, unknown>[];
      const scoreAsText = { ...list, items: [{ ...items[0], score: "high" }] };
      assert.equal(validate("query_opportunities")(scoreAsText), false, "a score must be a number");
      const { title: _, ...untitled } = await call("get_opportunity", { id: opp["opp-1"] });
      assert.equal(validate("get_opportunity")(untitled), false, "a record lacks no field");
      const notFound = await call("get_theme", { id: 0 });
      assert.equal(notFound.error, "not_found");
      assert.ok(validate("get_theme")(notFound), "an error body passes");
      const match = await call("match_idea", { text: "flaky tests in CI" });
      assert.ok(validate("match_idea")(match));
      const near = match.opportunities as Record<string, unknown>[];
      assert.ok(near.length > 0);
      const noUrl = { ...match, opportunities: [{ ...near[0], url: 7 }] };
      assert.equal(validate("match_idea")(noUrl), false, "a briefed record keeps its types");
      assert.equal(validate("get_usage")({}), false, "an empty object is neither answer nor error");
    },
  );
});
