/**
 * A server for telemetry_test.ts, run in its own process (OpenTelemetry is set up at process
 * start): each request looks up the cache twice and is annotated as the service's log does, then
 * the script calls itself a few times and exits, which flushes the OTLP exporter.
 */
import { annotateSpan, noteCacheLookup, telemetryEnabled } from "../../src/platform/telemetry.ts";
import { redactedPath } from "../../src/platform/request_log.ts";

console.log(JSON.stringify({ enabled: telemetryEnabled() }));
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
  const url = new URL(request.url);
  await new Promise((resolve) => setTimeout(resolve, 2));
  noteCacheLookup(true);
  await Promise.resolve();
  noteCacheLookup(url.searchParams.get("cache") === "hit");
  annotateSpan({
    method: request.method,
    path: redactedPath(url),
    status: 200,
    ms: 2.5,
    route: "/api/v1/opportunities/:id",
    plan: "pro",
    quota: "charged",
    key_prefix: "oi_live_abcd",
    account_id: 42,
  });
  return new Response("ok");
});
const base = `http://127.0.0.1:${server.addr.port}`;
for (const query of ["?cache=hit", "?cache=miss", "?api_key=oi_live_SECRETKEYVALUE&cache=hit"]) {
  await (await fetch(`${base}/api/v1/opportunities/5${query}`)).text();
}
await server.shutdown();
