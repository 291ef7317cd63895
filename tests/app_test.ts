/** The app router (src/app.ts) as the service wires it: GET /metrics behind METRICS_TOKEN, counting real requests. */
import assert from "node:assert/strict";
import { buildHandler } from "../main.ts";
import { readConfig } from "../src/platform/config.ts";
import { dbTest } from "./helpers/db.ts";
import { BASE, loadFixture, makeKey } from "./helpers/app.ts";

dbTest(
  "GET /metrics: off without a token, guarded by it, counting routes, charges and the cache",
  async (db) => {
    const ids = await loadFixture(db.sql);
    const { key } = await makeKey(db.sql, "pro");
    const off = buildHandler(db.database, readConfig({ DATA_DIR: "memory://" }), { log: () => {} });
    assert.equal((await off(new Request(`${BASE}/metrics`))).status, 404);

    const token = "s3cret-metrics-token";
    const handler = buildHandler(
      db.database,
      readConfig({ DATA_DIR: "memory://", METRICS_TOKEN: token }),
      { log: () => {} },
    );
    const get = (path: string) =>
      handler(new Request(BASE + path, { headers: { "X-API-Key": key } }));
    for (let i = 0; i < 3; i++) {
      await (await get(`/api/v1/opportunities/${ids["opp-1"]}`)).body
        ?.cancel();
    }
    await (await get("/api/v1/blog")).body?.cancel();

    const denied = await handler(
      new Request(`${BASE}/metrics`, { headers: { Authorization: "Bearer nope" } }),
    );
    assert.equal(denied.status, 401);
    await denied.body?.cancel();
    const res = await handler(
      new Request(`${BASE}/metrics`, { headers: { Authorization: `Bearer ${token}` } }),
    );
    assert.equal(res.status, 200);
    const text = await res.text();
    assert.match(
      text,
      /oppintel_http_requests_total\{route="\/api\/v1\/opportunities\/:id",status="200"\} 3/,
    );
    // The 2nd and 3rd detail are repeats of the 1st: free (issue 49).
    assert.match(text, /oppintel_quota_charges_total 1/);
    assert.match(text, /oppintel_cache_hits_total 2/, "the 2nd and 3rd detail came from the cache");
    assert.ok(!text.includes(key), "no key in metrics");
  },
);
