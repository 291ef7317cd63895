/**
 * The figures of a suite run (bench/suite/run.ts) and what they are judged by: each scenario's
 * summary over its rounds, and PASS/MISS per target against its baseline. bench/suite/report.ts
 * renders them.
 */
import { median } from "../harness/measure.ts";
import type { LoadResult } from "../harness/load.ts";
import type { Latency } from "../harness/measure.ts";
import type { PreparedDatabase } from "../harness/prepare.ts";
import type { Target } from "./scenarios.ts";

/** The machine the run was made on. */
export interface Machine {
  cpus: number;
  cpuModel: string;
  memoryGib: number;
  loadBefore: string;
  loadAfter?: string;
  deno: string;
}

/** A load run's figures with the CPU its process and PostgreSQL used meanwhile. */
export interface RunResult extends LoadResult {
  quotaResets: number;
  cpu: {
    /** Percent of one core, warm-up included. */
    processPct: number;
    processMsPerRequest: number;
    /** The backends of the bench database; absent for the embedded database. */
    postgresPct?: number;
    postgresMsPerRequest?: number;
  };
}

/** One load run of a scenario. */
export interface Run {
  id: string;
  title: string;
  target: Target;
  result: RunResult;
}

/** Everything a run measured. */
export interface Results {
  date: string;
  machine: Machine;
  commit: string;
  /** Uncommitted changes in src/, sql/ and main.ts when the run began. */
  dirty: number;
  options: Record<string, unknown>;
  database?: PreparedDatabase;
  /** The PostgreSQL server's autovacuum setting. */
  autovacuum?: string;
  words?: { common: string; rare: string; commonShare: number; rareShare: number };
  rssIdleMib?: number;
  rssLoadMib?: number;
  qFirstCommon?: { ms: number; status: number };
  single?: Record<string, Latency>;
  runs: Run[];
  stdio?: number[];
  /** Spawn of a bare `node -e` to its first output, for comparison with `stdio`. */
  nodeStartup?: number[];
  coldStart?: { empty: number; seeded: number[] };
  embedded?: {
    opportunities: number;
    seedSeconds: number;
    coldStart: number;
    result: RunResult;
    rssMib?: number;
  };
  explain?: { label: string; ms: number; plan: string }[];
  notes: string[];
  totalSeconds?: number;
}

/** A scenario's figures over its rounds. */
export interface Summary {
  id: string;
  title: string;
  target: Target;
  runs: RunResult[];
  rps: number;
  p50: number;
  p99: number;
  bad: number;
}

/** The mean of `values`. */
export function mean(values: number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

/** The answers of a load run that do not count: non-2xx, errors, time-outs, mismatches. */
export function badCount(r: LoadResult): number {
  return r.non2xx + r.errors + r.timeouts + r.mismatches;
}

/** Mean figures of each scenario over its runs, in the order of first appearance. */
export function summarize(runs: Run[]): Map<string, Summary> {
  const out = new Map<string, Summary>();
  for (const run of runs) {
    const s = out.get(run.id) ??
      {
        id: run.id,
        title: run.title,
        target: run.target,
        runs: [],
        rps: 0,
        p50: 0,
        p99: 0,
        bad: 0,
      };
    s.runs.push(run.result);
    s.rps = mean(s.runs.map((r) => r.rps));
    s.p50 = mean(s.runs.map((r) => r.p50));
    s.p99 = mean(s.runs.map((r) => r.p99));
    s.bad = s.runs.reduce((n, r) => n + badCount(r), 0);
    out.set(run.id, s);
  }
  return out;
}

export const f0 = (n: number | undefined) =>
  n === undefined || Number.isNaN(n) ? "-" : n.toFixed(0);
export const f1 = (n: number | undefined) =>
  n === undefined || Number.isNaN(n) ? "-" : n.toFixed(1);
export const f2 = (n: number | undefined) =>
  n === undefined || Number.isNaN(n) ? "-" : n.toFixed(2);

/** One target's row of the table. */
export interface TargetRow {
  name: string;
  measured: string;
  required: string;
  result: "PASS" | "MISS" | "INVALID" | "NOT MEASURED";
}

function ratioTarget(
  name: string,
  summaries: Map<string, Summary>,
  id: string,
  baseline: string,
  min: number,
): TargetRow {
  const s = summaries.get(id);
  const b = summaries.get(baseline);
  if (!s || !b) return { name, measured: "-", required: `>= ${min}x`, result: "NOT MEASURED" };
  const ratio = s.rps / b.rps;
  return {
    name,
    measured: `${f2(ratio)}x (${f0(s.rps)} / ${f0(b.rps)} req/s)`,
    required: `>= ${min}x`,
    result: s.bad + b.bad > 0 ? "INVALID" : ratio >= min ? "PASS" : "MISS",
  };
}

/** A p99 at most `max` times its baseline's p99 under the same load, with no bad answer. */
function p99Target(
  name: string,
  summaries: Map<string, Summary>,
  id: string,
  baseline: string,
  max: number,
): TargetRow {
  const s = summaries.get(id);
  const b = summaries.get(baseline);
  if (!s || !b) return { name, measured: "-", required: `<= ${max}x`, result: "NOT MEASURED" };
  const ratio = s.p99 / Math.max(b.p99, 1);
  return {
    name,
    measured: `${f2(ratio)}x (${f1(s.p99)} / ${f1(b.p99)} ms), ${s.bad} bad answers`,
    required: `<= ${max}x, none bad`,
    result: ratio <= max && s.bad + b.bad === 0 ? "PASS" : "MISS",
  };
}

function maxTarget(
  name: string,
  value: number | undefined,
  max: number,
  unit: string,
  invalid = false,
): TargetRow {
  if (value === undefined) {
    return { name, measured: "-", required: `<= ${max} ${unit}`, result: "NOT MEASURED" };
  }
  return {
    name,
    measured: `${f1(value)} ${unit}`,
    required: `<= ${max} ${unit}`,
    result: invalid ? "INVALID" : value <= max ? "PASS" : "MISS",
  };
}

function failed(l: Latency | undefined): boolean {
  return l !== undefined && Object.keys(l.failures).length > 0;
}

/** The PASS/MISS rows of the suite's targets. */
export function targets(r: Results): TargetRow[] {
  const s = summarize(r.runs);
  const w = r.words;
  const common = w && r.single?.[`q=${w.common} (repeated)`];
  const rare = w && r.single?.[`q=${w.rare}`];
  const overview = r.single?.["overview"];
  return [
    ratioTarget("List, default parameters, vs raw page query", s, "list", "raw_list", 0.8),
    ratioTarget(
      "List, filtered, vs raw page query with the filter",
      s,
      "list_filtered",
      "raw_filtered",
      0.8,
    ),
    ratioTarget("Detail vs raw single-row select", s, "detail", "raw_detail", 0.8),
    p99Target(
      "Random filters and pages, p99 vs the raw page query's p99",
      s,
      "list_random",
      "raw_random",
      5,
    ),
    ratioTarget("MCP query_opportunities vs REST list", s, "mcp_query", "list_ref", 0.5),
    maxTarget(`q rare word (${w?.rare}) p95, single client`, rare?.p95, 25, "ms", failed(rare)),
    maxTarget(
      `q common word (${w?.common}) p95 repeated, single client`,
      common?.p95,
      25,
      "ms",
      failed(common),
    ),
    maxTarget(
      `q common word first request`,
      r.qFirstCommon?.ms,
      2000,
      "ms",
      r.qFirstCommon !== undefined && r.qFirstCommon.status !== 200,
    ),
    maxTarget("Overview p50, single client", overview?.p50, 5, "ms", failed(overview)),
    ratioTarget("Quota hot row vs spread over 50 accounts", s, "quota_hot", "quota_spread", 0.7),
    maxTarget("Stdio spawn -> initialize (median of 5)", r.stdio && median(r.stdio), 300, "ms"),
    maxTarget(
      "Embedded cold start, seeded (median of 3)",
      r.coldStart && median(r.coldStart.seeded),
      5000,
      "ms",
    ),
  ];
}

/** Renders the results as Markdown. */
