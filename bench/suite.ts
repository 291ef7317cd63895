/**
 * `deno task bench`: the benchmark suite and what compares or renders its figures. Modes:
 * `run` (the default: the suite at 1,000,000 rows against two baselines, bench/suite/run.ts),
 * `ab` (two versions of the service in turns, bench/suite/ab.ts) and `report` (RESULTS.md
 * rendered again from its JSON, bench/suite/report.ts).
 *
 * Example: deno task bench --opportunities 20000 --duration 2 --warmup 1 --out /tmp/r.md
 */
import { runMode } from "./harness/modes.ts";

await runMode("bench", {
  run: {
    about: "The suite: PASS/MISS per target against the raw and static baselines",
    run: async (args) => (await import("./suite/run.ts")).runSuite(args),
  },
  ab: {
    about: "Did a change make anything slower? Two versions in turns (--a REV)",
    run: async (args) => (await import("./suite/ab.ts")).runAb(args),
  },
  report: {
    about: "Renders results/RESULTS.md again from its JSON, measuring nothing",
    run: async (args) => (await import("./suite/report.ts")).renderFromCommandLine(args),
  },
}, "run");
