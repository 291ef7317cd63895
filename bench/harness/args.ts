/**
 * Flags of the small bench entry points: `--name value` with a fallback, and `--help` printing
 * the usage text and ending the process before anything is measured.
 */

/** The value after `name` in the command line, or the fallback. */
export function arg(name: string, fallback: string): string {
  const i = Deno.args.indexOf(name);
  return i >= 0 && Deno.args[i + 1] ? Deno.args[i + 1] : fallback;
}

/** Prints `usage` and exits 0 when the command line asks for help (`--help` or `-h`). */
export function exitWithHelpIfAsked(usage: string): void {
  if (Deno.args.includes("--help") || Deno.args.includes("-h")) {
    console.log(usage.trim());
    Deno.exit(0);
  }
}
