/**
 * Hostile text in every parameter of every endpoint and every tool argument: NUL and
 * other control characters, lone surrogates, invalid percent-encoding, 10 kB values and
 * right-to-left overrides. None may answer 500 or internal_error; the ones the parameter schemas
 * refuse answer 422 invalid_parameter naming the parameter. The endpoints and tools are read from
 * the served OpenAPI document and the tool listing, so a new parameter is swept without a change
 * here. The JSON bodies of POST and PATCH /api/v1/watches are swept field by field too: hostile
 * text, huge strings, wrong types and unknown fields answer 422 naming the field, and write
 * nothing. Runs of search operators in `q` are swept in sweep_q_test.ts.
 */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { loadFixture, makeKey, mcpPost, type TestApp, testApp } from "../helpers/app.ts";
import { toolListing, TOOLS, WATCH_TOOLS } from "../../src/mcp/tools.ts";
import { sendJson } from "../helpers/watches.ts";
import { assertNoInternalError, type Parameter, restEndpoints } from "./sweep_helpers.ts";
import { MAX_URL_BYTES } from "../../src/platform/limits.ts";

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

/** Parameters that take a paragraph: line breaks are text there (other control characters not). */
const MULTILINE = new Set(["/api/v1/ideas/match text"]);

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

function urlOf(path: string, parameters: Parameter[], target: Parameter, value: string): string {
  let url = path;
  for (const p of parameters.filter((p) => p.in === "path")) {
    url = url.replace(`{${p.name}}`, p === target ? value : p.name === "id" ? "1" : "a-slug");
  }
  return target.in === "query" ? `${url}?${target.name}=${value}` : url;
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
          const paragraph = what === "line feed" && MULTILINE.has(`${path} ${parameter.name}`);
          if (expected === "refused" && !paragraph) {
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
    const path = `/api/v1/overview?api_key=${value}&other=${value}`;
    const res = await app.get(path);
    await assertNoInternalError(res, what);
    // Two 30 kB values make a URL past the service's bound: refused before the key is read.
    assert.equal(res.status, path.length > MAX_URL_BYTES ? 414 : 401, what);
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

/** Values no field of a watch body accepts (as JSON values). */
const BODY_VALUES: [string, unknown][] = [
  ["NUL", "a\u0000b"],
  ["escape character", "\u001B[31m"],
  ["line feed", "a\nb"],
  ["lone high surrogate", "\uD800"],
  ["lone low surrogate", "x\uDC00y"],
  ["10 kB", "a".repeat(10_240)],
  ["20 kB (beyond the body limit)", "b".repeat(20_000)],
  ["array", ["x"]],
  ["number", 12345],
  ["nested object", { deep: { deeper: "\u0000" } }],
];

/** The fields of the watch bodies, as paths into a valid body. */
const CREATE_FIELDS = [
  "name",
  "query",
  "query.q",
  "query.platform",
  "query.channel",
  "query.category",
  "query.recommendation",
  "query.min_score",
  "query.online_only",
  "query.sort",
  "deliveries",
  "deliveries.webhook",
  "deliveries.webhook.url",
  "deliveries.email",
  "deliveries.feed",
];
const PATCH_FIELDS = [...CREATE_FIELDS, "paused", "rotate_webhook_secret", "rotate_feed_token"];
const UNKNOWN_FIELDS = ["extra", "query.extra", "deliveries.extra", "deliveries.webhook.extra"];

function validBody(): Record<string, unknown> {
  return {
    name: "Sweep",
    query: { q: "invoice", min_score: 10 },
    deliveries: { feed: true, webhook: { url: "http://127.0.0.1:9/hook" } },
  };
}

function withValue(path: string, value: unknown): Record<string, unknown> {
  const body = validBody();
  const keys = path.split(".");
  let node = body;
  for (const key of keys.slice(0, -1)) node = node[key] as Record<string, unknown>;
  node[keys.at(-1)!] = value;
  return body;
}

dbTest("every field of the watch bodies refuses hostile values with a 422", async (db, t) => {
  const app = testApp(db, { WATCH_WEBHOOK_ALLOW: "127.0.0.1" });
  await loadFixture(db.sql);
  const { key } = await makeKey(db.sql, "business");
  const made = await sendJson(app, "POST", "/api/v1/watches", key, validBody());
  assert.equal(made.status, 201);
  const { id } = await made.json();
  const snapshot = async () => [
    ...await db.sql`select * from watches order by id`,
    ...await db.sql`select count(*)::int as jobs from watch_jobs`,
  ];
  const before = await snapshot();
  const cases: [string, string, string, unknown][] = [
    ...CREATE_FIELDS.flatMap((f) =>
      BODY_VALUES.map(([what, v]) => ["POST", "/api/v1/watches", `${f}=${what}`, withValue(f, v)])
    ),
    ...PATCH_FIELDS.flatMap((f) =>
      BODY_VALUES.map((
        [what, v],
      ) => ["PATCH", `/api/v1/watches/${id}`, `${f}=${what}`, withValue(f, v)])
    ),
    ...UNKNOWN_FIELDS.flatMap((f) =>
      [
        ["POST", "/api/v1/watches", `unknown ${f}`, withValue(f, 1)],
        ["PATCH", `/api/v1/watches/${id}`, `unknown ${f}`, withValue(f, 1)],
      ] as [string, string, string, unknown][]
    ),
  ] as [string, string, string, unknown][];
  for (const [method, path, label, body] of cases) {
    await t.step(`${method} ${label}`, async () => {
      const res = await sendJson(app, method, path, key, body);
      const answer = await assertNoInternalError(res, label) as {
        error?: string;
        details?: { param: string; message: string }[];
      };
      assert.equal(res.status, 422, `${label}: ${JSON.stringify(answer).slice(0, 300)}`);
      assert.equal(answer.error, "invalid_parameter", label);
      const field = label.replace(/^unknown /, "").split("=")[0];
      const named = answer.details?.some((d) =>
        d.param === field || d.param.startsWith(`${field}.`) || d.param === "body"
      );
      assert.ok(named, `${label}: ${JSON.stringify(answer.details)}`);
    });
  }
  const deep = (open: string, close: string) => `${open.repeat(5000)}${close.repeat(5000)}`;
  for (
    const [what, raw] of [
      ["not JSON", "{"],
      ["a JSON string", '"x"'],
      ["null", "null"],
      ["5,000 nested arrays in a field", `{"name":${deep("[", "]")}}`],
      ["5,000 nested objects", `{"query":${deep('{"a":', "}").replace(/\{"a":\}/, "{}")}}`],
    ]
  ) {
    for (
      const [method, path] of [["POST", "/api/v1/watches"], ["PATCH", `/api/v1/watches/${id}`]]
    ) {
      const res = await sendJson(app, method, path, key, raw);
      await assertNoInternalError(res, what);
      assert.equal(res.status, 422, `${method} ${what}`);
    }
  }
  assert.deepEqual(await snapshot(), before, "nothing written");
  assert.ok(!app.logs.some((entry) => entry.status === 500), "no 500 in the request log");
});
