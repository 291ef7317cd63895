/**
 * The suite's setting (bench/suite/run.ts): its flags, the machine it runs on, the checkout's
 * git facts, and its progress lines.
 */
import { loadAverage } from "../harness/measure.ts";
import type { Machine } from "./results.ts";

const ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

/** The suite's flags, parsed. */
export interface Options {
  opportunities: number;
  fresh: boolean;
  database: string;
  warmup: number;
  duration: number;
  connections: number;
  embeddedOpportunities: number;
  out: string;
  prepareOnly: boolean;
  sequential: number;
}

const HELP = `Usage: deno task bench [flags]

Flags:
  --opportunities N           Opportunities in the PostgreSQL database (default 1000000)
  --fresh                     Rebuild the database even when it already holds N opportunities
  --database NAME             Database name (default oppintel_bench)
  --warmup S                  Warm-up seconds before each load run (default 3)
  --duration S                Measured seconds of each load run (default 8)
  --connections N             Connections of each load run (default 50)
  --embedded-opportunities N  Opportunities of the embedded list scenario (default 50000; 0 skips)
  --sequential N              Requests of each single-client measurement (default 50)
  --out FILE                  Where to write the results (default bench/results/RESULTS.md)
  --prepare-only              Prepare the database and stop

Environment: BENCH_POSTGRES_URL, the server's maintenance database
(default postgres://postgres@127.0.0.1:5432/postgres; 127.0.0.1 only).`;

/** The flags of `args`; --help prints the usage and ends the process. */
export function parseOptions(args: string[]): Options {
  const o: Options = {
    opportunities: 1_000_000,
    fresh: false,
    database: "oppintel_bench",
    warmup: 3,
    duration: 8,
    connections: 50,
    embeddedOpportunities: 50_000,
    out: `${ROOT}/bench/results/RESULTS.md`,
    prepareOnly: false,
    sequential: 50,
  };
  const numbers: Record<string, keyof Options> = {
    "--opportunities": "opportunities",
    "--warmup": "warmup",
    "--duration": "duration",
    "--connections": "connections",
    "--embedded-opportunities": "embeddedOpportunities",
    "--sequential": "sequential",
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--help" || arg === "-h") {
      console.log(HELP);
      Deno.exit(0);
    } else if (arg === "--fresh") o.fresh = true;
    else if (arg === "--prepare-only") o.prepareOnly = true;
    else if (arg === "--database" || arg === "--out") {
      const value = args[++i];
      if (!value) throw new Error(`Missing value of "${arg}"`);
      if (arg === "--database") {
        if (!/^[a-z_][a-z0-9_]*$/.test(value)) throw new Error(`Bad database name "${value}"`);
        o.database = value;
      } else o.out = value;
    } else if (arg in numbers) {
      const value = args[++i];
      if (!/^\d+$/.test(value ?? "")) {
        throw new Error(`"${arg}" needs a whole number, not "${value}"`);
      }
      (o[numbers[arg]] as number) = Number(value);
    } else throw new Error(`Unknown flag "${arg}" (see --help)`);
  }
  if (o.opportunities < 1) throw new Error("--opportunities must be at least 1");
  if (o.duration < 1) throw new Error("--duration must be at least 1");
  return o;
}

/** One line of the suite's progress on standard error, with the time. */
export function progress(message: string): void {
  const t = new Date().toISOString().slice(11, 19);
  console.error(`[bench ${t}] ${message}`);
}

/** The machine the suite runs on, and its load before. */
export async function machine(): Promise<Machine> {
  const cpuinfo = await Deno.readTextFile("/proc/cpuinfo").catch(() => "");
  const meminfo = await Deno.readTextFile("/proc/meminfo").catch(() => "");
  const kb = Number(meminfo.match(/^MemTotal:\s+(\d+)/m)?.[1] ?? 0);
  return {
    cpus: navigator.hardwareConcurrency,
    cpuModel: cpuinfo.match(/^model name\s*:\s*(.+)$/m)?.[1]?.trim() ?? "unknown",
    memoryGib: kb / 1024 / 1024,
    loadBefore: await loadAverage(),
    deno: Deno.version.deno,
  };
}

/** The output of git `args` in this checkout (empty when git fails). */
export async function git(args: string[]): Promise<string> {
  try {
    const out = await new Deno.Command("git", { args, cwd: ROOT, stderr: "null" }).output();
    return new TextDecoder().decode(out.stdout).trim();
  } catch {
    return "";
  }
}
