/**
 * Hostile text in every parameter of every endpoint and every tool argument (issue 13): NUL and
 * other control characters, lone surrogates, invalid percent-encoding, 10 kB values and
 * right-to-left overrides. None may answer 500 or internal_error; the ones the parameter schemas
 * refuse answer 422 invalid_parameter naming the parameter. The endpoints and tools are read from
 * the served OpenAPI document and the tool listing, so a new parameter is swept without a change
 * here.
 */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { loadFixture, makeKey, mcpPost, type TestApp, testApp } from "../helpers/app.ts";
import { openApiDocument } from "../../src/rest/openapi.ts";
import { toolListing, TOOLS, WATCH_TOOLS } from "../../src/mcp/tools.ts";

/** Values as they stand in a URL (already percent-encoded or deliberately not). */
const URL_VALUES: [string, string, "refused" | "any"][] = [
  ["NUL", "a%00b", "refused"],
  ["escape character", "%1B%5B31m", "refused"],
  ["line feed", "a%0Ab", "refused"],
  ["lone surrogate (UTF-8 of U+D800)", "%ED%A0%80", "refused"],
  ["invalid percent-encoding", "%zz", "refused"],
  ["lone percent sign", "50%", "refused"],
  ["Latin-1 byte", "caf%E9", "refused"],
  ["10 kB", "a".repeat(10_240), "any"],
  ["10 kB of NUL", "%00".repeat(10_240), "refused"],
  ["right-to-left override", "%E2%80%AEtxt.exe", "any"],
  ["raw right-to-left override", "\u202Etxt.exe", "any"],
];

/** Values as MCP arguments (JSON strings). */
const ARGUMENT_VALUES: [string, unknown][] = [
  ["NUL", "a\u0000b"],
  ["escape character", "\u001B[31m"],
  ["lone high surrogate", "\uD800"],
  ["lone low surrogate", "x\uDC00y"],
  ["invalid percent-encoding", "%zz"],
  ["10 kB", "a".repeat(10_240)],
  ["right-to-left override", "\u202Etxt.exe"],
];

interface Parameter {
  name: string;
  in: "query" | "path";
}

function restEndpoints(): { path: string; parameters: Parameter[] }[] {
  const doc = openApiDocument() as {
    paths: Record<string, { parameters?: Parameter[]; get?: { parameters?: Parameter[] } }>;
  };
  // Parameters may be declared on the path (shared by its methods) or on the GET.
  return Object.entries(doc.paths)
    .filter(([, item]) => item.get)
    .map(([path, item]) => ({
      path,
      parameters: [...item.parameters ?? [], ...item.get!.parameters ?? []],
    }));
}

function urlOf(path: string, parameters: Parameter[], target: Parameter, value: string): string {
  let url = path;
  for (const p of parameters.filter((p) => p.in === "path")) {
    url = url.replace(`{${p.name}}`, p === target ? value : p.name === "id" ? "1" : "a-slug");
  }
  return target.in === "query" ? `${url}?${target.name}=${value}` : url;
}

async function assertNoInternalError(res: Response, what: string): Promise<unknown> {
  assert.notEqual(res.status, 500, what);
  const text = await res.text();
  assert.doesNotMatch(text, /internal_error/, what);
  return text.startsWith("{") ? JSON.parse(text) : text;
}

function mcpCall(app: TestApp, key: string, name: string, args: Record<string, unknown>) {
  return mcpPost(app, key, { id: 1, method: "tools/call", params: { name, arguments: args } });
}

dbTest("every REST parameter refuses hostile text without a 500", async (db, t) => {
  const app = testApp(db);
  await loadFixture(db.sql);
  const { key } = await makeKey(db.sql, "business");
  const endpoints = restEndpoints();
  assert.ok(endpoints.length >= 9, "the OpenAPI document lists the endpoints");
  for (const { path, parameters } of endpoints) {
    for (const parameter of parameters) {
      await t.step(`${path} ${parameter.name}`, async () => {
        for (const [what, value, expected] of URL_VALUES) {
          const url = urlOf(path, parameters, parameter, value);
          const res = await app.get(url, key);
          const label = `${parameter.name}=${what}: ${res.status}`;
          const body = await assertNoInternalError(res, label) as {
            error?: string;
            details?: { param: string }[];
          };
          if (expected === "refused") {
            assert.equal(res.status, 422, label);
            assert.equal(body.error, "invalid_parameter", label);
            assert.ok(body.details?.some((d) => d.param === parameter.name), label);
          }
        }
      });
    }
  }
  assert.ok(!app.logs.some((entry) => entry.status === 500), "no 500 in the request log");
});

dbTest("hostile text in the key parameter and unknown parameters is no 500", async (db) => {
  const app = testApp(db);
  for (const [what, value] of URL_VALUES) {
    const res = await app.get(`/api/v1/overview?api_key=${value}&other=${value}`);
    await assertNoInternalError(res, what);
    assert.equal(res.status, 401, what);
  }
});

dbTest("every MCP tool argument refuses hostile text with an error result", async (db, t) => {
  const app = testApp(db);
  await loadFixture(db.sql);
  const { key } = await makeKey(db.sql, "business");
  for (const tool of [...TOOLS, ...WATCH_TOOLS]) {
    const listed = toolListing(tool).inputSchema as { properties?: Record<string, unknown> };
    for (const argument of Object.keys(listed.properties ?? {})) {
      await t.step(`${tool.name} ${argument}`, async () => {
        for (const [what, value] of ARGUMENT_VALUES) {
          const args: Record<string, unknown> = { [argument]: value };
          if (argument !== "id" && "id" in (listed.properties ?? {})) args.id = 1;
          if (argument !== "slug" && "slug" in (listed.properties ?? {})) args.slug = "a-slug";
          const res = await mcpCall(app, key, tool.name, args);
          const label = `${tool.name} ${argument}=${what}`;
          const body = await assertNoInternalError(res, label) as {
            result?: { isError?: boolean; structuredContent?: { error?: string } };
            error?: { code: number };
          };
          assert.equal(res.status, 200, label);
          assert.equal(body.error, undefined, label);
          const refused = what !== "10 kB" && what !== "right-to-left override" &&
            what !== "invalid percent-encoding";
          if (refused || typeof value !== "string") {
            assert.equal(body.result?.isError, true, label);
            assert.equal(body.result?.structuredContent?.error, "invalid_parameter", label);
          }
        }
      });
    }
  }
});
