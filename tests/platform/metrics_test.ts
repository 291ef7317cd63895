import assert from "node:assert/strict";
import { createMetrics, LATENCY_BUCKETS, metricsHandler } from "../../src/platform/metrics.ts";
import type { Sql } from "../../src/db/open.ts";
import { connectionsByState } from "../../src/db/status.ts";
import { dbTest } from "../helpers/db.ts";

/** The value of the sample `name{labels}` in a Prometheus text body (undefined when absent). */
function sample(text: string, series: string): number | undefined {
  for (const line of text.split("\n")) {
    if (line.startsWith("#")) continue;
    const cut = line.lastIndexOf(" ");
    if (line.slice(0, cut) === series) return Number(line.slice(cut + 1));
  }
  return undefined;
}

function entry(fields: Record<string, unknown>): Record<string, unknown> {
  return {
    time: new Date().toISOString(),
    method: "GET",
    path: "/api/v1/opportunities/1?api_key=[redacted]",
    key_prefix: "oi_live_abcd",
    account_id: 987654,
    plan: "pro",
    ...fields,
  };
}

Deno.test("createMetrics counts requests by route and status, and quota outcomes", async () => {
  const metrics = createMetrics();
  const route = "/api/v1/opportunities/:id";
  metrics.record(entry({ route, status: 200, ms: 3, quota: "charged" }));
  metrics.record(entry({ route, status: 200, ms: 4, quota: "charged" }));
  metrics.record(entry({ route, status: 429, ms: 2, quota: "rejected" }));
  metrics.record(entry({ route: "/healthz", status: 200, ms: 1, quota: null }));
  metrics.record(entry({ route: null, status: 404, ms: 1, quota: null }));
  const text = await metrics.render();
  const r = `route="${route}"`;
  assert.equal(sample(text, `oppintel_http_requests_total{${r},status="200"}`), 2);
  assert.equal(sample(text, `oppintel_http_requests_total{${r},status="429"}`), 1);
  assert.equal(
    sample(text, `oppintel_http_requests_total{route="/healthz",status="200"}`),
    1,
  );
  assert.equal(
    sample(text, `oppintel_http_requests_total{route="unmatched",status="404"}`),
    1,
  );
  assert.equal(sample(text, "oppintel_quota_charges_total"), 2);
  assert.equal(sample(text, "oppintel_quota_rejections_total"), 1);
  assert.match(text, /^# TYPE oppintel_http_requests_total counter$/m);
  // Nothing of the caller or the raw path reaches a label.
  assert.doesNotMatch(text, /oi_live|account|api_key|987654/);
});

Deno.test("createMetrics latency histogram is cumulative and in seconds", async () => {
  const metrics = createMetrics();
  const route = "/api/v1/overview";
  for (const ms of [0.5, 3, 3, 40, 20_000]) {
    metrics.record(entry({ route, status: 200, ms, quota: "charged" }));
  }
  const text = await metrics.render();
  const bucket = (le: string) =>
    sample(text, `oppintel_http_request_duration_seconds_bucket{route="${route}",le="${le}"}`);
  assert.equal(bucket("0.001"), 1);
  assert.equal(bucket("0.0025"), 1);
  assert.equal(bucket("0.005"), 3);
  assert.equal(bucket("0.05"), 4);
  assert.equal(bucket(String(LATENCY_BUCKETS.at(-1))), 4);
  assert.equal(bucket("+Inf"), 5);
  assert.equal(sample(text, `oppintel_http_request_duration_seconds_count{route="${route}"}`), 5);
  const sum = sample(text, `oppintel_http_request_duration_seconds_sum{route="${route}"}`)!;
  assert.ok(Math.abs(sum - 20.0465) < 1e-9, `sum ${sum}`);
  assert.match(text, /^# TYPE oppintel_http_request_duration_seconds histogram$/m);
});

Deno.test("createMetrics reports the content cache and its hit ratio", async () => {
  let stats = { hits: 0, misses: 0, entries: 0 };
  const metrics = createMetrics({ content: { stats: () => stats }, poolMax: 7 });
  assert.equal(sample(await metrics.render(), "oppintel_cache_hit_ratio"), 0);
  stats = { hits: 3, misses: 1, entries: 1 };
  const text = await metrics.render();
  assert.equal(sample(text, "oppintel_cache_hits_total"), 3);
  assert.equal(sample(text, "oppintel_cache_misses_total"), 1);
  assert.equal(sample(text, "oppintel_cache_entries"), 1);
  assert.equal(sample(text, "oppintel_cache_hit_ratio"), 0.75);
  assert.equal(sample(text, "oppintel_db_pool_max"), 7);
});

dbTest("createMetrics reports database connections by state", async (db) => {
  const metrics = createMetrics({ connections: () => connectionsByState(db.sql) });
  const text = await metrics.render();
  assert.equal(sample(text, "oppintel_db_up"), 1);
  for (const state of ["active", "idle", "idle in transaction", "other"]) {
    const value = sample(text, `oppintel_db_connections{state="${state}"}`);
    assert.ok(value !== undefined && value >= 0, `state ${state}: ${value}`);
  }
});

Deno.test("createMetrics reports db_up 0 when the database does not answer", async () => {
  const failing = (() => Promise.reject(new Error("connection refused"))) as unknown;
  const metrics = createMetrics({ connections: () => connectionsByState(failing as Sql) });
  const text = await metrics.render();
  assert.equal(sample(text, "oppintel_db_up"), 0);
  assert.equal(sample(text, `oppintel_db_connections{state="active"}`), undefined);
});

Deno.test("metricsHandler guards /metrics with the operator token", async (t) => {
  const metrics = createMetrics();
  metrics.record(entry({ route: "/healthz", status: 200, ms: 1, quota: null }));
  const request = (authorization?: string, method = "GET") =>
    new Request("http://x/metrics", {
      method,
      headers: authorization ? { Authorization: authorization } : {},
    });

  await t.step("404 JSON when no token is configured", async () => {
    for (const token of [undefined, ""]) {
      const response = await metricsHandler(metrics, token)(request("Bearer anything"));
      assert.equal(response.status, 404);
      assert.match(response.headers.get("content-type")!, /^application\/json/);
      assert.equal((await response.json()).error, "not_found");
    }
  });

  const handler = metricsHandler(metrics, "s3cret-operator-token");
  await t.step("401 JSON without a token or with a wrong one", async () => {
    for (
      const auth of [
        undefined,
        "Bearer wrong",
        "Bearer s3cret-operator-toke",
        "Bearer s3cret-operator-token2",
        "Basic s3cret-operator-token",
      ]
    ) {
      const response = await handler(request(auth));
      assert.equal(response.status, 401, String(auth));
      assert.match(response.headers.get("content-type")!, /^application\/json/);
      assert.equal(response.headers.get("www-authenticate"), 'Bearer realm="metrics"');
      const body = await response.json();
      assert.equal(body.error, "unauthorized");
      assert.doesNotMatch(JSON.stringify(body), /s3cret/);
    }
  });

  await t.step("200 Prometheus text with the right token", async () => {
    const response = await handler(request("Bearer s3cret-operator-token"));
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
    const text = await response.text();
    assert.equal(
      sample(text, `oppintel_http_requests_total{route="/healthz",status="200"}`),
      1,
    );
  });

  await t.step("405 for another method with the right token", async () => {
    const response = await handler(request("Bearer s3cret-operator-token", "POST"));
    assert.equal(response.status, 405);
    assert.equal(response.headers.get("allow"), "GET");
    await response.body?.cancel();
  });
});
