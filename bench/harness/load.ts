/**
 * One load run with autocannon, in its own process so that the load generator never shares an
 * event loop with the orchestrator: a warm-up, then the measured run. Reads a LoadSpec as JSON
 * from the first argument and prints a LoadResult as JSON on standard output.
 *
 * Run by bench/suite/run.ts as `deno run -A --no-lock bench/harness/load.ts '<json>'` (autocannon
 * is not in the import map, and --no-lock keeps deno.lock unchanged).
 */
// autocannon is not in deno.json's import map (the suite may not edit it), hence the inline
// specifier and --no-lock.
// deno-lint-ignore no-import-prefix
import autocannon from "npm:autocannon@8";

/** What to load: one route, optionally with random ids and one key per connection. */
export interface LoadSpec {
  /** Base address, e.g. http://127.0.0.1:8000 (only 127.0.0.1 is accepted). */
  base: string;
  /** Path; `{id}` is replaced per request by a random id of `idRange`. */
  path: string;
  /** Paths to pick from at random per request, instead of `path` (random search words). */
  paths?: string[];
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  /** Request body; the text `"{id}"` (with its quotes) becomes a random id number. */
  body?: string;
  /** Inclusive range of random ids. */
  idRange?: [number, number];
  /** API keys sent as X-API-Key; connection i uses keys[i % keys.length]. */
  keys?: string[];
  connections: number;
  warmupSeconds: number;
  seconds: number;
  /** Count answers whose body contains this text as mismatches (MCP isError results). */
  rejectBodyContaining?: string;
}

/** The measured run. Latencies in milliseconds (autocannon's resolution is 1 ms). */
export interface LoadResult {
  rps: number;
  total: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  mismatches: number;
  statusCodes: Record<string, number>;
}

interface Request {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
}

interface ConnectionContext {
  key?: string;
}

function randomId(range: [number, number]): number {
  return range[0] + Math.floor(Math.random() * (range[1] - range[0] + 1));
}

function options(spec: LoadSpec, seconds: number) {
  let nextConnection = 0;
  const hasId = spec.path.includes("{id}") || (spec.body ?? "").includes('"{id}"');
  if (hasId && !spec.idRange) throw new Error(`Spec of "${spec.path}" needs idRange`);
  return {
    url: spec.base,
    connections: spec.connections,
    duration: seconds,
    timeout: 10,
    ...(spec.rejectBodyContaining
      ? { verifyBody: (body: string) => !body.includes(spec.rejectBodyContaining!) }
      : {}),
    requests: [{
      method: spec.method ?? "GET",
      setupRequest: (request: Request, context: ConnectionContext) => {
        // The context is per connection: the first request of a connection takes its key.
        if (spec.keys?.length && context.key === undefined) {
          context.key = spec.keys[nextConnection++ % spec.keys.length];
        }
        const id = hasId ? String(randomId(spec.idRange!)) : "";
        return {
          ...request,
          path: (spec.paths?.length
            ? spec.paths[Math.floor(Math.random() * spec.paths.length)]
            : spec.path).replace("{id}", id),
          headers: {
            ...spec.headers,
            ...(context.key ? { "x-api-key": context.key } : {}),
          },
          ...(spec.body ? { body: spec.body.replace('"{id}"', id) } : {}),
        };
      },
    }],
  };
}

function run(spec: LoadSpec, seconds: number): Promise<autocannon.Result> {
  return autocannon(options(spec, seconds));
}

/** Runs the warm-up and the measured run of a spec. */
export async function load(spec: LoadSpec): Promise<LoadResult> {
  const url = new URL(spec.base);
  if (url.hostname !== "127.0.0.1") throw new Error(`Refusing to load "${spec.base}"`);
  if (spec.warmupSeconds > 0) await run(spec, spec.warmupSeconds);
  const r = await run(spec, spec.seconds);
  const statusCodes: Record<string, number> = {};
  for (const [code, stats] of Object.entries(r.statusCodeStats ?? {})) {
    statusCodes[code] = (stats as { count: number }).count;
  }
  return {
    rps: r.requests.average,
    total: r.requests.total,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    mismatches: (r as unknown as { mismatches?: number }).mismatches ?? 0,
    statusCodes,
  };
}

if (import.meta.main) {
  const spec = JSON.parse(Deno.args[0]) as LoadSpec;
  console.log(JSON.stringify(await load(spec)));
}
