/**
 * The operator CLI's argument parser and help: commands are data (`Command`), grouped under a
 * first word (`account create`, `key list`); this module knows nothing of what they do.
 */
import type { Sql } from "../db/open.ts";

export type Flags = Record<string, string | true>;

export interface FlagSpec {
  name: string;
  /** The value's placeholder in help, e.g. "E"; absent for a flag that takes no value. */
  value?: string;
  required?: boolean;
  help: string;
  /** Returns what is wrong with a value, or undefined when it is good. */
  check?: (value: string) => string | undefined;
}

export interface CommandContext {
  sql: Sql;
  flags: Flags;
  args: string[];
  applied: number[];
  log: (text: string) => void;
  /** The environment the configuration is read from (commands that need more than sql). */
  env: Record<string, string | undefined>;
}

export interface Command {
  path: string[];
  summary: string;
  description: string;
  flags: FlagSpec[];
  /** The one positional argument the command takes, if any. */
  argument?: { name: string; help: string };
  run(ctx: CommandContext): Promise<unknown>;
}

/** A mistake in the command line: exit code 2, with a pointer to the help. */
export class UsageError extends Error {
  constructor(message: string, readonly helpPath: string[] = []) {
    super(message);
  }
}

/** Every command of the CLI and the one-line summary of each command group. */
export interface CommandSet {
  commands: Command[];
  groups: Record<string, string>;
}

export function positiveInteger(max: number): (value: string) => string | undefined {
  return (value) =>
    /^\d+$/.test(value) && Number(value) >= 1 && Number(value) <= max
      ? undefined
      : `must be a whole number from 1 to ${max}`;
}

export function text(flags: Flags, name: string): string | undefined {
  const value = flags[name];
  return typeof value === "string" ? value : undefined;
}

function usageLine(command: Command): string {
  const flags = command.flags.map((f) => {
    const shown = f.value ? `--${f.name} ${f.value}` : `--${f.name}`;
    return f.required ? shown : `[${shown}]`;
  });
  const argument = command.argument ? [command.argument.name] : [];
  return [...command.path, ...flags, ...argument].join(" ");
}

function table(rows: [string, string][]): string[] {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`);
}

function topHelp(set: CommandSet): string {
  return [
    "Opportunity Intelligence operator CLI",
    "",
    "Usage: deno task admin <command> [flags]",
    "",
    "Commands:",
    ...table(set.commands.map((c) => [c.path.join(" "), c.summary])),
    "",
    "Every command prints one JSON document on standard output; messages, progress and errors",
    "go to standard error. Exit codes: 0 done, 1 refused or failed, 2 usage error.",
    "",
    "Database: PostgreSQL when DATABASE_URL is set, else the embedded database in DATA_DIR",
    "(default .data). While the server runs on the same DATA_DIR, the CLI uses its socket.",
    "Pending migrations are applied before every command.",
    "",
    'Run "deno task admin <command> --help" for the flags of a command.',
  ].join("\n");
}

function groupHelp(set: CommandSet, group: string): string {
  const members = set.commands.filter((c) => c.path[0] === group && c.path.length > 1);
  return [
    set.groups[group],
    "",
    `Usage: deno task admin ${group} <sub-command> [flags]`,
    "",
    "Sub-commands:",
    ...table(members.map((c) => [c.path.join(" "), c.summary])),
    "",
    `Run "deno task admin ${group} <sub-command> --help" for its flags.`,
  ].join("\n");
}

function commandHelp(command: Command): string {
  const rows: [string, string][] = command.flags.map((f) => [
    f.value ? `--${f.name} ${f.value}` : `--${f.name}`,
    f.required ? `${f.help} (required)` : f.help,
  ]);
  if (command.argument) rows.unshift([command.argument.name, command.argument.help]);
  rows.push(["-h, --help", "Show this help"]);
  return [
    `Usage: deno task admin ${usageLine(command)}`,
    "",
    command.description,
    "",
    command.argument ? "Arguments and flags:" : "Flags:",
    ...table(rows),
  ].join("\n");
}

export type Parsed =
  | { kind: "help"; text: string }
  | { kind: "run"; command: Command; flags: Flags; args: string[] };

const HELP = ["--help", "-h"];

/** Finds the command named by the first words of `args` and parses the rest. */
export function parseCommandLine(set: CommandSet, args: string[]): Parsed {
  const [first, second] = args;
  if (first === undefined) throw new UsageError("Missing command");
  if (HELP.includes(first)) return { kind: "help", text: topHelp(set) };
  if (first === "help") return parseCommandLine(set, [...args.slice(1), "--help"]);
  let command: Command | undefined;
  if (first in set.groups) {
    if (second === undefined) throw new UsageError(`Missing sub-command of "${first}"`, [first]);
    if (HELP.includes(second)) return { kind: "help", text: groupHelp(set, first) };
    command = set.commands.find((c) => c.path[0] === first && c.path[1] === second);
    if (!command) throw new UsageError(`Unknown command "${first} ${second}"`, [first]);
  } else {
    command = set.commands.find((c) => c.path.length === 1 && c.path[0] === first);
    if (!command) throw new UsageError(`Unknown command "${first}"`);
  }
  const rest = args.slice(command.path.length);
  const end = rest.indexOf("--");
  if ((end === -1 ? rest : rest.slice(0, end)).some((a) => HELP.includes(a))) {
    return { kind: "help", text: commandHelp(command) };
  }
  const { flags, positional } = parseFlags(command, rest);
  return { kind: "run", command, flags, args: positional };
}

function parseFlags(command: Command, rest: string[]): { flags: Flags; positional: string[] } {
  const fail = (message: string) => new UsageError(message, command.path);
  const flags: Flags = {};
  const positional: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const token = rest[i];
    if (token === "--") {
      positional.push(...rest.slice(i + 1));
      break;
    }
    if (!token.startsWith("-") || token === "-") {
      positional.push(token);
      continue;
    }
    const match = /^--([^=]+)(?:=(.*))?$/s.exec(token);
    const spec = match && command.flags.find((f) => f.name === match[1]);
    if (!match || !spec) {
      throw fail(
        `Unknown flag "${match ? `--${match[1]}` : token}" for "${command.path.join(" ")}"`,
      );
    }
    const inline = match[2];
    if (spec.name in flags) throw fail(`Flag "--${spec.name}" is given more than once`);
    if (!spec.value) {
      if (inline !== undefined) throw fail(`Flag "--${spec.name}" takes no value`);
      flags[spec.name] = true;
      continue;
    }
    let value = inline;
    if (value === undefined) {
      const next = rest[i + 1];
      if (next === undefined || (next.startsWith("--") && next.length > 2)) {
        throw fail(`Flag "--${spec.name}" needs a value`);
      }
      value = next;
      i++;
    }
    const problem = spec.check?.(value);
    if (problem) throw fail(`Invalid value "${value}" for "--${spec.name}": ${problem}`);
    flags[spec.name] = value;
  }
  for (const spec of command.flags) {
    if (spec.required && !(spec.name in flags)) {
      throw fail(`Missing required flag "--${spec.name}"`);
    }
  }
  const wanted = command.argument ? 1 : 0;
  if (positional.length > wanted) {
    throw fail(`Unexpected argument "${positional[wanted]}" for "${command.path.join(" ")}"`);
  }
  if (positional.length < wanted) throw fail(`Missing argument ${command.argument!.name}`);
  return { flags, positional };
}
