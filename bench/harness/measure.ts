/**
 * Measurements: load runs (autocannon in a child process), single-client latency, cold start of
 * the embedded service and spawn -> initialize of the stdio package.
 */
import type { LoadResult, LoadSpec } from "./load.ts";
import { freePort, runToEnd, sleep, start, stop, waitReady } from "./procs.ts";

/** Latency figures of sequential requests, in milliseconds. */
export interface Latency {
  samples: number;
  p50: number;
  p95: number;
  max: number;
  /** Answers that were not 200, by status. */
  failures: Record<string, number>;
}

/** Runs one load spec in a fresh `bench/harness/load.ts` process. */
export async function loadRun(spec: LoadSpec, cwd: string): Promise<LoadResult> {
  const result = await runToEnd(["--no-lock", "bench/harness/load.ts", JSON.stringify(spec)], {
    cwd,
    env: {},
  });
  if (result.code !== 0) {
    throw new Error(`Load run of "${spec.path}" failed: ${result.stderr.slice(-2000)}`);
  }
  const lines = result.stdout.trim().split("\n");
  return JSON.parse(lines[lines.length - 1]) as LoadResult;
}

/** The value at quantile q (0-1) of sorted numbers, nearest rank. */
export function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank];
}

/** Times one request, reading the whole body. */
export async function timeRequest(
  url: string,
  init: RequestInit = {},
): Promise<{ ms: number; status: number }> {
  const started = performance.now();
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
  await response.arrayBuffer();
  return { ms: performance.now() - started, status: response.status };
}

/** `count` sequential requests from one client. */
export async function sequentialLatency(
  url: string,
  init: RequestInit,
  count: number,
): Promise<Latency> {
  const times: number[] = [];
  const failures: Record<string, number> = {};
  for (let i = 0; i < count; i++) {
    const { ms, status } = await timeRequest(url, init);
    times.push(ms);
    if (status !== 200) failures[status] = (failures[status] ?? 0) + 1;
  }
  times.sort((a, b) => a - b);
  return {
    samples: count,
    p50: quantile(times, 0.5),
    p95: quantile(times, 0.95),
    max: times[times.length - 1],
    failures,
  };
}

/**
 * Starts the service on the embedded database in `dataDir` and returns the milliseconds from
 * spawn to the first 200 on /healthz; the process is stopped before returning.
 */
export async function embeddedColdStart(
  cwd: string,
  dataDir: string,
  options: { seedDemo: boolean },
): Promise<number> {
  const port = freePort();
  const proc = await start("embedded-cold", ["main.ts"], {
    cwd,
    env: embeddedEnv(dataDir, port, options.seedDemo),
    clearEnv: true,
  });
  try {
    return await waitReady(proc, `http://127.0.0.1:${port}/healthz`, 180_000);
  } finally {
    await stop(proc);
  }
}

/** The environment of an embedded service: no DATABASE_URL, whatever the caller's shell had. */
export function embeddedEnv(
  dataDir: string,
  port: number,
  seedDemo: boolean,
): Record<string, string> {
  return {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: Deno.env.get("HOME") ?? "/tmp",
    ...(Deno.env.get("DENO_DIR") ? { DENO_DIR: Deno.env.get("DENO_DIR")! } : {}),
    DATA_DIR: dataDir,
    PORT: String(port),
    SEED_DEMO: seedDemo ? "on" : "off",
  };
}

/**
 * Spawns a bare `node -e` that writes one byte and returns the milliseconds until it arrives:
 * what starting Node.js alone costs here, to read the stdio figure against.
 */
export async function nodeStartup(): Promise<number> {
  const started = performance.now();
  const output = await new Deno.Command("node", {
    args: ["-e", "process.stdout.write('x')"],
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).output();
  if (!output.success) throw new Error("node -e failed");
  return performance.now() - started;
}

/**
 * Spawns `node npm-stdio/dist/cli.js`, sends `initialize` and returns the milliseconds until its
 * answer arrives on standard output; the process is killed afterwards.
 */
export async function stdioInitialize(
  cwd: string,
  env: Record<string, string>,
): Promise<number> {
  const started = performance.now();
  const child = new Deno.Command("node", {
    args: ["npm-stdio/dist/cli.js"],
    cwd,
    env,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  try {
    const writer = child.stdin.getWriter();
    await writer.write(
      new TextEncoder().encode(
        JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-06-18",
            capabilities: {},
            clientInfo: { name: "oppintel-bench", version: "1.0.0" },
          },
        }) + "\n",
      ),
    );
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let buffered = "";
    const deadline = setTimeout(() => child.kill("SIGKILL"), 15_000);
    try {
      // Bounded by the deadline: a killed child ends the stream.
      while (true) {
        const { value, done } = await reader.read();
        if (done) throw new Error("The stdio package exited before answering initialize");
        buffered += value;
        for (const line of buffered.split("\n")) {
          if (line.includes('"id":1') && line.includes('"result"')) {
            return performance.now() - started;
          }
        }
      }
    } finally {
      clearTimeout(deadline);
      reader.cancel().catch(() => {});
      writer.close().catch(() => {});
    }
  } finally {
    try {
      child.kill("SIGTERM");
    } catch {
      // Already gone.
    }
    await Promise.race([child.status, sleep(3000)]);
    try {
      child.kill("SIGKILL");
    } catch {
      // Already gone.
    }
    await child.status;
  }
}

/** The median of `values` (the mean of the middle two for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The load average of the last 1, 5 and 15 minutes, as /proc/loadavg says (empty without it). */
export async function loadAverage(): Promise<string> {
  const text = await Deno.readTextFile("/proc/loadavg").catch(() => "");
  return text.split(" ").slice(0, 3).join(" ");
}
