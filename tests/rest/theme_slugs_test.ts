/**
 * Themes by slug or id (issue #49): GET /api/v1/themes/{id} and /history take either in the path,
 * get_theme and get_theme_history either argument on both protocol eras; a malformed or an unknown
 * slug is refused uncharged.
 */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { callToolIn, loadFixture, makeKey, type TestApp, testApp, usedOf } from "../helpers/app.ts";
import { ThemeDetailSchema } from "../../src/catalog/schemas.ts";
import { ThemeHistorySchema } from "../../src/catalog/trend_schemas.ts";

const MODERN = "2026-07-28";
const ERAS = ["2025-11-25", MODERN] as const;

/** tools/call of `name` on one protocol era, as a raw client sends it; the JSON-RPC result. */
function callIn(
  app: TestApp,
  key: string,
  era: typeof ERAS[number],
  name: string,
  args: Record<string, unknown>,
): Promise<{ isError?: boolean; structuredContent: Record<string, unknown> }> {
  return callToolIn(app, key, era === MODERN ? "2026" : "2025", name, args);
}

/** The body of a REST answer without the request_id of an error. */
async function body(res: Response): Promise<Record<string, unknown>> {
  const { request_id: _, ...rest } = await res.json();
  return rest;
}

dbTest("GET /api/v1/themes/{id} and /history take an id or a slug", async (db, t) => {
  const app = testApp(db);
  await loadFixture(db.sql);
  const [{ id }] = await db.sql<{ id: number }[]>`select id from themes where slug = 'flaky-ci'`;
  const { key, accountId } = await makeKey(db.sql, "pro");

  await t.step("by slug: the same theme as by id, 1 call each", async () => {
    const used = await usedOf(db.sql, accountId);
    const bySlug = await app.get("/api/v1/themes/flaky-ci", key);
    assert.equal(bySlug.status, 200);
    assert.match(bySlug.headers.get("content-type") ?? "", /application\/json/);
    const detail = ThemeDetailSchema.parse(await bySlug.json());
    assert.equal(detail.theme.id, id);
    assert.equal(detail.theme.slug, "flaky-ci");
    assert.deepEqual(await (await app.get(`/api/v1/themes/${id}`, key)).json(), detail);
    assert.equal(await usedOf(db.sql, accountId), used + 2);
  });
  await t.step("history by slug: the same as by id", async () => {
    const bySlug = await app.get("/api/v1/themes/flaky-ci/history?interval=month", key);
    assert.equal(bySlug.status, 200);
    const history = ThemeHistorySchema.parse(await bySlug.json());
    assert.equal(history.theme.id, id);
    const byId = await app.get(`/api/v1/themes/${id}/history?interval=month`, key);
    assert.deepEqual(await byId.json(), history);
    // The path names the theme, whatever the query string says.
    const both = await app.get(`/api/v1/themes/flaky-ci/history?interval=month&id=${id + 1}`, key);
    assert.deepEqual(await both.json(), history);
  });
  await t.step("an unknown slug is 404 not_found, not charged", async () => {
    for (const path of ["/api/v1/themes/no-such-theme", "/api/v1/themes/no-such-theme/history"]) {
      const before = await app.get("/api/v1/usage", key);
      const quota = before.headers.get("X-Quota-Used");
      assert.ok(quota !== null);
      await before.body?.cancel();
      const res = await app.get(path, key);
      assert.equal(res.status, 404, path);
      assert.deepEqual(await body(res), {
        error: "not_found",
        message: 'Cannot find theme "no-such-theme"',
      });
      assert.equal(res.headers.get("X-Quota-Used"), quota, path);
    }
  });
  await t.step("a malformed slug is 422 invalid_parameter, not charged", async () => {
    const used = await usedOf(db.sql, accountId);
    for (const path of ["/api/v1/themes/Flaky_CI", "/api/v1/themes/flaky--ci/history"]) {
      const res = await app.get(path, key);
      assert.equal(res.status, 422, path);
      const { error, details } = await body(res) as { error: string; details: unknown[] };
      assert.equal(error, "invalid_parameter");
      // Named as the URL and the OpenAPI document name the segment.
      assert.deepEqual(details, [{
        param: "id",
        message: "must be a slug of lowercase letters, digits and dashes",
      }]);
    }
    assert.equal(await usedOf(db.sql, accountId), used);
  });
});

dbTest("get_theme and get_theme_history take {id} or {slug} on both eras", async (db, t) => {
  const app = testApp(db);
  await loadFixture(db.sql);
  const [{ id }] = await db.sql<{ id: number }[]>`select id from themes where slug = 'flaky-ci'`;
  const { key, accountId } = await makeKey(db.sql, "pro");
  const theme = await (await app.get(`/api/v1/themes/${id}`, key)).json();
  const history = await (await app.get(`/api/v1/themes/${id}/history`, key)).json();

  for (const era of ERAS) {
    await t.step(`${era}: by slug and by id, REST's answers, 1 call each`, async () => {
      const used = await usedOf(db.sql, accountId);
      for (const ref of [{ slug: "flaky-ci" }, { id }]) {
        // detail "full": REST's body (by default a tool answers its compact view).
        const args = { ...ref, detail: "full" };
        const got = await callIn(app, key, era, "get_theme", args);
        assert.equal(got.isError, undefined, JSON.stringify(got.structuredContent));
        assert.deepEqual(got.structuredContent, theme);
        const past = await callIn(app, key, era, "get_theme_history", args);
        assert.deepEqual(past.structuredContent, history);
      }
      // The calls by id repeat REST's, free; by slug they are new calls once, then repeats.
      assert.equal(await usedOf(db.sql, accountId), used + (era === ERAS[0] ? 2 : 0));
    });
    await t.step(`${era}: neither, both, a slug as id, a bad slug: 422, uncharged`, async () => {
      const used = await usedOf(db.sql, accountId);
      const cases: [Record<string, unknown>, string, string][] = [
        [{}, "id", "is required: give id or slug"],
        [{ id, slug: "flaky-ci" }, "slug", "give id or slug, not both"],
        [{ id: "flaky-ci" }, "id", "must be an integer (a slug goes in slug)"],
        [{ slug: "Flaky CI" }, "slug", "must be a slug of lowercase letters, digits and dashes"],
      ];
      for (const name of ["get_theme", "get_theme_history"]) {
        for (const [args, param, message] of cases) {
          const got = await callIn(app, key, era, name, args);
          assert.equal(got.isError, true, JSON.stringify(args));
          assert.equal(got.structuredContent.error, "invalid_parameter");
          assert.deepEqual(got.structuredContent.details, [{ param, message }]);
        }
      }
      assert.equal(await usedOf(db.sql, accountId), used);
    });
    await t.step(`${era}: an unknown slug is not_found, uncharged`, async () => {
      const used = await usedOf(db.sql, accountId);
      for (const name of ["get_theme", "get_theme_history"]) {
        const got = await callIn(app, key, era, name, { slug: "no-such-theme" });
        assert.equal(got.isError, true);
        assert.equal(got.structuredContent.error, "not_found");
        assert.equal(got.structuredContent.message, 'Cannot find theme "no-such-theme"');
      }
      assert.equal(await usedOf(db.sql, accountId), used);
    });
  }
});
