/**
 * Evidence you can verify: each evidence item of the detail carries source_url (the public
 * thread, never a profile) for Pro and Business, on REST, get_opportunity and fetch; Free gets
 * the same scrubbed quotes without it.
 */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import {
  bumpDataVersion,
  loadFixture,
  makeKey,
  mcpPost,
  type TestApp,
  testApp,
} from "../helpers/app.ts";
import { OpportunityDetailSchema } from "../../src/catalog/schemas.ts";

const THREAD = "https://www.reddit.com/r/devops/comments/zq7thread/";
const PROFILE = "https://www.reddit.com/user/zq7person/";

async function tool(app: TestApp, key: string, name: string, args: Record<string, unknown>) {
  const res = await mcpPost(app, key, {
    id: 1,
    method: "tools/call",
    params: { name, arguments: args },
  });
  const { result } = await res.json();
  return result as {
    isError?: boolean;
    structuredContent: Record<string, unknown>;
    content: { text: string }[];
  };
}

dbTest("evidence source_url: Pro and Business see the thread, Free does not", async (db, t) => {
  const app = testApp(db);
  const ids = await loadFixture(db.sql);
  const id = ids["opp-1"];
  await db.sql`
    insert into evidence_quotes (opportunity_id, platform, channel_name, quote, source_url, posted_at)
    values (${id}, 'reddit', 'devops', 'thread quote', ${THREAD}, '2026-04-03T00:00:00Z'),
      (${id}, 'reddit', 'devops', 'profile quote', ${PROFILE}, '2026-04-02T00:00:00Z')`;
  await bumpDataVersion(db.sql);
  const keys = {
    free: await makeKey(db.sql, "free"),
    pro: await makeKey(db.sql, "pro"),
    business: await makeKey(db.sql, "business"),
  };

  for (const plan of ["pro", "business"] as const) {
    await t.step(`REST detail on ${plan}: the thread, and null for a profile`, async () => {
      const res = await app.get(`/api/v1/opportunities/${id}`, keys[plan].key);
      assert.equal(res.status, 200);
      const body = OpportunityDetailSchema.parse(await res.json());
      assert.deepEqual(body.evidence.map((e) => [e.quote, e.source_url]), [
        ["thread quote", THREAD],
        ["profile quote", null],
        [body.evidence[2].quote, null],
      ]);
      assert.ok(!JSON.stringify(body).includes("zq7person"));
    });
  }
  await t.step("REST detail on Free: the same quotes, no source_url at all", async () => {
    // Free reads second, after Pro filled the shared cache with the links.
    const body = await (await app.get(`/api/v1/opportunities/${id}`, keys.free.key)).json();
    assert.equal(body.evidence.length, 3);
    assert.equal(body.evidence[0].quote, "thread quote");
    for (const e of body.evidence) assert.ok(!("source_url" in e), JSON.stringify(e));
    assert.ok(!JSON.stringify(body).includes("zq7thread"));
  });
  await t.step("MCP get_opportunity answers as REST for each plan", async () => {
    for (const plan of ["free", "pro"] as const) {
      const rest = await (await app.get(`/api/v1/opportunities/${id}`, keys[plan].key)).json();
      const result = await tool(app, keys[plan].key, "get_opportunity", { id });
      assert.equal(result.isError ?? false, false);
      assert.deepEqual(result.structuredContent, rest);
    }
  });
  await t.step("MCP fetch: the thread in the document on Pro, not on Free", async () => {
    const pro = await tool(app, keys.pro.key, "fetch", { id: `opportunity:${id}` });
    assert.ok(pro.content[0].text.includes("zq7thread"), pro.content[0].text);
    const free = await tool(app, keys.free.key, "fetch", { id: `opportunity:${id}` });
    assert.equal(free.isError ?? false, false);
    assert.ok(!free.content[0].text.includes("zq7thread"));
  });
});
