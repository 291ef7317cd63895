/**
 * `fields=` on REST (src/rest/fields.ts): the MCP tools' compact records, or the fields named, on
 * the routes whose answers repeat records; the list envelope stays; a bad value is a 422 before
 * anything is charged; routes that do not take it ignore it.
 */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { loadFixture, makeKey, testApp, usedOf } from "../helpers/app.ts";
import { OPPORTUNITY_COMPACT } from "../../src/catalog/compact.ts";

dbTest("REST fields= trims repeated records, opt-in", async (db, t) => {
  const app = testApp(db);
  const ids = await loadFixture(db.sql);
  const { key, accountId } = await makeKey(db.sql, "business");
  const json = async (path: string) => {
    const res = await app.get(path, key);
    return { status: res.status, body: await res.json(), used: res.headers.get("x-quota-used") };
  };

  await t.step("compact: the tools' default records, the envelope kept", async () => {
    const full = await json("/api/v1/opportunities?q=invoice");
    const compact = await json("/api/v1/opportunities?q=invoice&fields=compact");
    assert.equal(compact.status, 200);
    const { items, ...envelope } = compact.body;
    const { items: fullItems, ...fullEnvelope } = full.body;
    assert.deepEqual(envelope, fullEnvelope);
    assert.equal(items.length, fullItems.length);
    for (const [i, item] of items.entries()) {
      const keys = Object.keys(item);
      assert.ok(
        keys.every((k) => (OPPORTUNITY_COMPACT as readonly string[]).includes(k)),
        `${keys}`,
      );
      for (const k of keys) assert.deepEqual(item[k], fullItems[i][k]);
    }
    assert.ok("relevance" in items[0] && "url" in items[0] && !("slug" in items[0]));
  });

  await t.step("a list of fields keeps those, in every record the answer repeats", async () => {
    const list = await json("/api/v1/opportunities?fields=id,%20score");
    assert.deepEqual(Object.keys(list.body.items[0]), ["id", "score"]);
    const overview = await json("/api/v1/overview?fields=slug,name");
    assert.deepEqual(Object.keys(overview.body.categories[0]), ["slug", "name"]);
    assert.deepEqual(Object.keys(overview.body.trending[0]), ["slug", "name"]);
    assert.ok("totals" in overview.body);
    const compact = await json("/api/v1/overview?fields=compact");
    assert.ok(!("description" in compact.body.categories[0]));
    assert.ok("theme_count" in compact.body.categories[0]);
  });

  await t.step("an unknown field or a repeated fields is a 422, not charged", async () => {
    const before = await usedOf(db.sql, accountId);
    for (
      const path of [
        "/api/v1/opportunities?fields=id,secret",
        "/api/v1/opportunities?fields=,",
        "/api/v1/opportunities?fields=id&fields=title",
        "/api/v1/themes/trending?fields=monetization_model",
      ]
    ) {
      const res = await json(path);
      assert.equal(res.status, 422, path);
      assert.equal(res.body.error, "invalid_parameter");
      assert.equal(res.body.details[0].param, "fields");
    }
    const named = await json("/api/v1/opportunities?fields=id,secret");
    assert.match(named.body.details[0].message, /unknown: secret/);
    assert.match(named.body.details[0].message, /target_audience/);
    assert.equal(await usedOf(db.sql, accountId), before);
  });

  await t.step("a route without repeated records ignores it", async () => {
    const res = await json(`/api/v1/opportunities/${ids["opp-1"]}?fields=id`);
    assert.equal(res.status, 200);
    assert.ok("description" in res.body && "evidence" in res.body);
  });

  await t.step("the OpenAPI document declares it where it applies", async () => {
    const doc = (await json("/api/v1/openapi.json")).body;
    const names = (path: string) =>
      (doc.paths[path].get.parameters as { name: string }[]).map((p) => p.name);
    assert.ok(names("/api/v1/opportunities").includes("fields"));
    assert.ok(names("/api/v1/overview").includes("fields"));
    assert.ok(!names("/api/v1/opportunities/{id}").includes("fields"));
  });
});
