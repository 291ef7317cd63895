/**
 * A refused plan and a used-up quota answer in words a customer understands, with where to
 * upgrade (`upgrade_url`), on REST and in MCP tool results alike, uncharged.
 */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { loadFixture, makeKey, mcpPost, setUsed, type TestApp, testApp } from "../helpers/app.ts";
import { PLAN_LIMITS } from "../../src/platform/plans.ts";

async function tool(app: TestApp, key: string, name: string, args: Record<string, unknown>) {
  const res = await mcpPost(app, key, {
    id: 1,
    method: "tools/call",
    params: { name, arguments: args },
  });
  assert.equal(res.status, 200);
  const { result } = await res.json();
  return result as { isError?: boolean; structuredContent: Record<string, unknown> };
}

const UPGRADE = "https://oppintel.example/account";

dbTest("plan_required and quota_exceeded say what to do, with upgrade_url", async (db, t) => {
  const app = testApp(db);
  const ids = await loadFixture(db.sql);
  const free = await makeKey(db.sql, "free");
  const pro = await makeKey(db.sql, "pro");

  await t.step("REST: listing opportunities on Free names the plans in words", async () => {
    const res = await app.get("/api/v1/opportunities?q=invoice", free.key);
    assert.equal(res.status, 403);
    assert.equal(res.headers.get("content-type"), "application/json; charset=utf-8");
    const body = await res.json();
    assert.equal(body.error, "plan_required");
    assert.equal(body.message, "Listing opportunities needs the Pro plan; you are on Free");
    assert.equal(body.upgrade_url, UPGRADE);
    assert.equal(body.operation, "listOpportunities");
    assert.equal(body.required_plan, "pro");
    assert.equal(body.current_plan, "free");
  });
  await t.step("REST: the export on Pro needs Business, in words", async () => {
    const body = await (await app.get("/api/v1/opportunities/export", pro.key)).json();
    assert.equal(body.message, "Exporting opportunities needs the Business plan; you are on Pro");
    assert.equal(body.upgrade_url, UPGRADE);
  });
  await t.step("REST: an export the quota cannot pay carries upgrade_url too", async () => {
    const business = await makeKey(db.sql, "business");
    await setUsed(db.sql, business.accountId, PLAN_LIMITS.business);
    const res = await app.get("/api/v1/opportunities/export", business.key);
    assert.equal(res.status, 429);
    assert.equal((await res.json()).upgrade_url, UPGRADE);
  });
  await t.step("MCP: a Pro tool on Free is an isError result with the same words", async () => {
    const result = await tool(app, free.key, "query_opportunities", { q: "invoice" });
    assert.equal(result.isError, true);
    assert.equal(result.structuredContent.error, "plan_required");
    assert.equal(
      result.structuredContent.message,
      "Listing opportunities needs the Pro plan; you are on Free",
    );
    assert.equal(result.structuredContent.upgrade_url, UPGRADE);
  });
  await t.step("a used-up quota: 429 with upgrade_url on both surfaces", async () => {
    await setUsed(db.sql, free.accountId, PLAN_LIMITS.free);
    const res = await app.get(`/api/v1/opportunities/${ids["opp-1"]}`, free.key);
    assert.equal(res.status, 429);
    const body = await res.json();
    assert.equal(body.error, "quota_exceeded");
    assert.equal(body.upgrade_url, UPGRADE);
    assert.match(body.message, /higher plan/);
    const result = await tool(app, free.key, "get_opportunity", { id: ids["opp-1"] });
    assert.equal(result.structuredContent.error, "quota_exceeded");
    assert.equal(result.structuredContent.upgrade_url, UPGRADE);
  });
});
