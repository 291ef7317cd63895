import assert from "node:assert/strict";
import { annotateSpan, noteCacheLookup, telemetryEnabled } from "../../src/platform/telemetry.ts";

const APP = new URL("../helpers/otel_app.ts", import.meta.url).pathname;

type Attr = { key: string; value: Record<string, unknown> };
interface OtlpSpan {
  name: string;
  kind: number;
  attributes: Attr[];
}

/** The attributes of a span as a map (the last value of a repeated key wins). */
function attrs(span: OtlpSpan): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const a of span.attributes) out[a.key] = Object.values(a.value)[0];
  return out;
}

/** Runs otel_app.ts with `env`, collecting what it exports to a local OTLP/HTTP JSON sink. */
async function runApp(env: Record<string, string>) {
  const received: { path: string; body: Record<string, unknown> }[] = [];
  const sink = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    received.push({ path: new URL(request.url).pathname, body: await request.json() });
    return Response.json({});
  });
  try {
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", APP],
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${sink.addr.port}`,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_SERVICE_NAME: "oppintel-test",
        ...env,
      },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stdout = new TextDecoder().decode(output.stdout);
    assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
    return { stdout, received };
  } finally {
    await sink.shutdown();
  }
}

Deno.test("telemetry is off without OTEL_DENO and exports nothing", async () => {
  assert.equal(telemetryEnabled(), Deno.env.get("OTEL_DENO") === "true");
  // Off in this process: both are no-ops (they must not throw without an active span).
  annotateSpan({ route: "/healthz", status: 200, ms: 1 });
  noteCacheLookup(true);
  const { stdout, received } = await runApp({ OTEL_DENO: "false" });
  assert.deepEqual(JSON.parse(stdout.trim().split("\n")[0]), { enabled: false });
  assert.deepEqual(received, []);
});

Deno.test("annotateSpan adds route, plan, quota and cache to Deno's HTTP span", async () => {
  const { stdout, received } = await runApp({ OTEL_DENO: "true", OTEL_DENO_CONSOLE: "ignore" });
  assert.deepEqual(JSON.parse(stdout.trim().split("\n")[0]), { enabled: true });

  const spans: OtlpSpan[] = received.filter((r) => r.path === "/v1/traces").flatMap((r) =>
    (r.body.resourceSpans as { scopeSpans: { spans: OtlpSpan[] }[] }[])
      .flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans))
  );
  const server = spans.filter((s) => s.kind === 2); // SPAN_KIND_SERVER
  assert.equal(server.length, 3);
  const caches = [];
  for (const span of server) {
    const a = attrs(span);
    assert.equal(span.name, "GET /api/v1/opportunities/:id");
    assert.equal(a["http.route"], "/api/v1/opportunities/:id");
    assert.equal(a["oppintel.plan"], "pro");
    assert.equal(a["oppintel.quota"], "charged");
    assert.equal(a["oppintel.key_prefix"], "oi_live_abcd");
    caches.push(a["oppintel.cache"]);
  }
  assert.deepEqual(caches.sort(), ["hit", "hit", "miss"]);
  // Deno records the raw URL first; the service's redacted value is set after it, and is the
  // value of every attribute this module writes.
  const keyed = server.map(attrs).find((a) =>
    String(a["url.path"]).endsWith("/5") &&
    String(a["url.query"]).includes("api_key")
  );
  assert.equal(keyed?.["url.query"], "api_key=[redacted]&cache=hit");

  const metrics = received.filter((r) => r.path === "/v1/metrics").flatMap((r) =>
    (r.body.resourceMetrics as {
      scopeMetrics: { scope: { name: string }; metrics: unknown[] }[];
    }[])
      .flatMap((rm) => rm.scopeMetrics)
  ).filter((sm) => sm.scope.name === "oppintel").flatMap((sm) =>
    sm.metrics as {
      name: string;
      sum?: { dataPoints: { asInt?: string; asDouble?: number; attributes: Attr[] }[] };
    }[]
  );
  const names = new Set(metrics.map((m) => m.name));
  for (
    const name of [
      "oppintel.requests",
      "oppintel.request.duration",
      "oppintel.quota.charges",
      "oppintel.cache.lookups",
    ]
  ) assert.ok(names.has(name), `metric ${name} in ${[...names]}`);
  const requests = metrics.filter((m) => m.name === "oppintel.requests")
    .flatMap((m) => m.sum!.dataPoints)
    .reduce((n, p) => n + Number(p.asInt ?? p.asDouble ?? 0), 0);
  assert.equal(requests, 3);
  // Metric attributes hold no caller: no key prefix, no account.
  assert.doesNotMatch(JSON.stringify(metrics), /oi_live|account_id|SECRETKEYVALUE/);
});
