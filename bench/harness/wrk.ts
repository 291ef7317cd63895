/**
 * One load run with wrk (Debian's `wrk`, C and Lua: it takes a fraction of the CPU autocannon
 * takes, which matters on a 2-core machine where the load generator shares the cores with the
 * service and PostgreSQL). The paths are requested in order, each thread taking every T-th one
 * from its own start, so that the first pass over a list of distinct query strings asks each of
 * them once: a cold run of a fresh server misses its cache on every request of that pass.
 */

/** What to load. */
export interface WrkSpec {
  base: string;
  paths: string[];
  /** API keys, one per request in turn (the quota keeper keeps them under their quota). */
  keys: string[];
  connections: number;
  seconds: number;
  threads?: number;
}

/** The run's figures; latencies in milliseconds. */
export interface WrkResult {
  rps: number;
  requests: number;
  p50: number;
  p99: number;
  max: number;
  /** Answers by status, and socket errors and time-outs (10 s). */
  statuses: Record<string, number>;
  errors: number;
  timeouts: number;
  /** How many times the list of paths was gone through (above 1: some strings were repeated). */
  passes: number;
}

const SCRIPT = `
local threads = {}
function setup(thread)
  thread:set("tid", #threads)
  table.insert(threads, thread)
end
function init(args)
  paths, keys = {}, {}
  for line in io.lines(args[1]) do paths[#paths + 1] = line end
  for line in io.lines(args[2]) do keys[#keys + 1] = line end
  step = tonumber(args[3])
  pos = tid
  statuses = {}
end
function request()
  local path = paths[(pos % #paths) + 1]
  local key = keys[(pos % #keys) + 1]
  pos = pos + step
  return wrk.format("GET", path, { ["x-api-key"] = key })
end
function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end
function done(summary, latency, requests)
  local parts, seen = {}, {}
  local furthest = 0
  for _, t in ipairs(threads) do
    for code, n in pairs(t:get("statuses")) do seen[code] = (seen[code] or 0) + n end
    local p = t:get("pos")
    if p > furthest then furthest = p end
  end
  for code, n in pairs(seen) do parts[#parts + 1] = string.format('"%d":%d', code, n) end
  io.write(string.format(
    'WRK {"requests":%d,"us":%d,"p50":%d,"p99":%d,"max":%d,"errors":%d,"timeouts":%d,' ..
      '"furthest":%d,"statuses":{%s}}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    latency.max, summary.errors.connect + summary.errors.read + summary.errors.write,
    summary.errors.timeout, furthest, table.concat(parts, ",")))
end
`;

/** Runs wrk once over `spec.paths` in order and returns its figures. */
export async function wrkRun(spec: WrkSpec): Promise<WrkResult> {
  if (new URL(spec.base).hostname !== "127.0.0.1") throw new Error(`Refusing ${spec.base}`);
  const dir = await Deno.makeTempDir({ prefix: "oppintel-wrk-" });
  try {
    const threads = spec.threads ?? 2;
    await Deno.writeTextFile(`${dir}/script.lua`, SCRIPT);
    await Deno.writeTextFile(`${dir}/paths`, spec.paths.join("\n") + "\n");
    await Deno.writeTextFile(`${dir}/keys`, spec.keys.join("\n") + "\n");
    const out = await new Deno.Command("wrk", {
      args: [
        `-t${threads}`,
        `-c${spec.connections}`,
        `-d${spec.seconds}s`,
        "--timeout",
        "10s",
        "-s",
        `${dir}/script.lua`,
        spec.base,
        "--",
        `${dir}/paths`,
        `${dir}/keys`,
        String(threads),
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    const line = text.split("\n").find((l) => l.startsWith("WRK "));
    if (!out.success || !line) {
      throw new Error(`wrk failed: ${text}\n${new TextDecoder().decode(out.stderr)}`);
    }
    const r = JSON.parse(line.slice(4));
    return {
      rps: r.requests / (r.us / 1e6),
      requests: r.requests,
      p50: r.p50 / 1000,
      p99: r.p99 / 1000,
      max: r.max / 1000,
      statuses: r.statuses,
      errors: r.errors,
      timeouts: r.timeouts,
      passes: r.furthest / spec.paths.length,
    };
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}
