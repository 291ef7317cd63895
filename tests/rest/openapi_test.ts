/**
 * Real answers match the schemas the OpenAPI document publishes for them, checked by ajv (an
 * independent JSON Schema validator) against the document as served.
 */
import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { dbTest } from "../helpers/db.ts";
import { loadFixture, makeKey, setUsed, testApp } from "../helpers/app.ts";
import { openApiDocument } from "../../src/rest/openapi.ts";
import { PLAN_LIMITS, PLAN_NAMES, PLAN_PRICES, PLANS } from "../../src/platform/plans.ts";

dbTest("every documented answer validates against its OpenAPI schema", async (db, t) => {
  const app = testApp(db);
  const ids = await loadFixture(db.sql);
  const pro = await makeKey(db.sql, "pro");
  const free = await makeKey(db.sql, "free");
  const doc = await (await app.get("/api/v1/openapi.json")).json();
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  for (const [name, schema] of Object.entries(doc.components.schemas)) {
    ajv.addSchema(schema as object, `#/components/schemas/${name}`);
  }
  const themeId = (await db.sql`select id from themes limit 1`)[0].id;
  const cases: [string, string, string, number][] = [
    ["/api/v1/opportunities", "/api/v1/opportunities", pro.key, 200],
    [`/api/v1/opportunities/${ids["opp-1"]}`, "/api/v1/opportunities/{id}", pro.key, 200],
    ["/api/v1/blog", "/api/v1/blog", pro.key, 200],
    ["/api/v1/blog/ci-analysis", "/api/v1/blog/{slug}", pro.key, 200],
    ["/api/v1/overview", "/api/v1/overview", pro.key, 200],
    ["/api/v1/categories", "/api/v1/categories", pro.key, 200],
    ["/api/v1/themes/trending", "/api/v1/themes/trending", pro.key, 200],
    [`/api/v1/themes/${themeId}`, "/api/v1/themes/{id}", pro.key, 200],
    ["/api/v1/opportunities/999999", "/api/v1/opportunities/{id}", pro.key, 404],
    ["/api/v1/opportunities?min_score=101", "/api/v1/opportunities", pro.key, 422],
    ["/api/v1/opportunities", "/api/v1/opportunities", free.key, 403],
    ["/api/v1/opportunities", "/api/v1/opportunities", "", 401],
  ];
  for (const [url, path, key, status] of cases) {
    await t.step(`${status} ${url}`, async () => {
      const res = await app.get(url, key || undefined);
      assert.equal(res.status, status);
      const documented = doc.paths[path].get.responses[String(status)];
      assert.ok(documented, `status ${status} of ${path} is documented`);
      const validate = ajv.compile(documented.content["application/json"].schema);
      const body = await res.json();
      assert.ok(validate(body), JSON.stringify(validate.errors));
      assert.ok(!validate({}), "the documented schema is not empty");
    });
  }
  await t.step("429 quota_exceeded", async () => {
    await setUsed(db.sql, free.accountId, 20);
    const res = await app.get(`/api/v1/opportunities/${ids["opp-1"]}`, free.key);
    assert.equal(res.status, 429);
    const documented = doc.paths["/api/v1/opportunities/{id}"].get.responses["429"];
    const validate = ajv.compile(documented.content["application/json"].schema);
    assert.ok(validate(await res.json()), JSON.stringify(validate.errors));
  });
});

Deno.test("openApiDocument: the description lists the plans from the quota's table", () => {
  const description = String((openApiDocument().info as { description: string }).description);
  for (const plan of PLANS) {
    const calls = PLAN_LIMITS[plan].toLocaleString("en-US");
    const price = PLAN_PRICES[plan] === 0 ? "free" : `${PLAN_PRICES[plan] / 100} USD a month`;
    assert.ok(description.includes(`${PLAN_NAMES[plan]}: ${calls} calls a month, ${price}`), plan);
  }
});

Deno.test("openApiDocument: every operation has a declared tag; the document its licence", () => {
  const doc = openApiDocument() as {
    info: { license?: { name: string; identifier?: string } };
    tags?: { name: string; description: string }[];
    paths: Record<string, Record<string, { tags?: string[] }>>;
  };
  assert.equal(doc.info.license?.name, "MIT");
  assert.equal(doc.info.license?.identifier, "MIT");
  const declared = new Set((doc.tags ?? []).map((t) => t.name));
  assert.ok(declared.size >= 4, [...declared].join());
  assert.ok((doc.tags ?? []).every((t) => t.description.length > 0));
  const untagged: string[] = [];
  const used = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!["get", "post", "patch", "delete", "put"].includes(method)) continue;
      if (!op.tags?.length || !op.tags.every((t) => declared.has(t))) {
        untagged.push(`${method} ${path}`);
      }
      for (const tag of op.tags ?? []) used.add(tag);
    }
  }
  assert.deepEqual(untagged, []);
  assert.deepEqual([...declared].filter((t) => !used.has(t)), [], "no tag without operations");
});
