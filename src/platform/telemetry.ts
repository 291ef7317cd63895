/**
 * Telemetry through Deno's built-in OpenTelemetry (run with OTEL_DENO=true): Deno makes a span
 * per HTTP request and exports it with its own metrics over OTLP; this module adds what only the
 * service knows (the route pattern, plan, quota outcome, cache outcome) to that span and to a
 * few metrics of its own. Attributes come from the request log entry, which already holds no
 * raw key and no raw path. Without OTEL_DENO nothing is registered behind @opentelemetry/api, and
 * every function here returns at its first line.
 */
import { type Attributes, metrics, type Span, trace } from "@opentelemetry/api";

/** True when an OpenTelemetry implementation (Deno's, under OTEL_DENO=true) is registered. */
export function telemetryEnabled(): boolean {
  // @opentelemetry/api keeps its registration on this global; Deno registers before user code.
  const api = (globalThis as Record<symbol, unknown>)[Symbol.for("opentelemetry.js.api.1")];
  return api !== undefined;
}

const ENABLED = telemetryEnabled();

const meter = metrics.getMeter("oppintel");
const requestCounter = meter.createCounter("oppintel.requests", {
  description: "Requests answered, by route, status, plan and quota outcome",
});
const durationHistogram = meter.createHistogram("oppintel.request.duration", {
  description: "Time from receiving a request to its response, by route and status",
  unit: "s",
  advice: {
    explicitBucketBoundaries: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  },
});
const chargeCounter = meter.createCounter("oppintel.quota.charges", {
  description: "Calls that took one unit of quota",
});
const rejectionCounter = meter.createCounter("oppintel.quota.rejections", {
  description: "Calls refused with 429 because the monthly quota was used up",
});
const cacheCounter = meter.createCounter("oppintel.cache.lookups", {
  description: "Content cache lookups, by outcome (hit or miss)",
});

// What src/platform/request_log.ts redactedPath puts in place of an api_key value.
const REDACTED = "[redacted]";

// The cache outcome of each request's span so far: "miss" once any lookup missed.
const cacheOutcomes = new WeakMap<Span, "hit" | "miss">();

function text(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/**
 * Adds a request's outcome to its span (Deno's HTTP server span) and counts it in the metrics.
 * `entry` is the handler's log entry: {method, path, status, ms, route, plan, quota,
 * key_prefix, account_id, cache?}. When `path` shows a redacted api_key, the span's URL
 * attributes are replaced by it, because Deno records the raw URL.
 */
export function annotateSpan(entry: Record<string, unknown>): void {
  if (!ENABLED) return;
  const route = text(entry.route) ?? "unmatched";
  const status = typeof entry.status === "number" ? entry.status : 0;
  const plan = text(entry.plan) ?? "none";
  const quota = text(entry.quota) ?? "none";
  const span = trace.getActiveSpan();
  if (span) {
    const attributes: Attributes = {
      "http.response.status_code": status,
      "oppintel.plan": plan,
      "oppintel.quota": quota,
    };
    // Deno's span records the full URL; a key sent as ?api_key= must not reach the exporter.
    if (typeof entry.path === "string" && entry.path.includes(REDACTED)) {
      const query = entry.path.indexOf("?");
      attributes["url.full"] = entry.path;
      attributes["url.query"] = query < 0 ? "" : entry.path.slice(query + 1);
      // A key pasted into the path itself (request_log.ts redacts key shapes there too).
      attributes["url.path"] = query < 0 ? entry.path : entry.path.slice(0, query);
    }
    if (entry.route) {
      attributes["http.route"] = route;
      // The semantic conventions name a server span "{method} {route}" once the route is known.
      if (typeof entry.method === "string") span.updateName(`${entry.method} ${route}`);
    }
    const cache = text(entry.cache) ?? cacheOutcomes.get(span);
    if (cache) attributes["oppintel.cache"] = cache;
    if (typeof entry.key_prefix === "string") attributes["oppintel.key_prefix"] = entry.key_prefix;
    if (typeof entry.account_id === "number") attributes["oppintel.account_id"] = entry.account_id;
    span.setAttributes(attributes);
  }
  // Metric attributes stay low in cardinality: no account, no key prefix.
  const labels = { "http.route": route, "http.response.status_code": status };
  requestCounter.add(1, { ...labels, "oppintel.plan": plan, "oppintel.quota": quota });
  if (typeof entry.ms === "number") durationHistogram.record(entry.ms / 1000, labels);
  if (quota === "charged") chargeCounter.add(1, { "http.route": route });
  if (quota === "rejected") rejectionCounter.add(1, { "http.route": route });
}

/**
 * Notes one content cache lookup of the current request: counted in the metrics, and the
 * request's span gets `oppintel.cache` = "hit" when all its lookups hit, else "miss".
 */
export function noteCacheLookup(hit: boolean): void {
  if (!ENABLED) return;
  cacheCounter.add(1, { "oppintel.cache": hit ? "hit" : "miss" });
  const span = trace.getActiveSpan();
  if (!span) return;
  const outcome = hit && cacheOutcomes.get(span) !== "miss" ? "hit" : "miss";
  cacheOutcomes.set(span, outcome);
  span.setAttribute("oppintel.cache", outcome);
}
