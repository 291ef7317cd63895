/**
 * bench/results/RESULTS.md: every figure of a run, each ratio against its baseline and PASS/MISS per
 * target of the benchmark suite. The findings of a person (bench/results/FINDINGS.md) are appended as they are, so
 * that a rerun keeps them.
 */
import { exitWithHelpIfAsked } from "../harness/args.ts";
import { readSearch, renderSearch } from "../questions/search_report.ts";
import {
  badCount,
  f0,
  f1,
  f2,
  mean,
  type Results,
  type RunResult,
  summarize,
  targets,
} from "./results.ts";

/** Mean CPU of the runs: percent of one core, and milliseconds per request. */
function cpuCells(runs: RunResult[]): string {
  const cell = (pct: (number | undefined)[], ms: (number | undefined)[]) =>
    pct.some((p) => p === undefined)
      ? "-"
      : `${f0(mean(pct as number[]))}% (${f2(mean(ms as number[]))} ms/req)`;
  return `${
    cell(runs.map((r) => r.cpu.processPct), runs.map((r) => r.cpu.processMsPerRequest))
  } | ` +
    cell(runs.map((r) => r.cpu.postgresPct), runs.map((r) => r.cpu.postgresMsPerRequest));
}

/** Which baseline each service scenario is compared with. */
const BASELINE: Record<string, string> = {
  list: "raw_list",
  list_filtered: "raw_filtered",
  detail: "raw_detail",
  list_random: "raw_random",
  list_q_common: "raw_list",
  list_q_rare: "raw_list",
  mcp_query: "list_ref",
  mcp_get: "detail",
  quota_hot: "quota_spread",
};

export function renderResults(r: Results, findings?: string): string {
  const s = summarize(r.runs);
  const lines: string[] = [];
  const push = (...l: string[]) => lines.push(...l);
  const staticRps = s.get("static")?.rps;
  const loadBusy = Number(r.machine.loadBefore.split(" ")[0]) > 0.5;

  push(
    "# Benchmark results",
    "",
    `Written by \`deno task bench\` on ${r.date.slice(0, 16).replace("T", " ")} UTC at commit ` +
      `${r.commit || "?"}` +
      (r.dirty ? ` with ${r.dirty} uncommitted changed files in src/, sql/ or main.ts` : "") +
      `, in ${f0(r.totalSeconds)} s end to end. Rerun: \`deno task bench\` (\`--help\` for the ` +
      "flags). Each rerun rewrites this file; bench/results/FINDINGS.md, written by a person, is " +
      "appended at the end.",
    "",
    "## Machine",
    "",
    `- ${r.machine.cpus} CPUs (${r.machine.cpuModel}), ${f1(r.machine.memoryGib)} GiB memory, ` +
      `Deno ${r.machine.deno}, PostgreSQL on 127.0.0.1.`,
    `- Load average before the run: ${r.machine.loadBefore}; after: ${
      r.machine.loadAfter ?? "-"
    }.` +
      (loadBusy
        ? " **Other processes were running on the machine** (the cores are shared): absolute " +
          "figures are low and noisy; the ratios, measured side by side, are what to read."
        : ""),
    "- The load generator (autocannon 8, in its own Deno process) runs on the same cores as " +
      "the service and PostgreSQL, so the static baseline is also bounded by it.",
    "",
    "## Setup",
    "",
  );
  if (r.database) {
    push(
      `- PostgreSQL database with ${r.database.opportunities.toLocaleString("en-US")} demo ` +
        "opportunities (`seed-demo`), " +
        (r.database.seedSeconds === undefined
          ? "reused from an earlier run."
          : `seeded in this run in ${f0(r.database.seedSeconds)} s (seed, then vacuum analyze).`),
    );
  }
  push(
    `- Each load run: ${r.options.connections} connections, ${r.options.warmup} s warm-up, then ` +
      `${r.options.duration} s measured. Scenarios with a target alternate with their baseline ` +
      "(A/B/A/B); figures are the mean over runs. autocannon's latency resolution is 1 ms. " +
      "CPU: percent of one core used by the loaded process and by the bench database's " +
      "PostgreSQL backends during the run (warm-up included), and per request.",
    "- Service: `deno run -A main.ts` (DATABASE_URL, SEED_DEMO=off, request log to /dev/null). " +
      "raw: bench/suite/baseline_raw.ts (bare Deno.serve + postgres.js, page query only, pool of " +
      "10 like the service). static: bench/suite/baseline_static.ts (constant JSON).",
    "- Quota: the bench accounts' counters are deleted before each run and zeroed every 20 ms " +
      "during it once past 200, so that no run meets 429 while the service still checks and " +
      "charges every call (since issue 49 the same URL again by the same key within a run is a " +
      "repeat: not charged, counted on the same counter row; claims are deleted before each " +
      "run). Before each run the tables the service writes (usage_counters, api_keys) are " +
      "vacuumed" +
      (r.autovacuum === "off"
        ? " (autovacuum is **off** on this server: without that, dead counter versions pile " +
          "up from run to run)."
        : ", as autovacuum would between runs."),
  );
  if (r.words) {
    push(
      `- q words: common "${r.words.common}" in ${f1(r.words.commonShare * 100)}% of rows; ` +
        `rare "${r.words.rare}" in ${(r.words.rareShare * 100).toFixed(3)}%.`,
    );
  }

  push(
    "",
    "## Targets",
    "",
    "| Target | Measured | Required | Result |",
    "|---|---|---|---|",
  );
  for (const t of targets(r)) {
    push(`| ${t.name} | ${t.measured} | ${t.required} | **${t.result}** |`);
  }
  push(
    "",
    "INVALID: a run of the scenario (or its baseline) had non-2xx answers, socket errors, " +
      "time-outs or MCP error results, so its figure does not count.",
  );

  push(
    "",
    "## Load",
    "",
    "| Scenario | Process | req/s (mean) | each run | p50 ms | p99 ms | bad answers | vs baseline | vs static | process CPU | PostgreSQL CPU |",
    "|---|---|---|---|---|---|---|---|---|---|---|",
  );
  for (const sum of s.values()) {
    const base = BASELINE[sum.id] ? s.get(BASELINE[sum.id]) : undefined;
    const bad = sum.runs.map((x) =>
      badCount(x) ? `${badCount(x)} ${JSON.stringify(x.statusCodes)}` : "0"
    ).join(", ");
    push(
      `| ${sum.title} | ${sum.target} | ${f0(sum.rps)} | ${
        sum.runs.map((x) => f0(x.rps)).join(", ")
      } | ` +
        `${f1(sum.p50)} | ${f1(sum.p99)} | ${bad} | ` +
        `${base ? `${f2(sum.rps / base.rps)}x ${base.id}` : "-"} | ` +
        `${staticRps ? f2(sum.rps / staticRps) + "x" : "-"} | ${cpuCells(sum.runs)} |`,
    );
  }
  if (r.embedded) {
    const e = r.embedded;
    const list = s.get("list");
    push(
      `| list, default parameters, embedded (${e.opportunities.toLocaleString("en-US")} rows) | ` +
        `embedded | ${f0(e.result.rps)} | ${f0(e.result.rps)} | ${f1(e.result.p50)} | ` +
        `${f1(e.result.p99)} | ${badCount(e.result)} | ` +
        `${list ? f2(e.result.rps / list.rps) + "x list on PostgreSQL" : "-"} | ` +
        `${staticRps ? f2(e.result.rps / staticRps) + "x" : "-"} | ${cpuCells([e.result])} |`,
    );
  }

  push(
    "",
    "## Single client",
    "",
    "| Request | n | p50 ms | p95 ms | max ms | not 200 |",
    "|---|---|---|---|---|---|",
  );
  if (r.qFirstCommon) {
    push(
      `| q=${r.words?.common}, first request after start | 1 | ${
        f1(r.qFirstCommon.ms)
      } | - | - | ` +
        `${r.qFirstCommon.status === 200 ? "-" : r.qFirstCommon.status} |`,
    );
  }
  for (const [label, l] of Object.entries(r.single ?? {})) {
    push(
      `| ${label} | ${l.samples} | ${f1(l.p50)} | ${f1(l.p95)} | ${f1(l.max)} | ` +
        `${Object.keys(l.failures).length ? JSON.stringify(l.failures) : "-"} |`,
    );
  }

  push("", "## Start-up and memory", "");
  if (r.coldStart) {
    push(
      `- Embedded default (demo seed), spawn to first 200 on /healthz: empty DATA_DIR ` +
        `${f0(r.coldStart.empty)} ms; seeded DATA_DIR ${r.coldStart.seeded.map(f0).join(", ")} ms.`,
    );
  }
  if (r.embedded) {
    push(
      `- Embedded with ${r.embedded.opportunities.toLocaleString("en-US")} opportunities: ` +
        `seed-demo ${f0(r.embedded.seedSeconds)} s; cold start ${f0(r.embedded.coldStart)} ms; ` +
        `RSS under load ${f0(r.embedded.rssMib)} MiB.`,
    );
  }
  if (r.stdio) {
    push(
      `- Stdio package, spawn -> initialize answer: ${r.stdio.map(f0).join(", ")} ms ` +
        `(a bare \`node -e\` to its first output: ${(r.nodeStartup ?? []).map(f0).join(", ")} ms).`,
    );
  }
  push(
    `- Service RSS (PostgreSQL): ${f0(r.rssIdleMib)} MiB after start, ` +
      `${f0(r.rssLoadMib)} MiB at most during the default list load.`,
  );

  if (r.explain?.length) {
    push(
      "",
      "## EXPLAIN (ANALYZE, BUFFERS) of the list statements",
      "",
      "The page and the exact count of the list, as the service writes them (ids only for the page).",
      "",
      "| Statement | ms | Plan (first nodes) |",
      "|---|---|---|",
    );
    for (const e of r.explain) push(`| ${e.label} | ${f1(e.ms)} | ${e.plan} |`);
  }
  if (r.notes.length) push("", "## Notes", "", ...r.notes.map((n) => `- ${n}`));
  if (findings?.trim()) push("", findings.trim());
  return lines.join("\n") + "\n";
}

/** The JSON file kept beside a Markdown report, from which it can be rendered again. */
export function jsonPathOf(markdownPath: string): string {
  return markdownPath.replace(/\.md$/, "") + ".json";
}

/**
 * Writes the Markdown, appending bench/results/FINDINGS.md when it exists, and the figures as JSON
 * beside it (RESULTS.md -> RESULTS.json).
 */
export async function writeResults(path: string, results: Results): Promise<void> {
  const findingsPath = new URL("../results/FINDINGS.md", import.meta.url);
  const findings = await Deno.readTextFile(findingsPath).catch(() => undefined);
  const search = await readSearch();
  await Deno.writeTextFile(jsonPathOf(path), JSON.stringify(results, null, 2) + "\n");
  await Deno.writeTextFile(
    path,
    renderResults(results, findings) + (search ? "\n" + renderSearch(search) : ""),
  );
}

/** Renders bench/results/RESULTS.md again from its JSON (and the search run's), measuring nothing. */
export async function renderAgain(
  path = new URL("../results/RESULTS.md", import.meta.url).pathname,
): Promise<void> {
  const results = JSON.parse(await Deno.readTextFile(jsonPathOf(path))) as Results;
  await writeResults(path, results);
}

// `deno task bench:report [bench/results/RESULTS.md]` renders the Markdown again from its JSON,
// e.g. after editing bench/results/FINDINGS.md, without measuring anything.
/** Renders the report at `args[0]` (default results/RESULTS.md) again from its JSON. */
export async function renderFromCommandLine(args: string[]): Promise<void> {
  exitWithHelpIfAsked(`
Usage: deno task bench:report [PATH]

Renders PATH (default bench/results/RESULTS.md) again from its JSON beside it, with
bench/results/FINDINGS.md appended, measuring nothing.
`);
  const path = args[0] ?? new URL("../results/RESULTS.md", import.meta.url).pathname;
  await renderAgain(path);
  console.error(`Rendered ${path} again from ${jsonPathOf(path)}`);
}
