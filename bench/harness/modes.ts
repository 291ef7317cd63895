/**
 * bench/harness/: what every benchmark family shares, each piece once: the command line (this
 * file's modes and args.ts's flags), the child processes (procs.ts), the load generators
 * (load.ts: autocannon in its own process, wrk.ts: wrk), the measurements (measure.ts) and the
 * benchmark database with its keys (prepare.ts). The families (bench/*.ts, their parts in
 * bench/suite/, bench/questions/, bench/mcp/, bench/lists/) import from here, never the reverse.
 *
 * A family's entry point names its modes; the first argument picks one, and the rest of the
 * command line is that mode's flags.
 */

/** One mode of a family: what it answers, and how it runs on the flags after its name. */
export interface Mode {
  about: string;
  run: (args: string[]) => Promise<unknown>;
}

/**
 * Runs the mode named by the first argument (or `fallback` when the first argument is not a
 * mode's name). Without a mode, or with `--help` before one, prints the family's modes.
 */
export async function runMode(
  family: string,
  modes: Record<string, Mode>,
  fallback?: string,
): Promise<void> {
  const [first, ...rest] = Deno.args;
  const named = first !== undefined && Object.hasOwn(modes, first);
  const asksHelp = first === "--help" || first === "-h";
  if (!named && (asksHelp || fallback === undefined)) {
    const width = Math.max(...Object.keys(modes).map((name) => name.length));
    console.log(
      [
        `Usage: deno task ${family} ${
          fallback ? "[MODE]" : "MODE"
        } [flags]  (MODE --help: its flags)`,
        "",
        "Modes:",
        ...Object.entries(modes).map(([name, mode]) =>
          `  ${name.padEnd(width)}  ${mode.about}${name === fallback ? " (the default)" : ""}`
        ),
      ].join("\n"),
    );
    if (!asksHelp) Deno.exit(first === undefined ? 0 : 2);
    if (fallback === undefined) Deno.exit(0);
    console.log("");
  }
  await modes[named ? first : fallback!].run(named ? rest : Deno.args);
}
