/**
 * The operator CLI: `deno task admin <command>`. Every command prints exactly one JSON document on
 * standard output; messages, progress and errors go to standard error. Exit codes: 0 done,
 * 1 refused or failed, 2 usage error.
 */
import { readConfig } from "../platform/config.ts";
import { migrate } from "../db/migrate.ts";
import { type Database, openDatabase, type Sql } from "../db/open.ts";
import { DEFAULT_OPPORTUNITIES, seedDemo } from "../ingest/demo.ts";
import { importFile } from "../ingest/import.ts";
import {
  type Account,
  AdminError,
  createAccount,
  findAccountByEmail,
  isEmail,
  isPlan,
  type Plan,
  setPlan,
  verifyAccount,
} from "../accounts/accounts.ts";
import { createApiKey, listApiKeys, revokeApiKey } from "../accounts/api_keys.ts";
import { readUsage } from "../accounts/usage.ts";
import { PLANS } from "../catalog/schemas.ts";

/** Where the CLI reads its environment and writes its output; tests pass their own. */
export interface AdminIo {
  env?: Record<string, string | undefined>;
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
  /** An open database to use instead of opening one from the configuration (tests). */
  database?: Database;
}

type Flags = Record<string, string | true>;

interface FlagSpec {
  name: string;
  /** The value's placeholder in help, e.g. "E"; absent for a flag that takes no value. */
  value?: string;
  required?: boolean;
  help: string;
  /** Returns what is wrong with a value, or undefined when it is good. */
  check?: (value: string) => string | undefined;
}

interface CommandContext {
  sql: Sql;
  flags: Flags;
  args: string[];
  applied: number[];
  log: (text: string) => void;
}

interface Command {
  path: string[];
  summary: string;
  description: string;
  flags: FlagSpec[];
  /** The one positional argument the command takes, if any. */
  argument?: { name: string; help: string };
  run(ctx: CommandContext): Promise<unknown>;
}

/** A mistake in the command line: exit code 2, with a pointer to the help. */
class UsageError extends Error {
  constructor(message: string, readonly helpPath: string[] = []) {
    super(message);
  }
}

const MAX_ID = 2_147_483_647;

function positiveInteger(max: number): (value: string) => string | undefined {
  return (value) =>
    /^\d+$/.test(value) && Number(value) >= 1 && Number(value) <= max
      ? undefined
      : `must be a whole number from 1 to ${max}`;
}

const emailFlag: FlagSpec = {
  name: "email",
  value: "E",
  required: true,
  help: "The account's e-mail address, compared case-insensitively",
  check: (v) => isEmail(v) ? undefined : "must be an e-mail address",
};

function planFlag(required: boolean): FlagSpec {
  return {
    name: "plan",
    value: PLANS.join("|"),
    required,
    help: required
      ? `The new plan: ${PLANS.join(", ")}`
      : `The plan: ${PLANS.join(", ")} (default free)`,
    check: (v) => isPlan(v) ? undefined : `must be one of ${PLANS.join(", ")}`,
  };
}

function accountView(account: Account) {
  return {
    id: account.id,
    email: account.email,
    plan: account.plan,
    email_verified: account.email_verified_at !== null,
  };
}

function text(flags: Flags, name: string): string | undefined {
  const value = flags[name];
  return typeof value === "string" ? value : undefined;
}

const ACCOUNT_SHAPE = "{id, email, plan, email_verified}";

const COMMANDS: Command[] = [
  {
    path: ["migrate"],
    summary: "Apply the pending database migrations",
    description:
      "Applies every migration of sql/ not yet applied, in order, in one transaction.\n" +
      "Prints {applied: [versions applied by this run]}.",
    flags: [],
    run: ({ applied }) => Promise.resolve({ applied }),
  },
  {
    path: ["account", "create"],
    summary: "Create an account",
    description: `Creates an account; refused when the e-mail is taken. Prints ${ACCOUNT_SHAPE}.`,
    flags: [
      emailFlag,
      planFlag(false),
      { name: "verified", help: "Mark the e-mail as verified now" },
    ],
    run: async ({ sql, flags }) =>
      accountView(
        await createAccount(sql, {
          email: text(flags, "email")!,
          plan: (text(flags, "plan") ?? "free") as Plan,
          verified: flags.verified === true,
        }),
      ),
  },
  {
    path: ["account", "verify"],
    summary: "Mark an account's e-mail as verified",
    description:
      "Marks the e-mail as verified (keys can be created only for verified accounts).\n" +
      `Prints ${ACCOUNT_SHAPE}.`,
    flags: [emailFlag],
    run: async ({ sql, flags }) => accountView(await verifyAccount(sql, text(flags, "email")!)),
  },
  {
    path: ["account", "plan"],
    summary: "Change an account's plan",
    description: "Changes the plan; the new quota applies from the next call on.\n" +
      `Prints ${ACCOUNT_SHAPE}.`,
    flags: [emailFlag, planFlag(true)],
    run: async ({ sql, flags }) =>
      accountView(await setPlan(sql, text(flags, "email")!, text(flags, "plan") as Plan)),
  },
  {
    path: ["key", "create"],
    summary: "Create an API key (the raw key is shown once)",
    description:
      "Creates an API key for a verified account holding fewer than 5 keys that are not\n" +
      "revoked. Only the key's SHA-256 digest is stored: the raw key is shown here once.\n" +
      "Prints {id, key, prefix, name, created_at}.",
    flags: [emailFlag, {
      name: "name",
      value: "N",
      help: 'A name to tell the key apart (default "default")',
      check: (v) => v.length <= 100 ? undefined : "must have at most 100 characters",
    }],
    run: async ({ sql, flags, log }) => {
      const created = await createApiKey(sql, {
        email: text(flags, "email")!,
        name: text(flags, "name"),
      });
      log("Store this key now: it is shown only once and cannot be recovered.");
      return created;
    },
  },
  {
    path: ["key", "list"],
    summary: "List an account's API keys (never the raw keys)",
    description: "Lists every key of the account, revoked ones included, oldest first.\n" +
      "Prints {items: [{id, prefix, name, created_at, last_used_at, revoked_at, revoked_by}]}.",
    flags: [emailFlag],
    run: async ({ sql, flags }) => ({ items: await listApiKeys(sql, text(flags, "email")!) }),
  },
  {
    path: ["key", "revoke"],
    summary: "Revoke an API key",
    description:
      "Revokes a key for good; refused when the key is unknown or already revoked. Calls with\n" +
      "it then answer 403 key_revoked. Prints the revoked key as `key list` shows it.",
    flags: [
      {
        name: "id",
        value: "ID",
        required: true,
        help: "The key's id (from `key list`)",
        check: positiveInteger(MAX_ID),
      },
      {
        name: "by",
        value: "owner|admin",
        help: "Who revokes it: owner or admin (default admin)",
        check: (v) => v === "owner" || v === "admin" ? undefined : "must be owner or admin",
      },
    ],
    run: async ({ sql, flags }) =>
      await revokeApiKey(sql, {
        id: Number(text(flags, "id")),
        by: (text(flags, "by") ?? "admin") as "owner" | "admin",
      }),
  },
  {
    path: ["usage"],
    summary: "Show an account's quota use this month",
    description: "Shows the calls used this calendar month (UTC) against the plan's limit.\n" +
      "Prints {used, limit, remaining, reset_at}.",
    flags: [emailFlag],
    run: async ({ sql, flags }) => {
      const email = text(flags, "email")!;
      const account = await findAccountByEmail(sql, email);
      if (!account) throw new AdminError(`Cannot find account "${email.trim()}"`);
      const usage = await readUsage(sql, account);
      return {
        used: usage.used,
        limit: usage.limit,
        remaining: usage.remaining,
        reset_at: usage.reset_at,
      };
    },
  },
  {
    path: ["import"],
    summary: "Import a JSON Lines file (- for standard input)",
    description:
      "Imports categories, themes, opportunities and blog posts from JSON Lines, one record a\n" +
      "line with a `type`. Upserts by slug or external_id; the whole file is one transaction, so\n" +
      "a bad line writes nothing and is reported with its line number. Prints the summary.",
    flags: [],
    argument: { name: "FILE", help: "The .jsonl file to import, or - for standard input" },
    run: async ({ sql, args, log }) => {
      const path = args[0];
      if (path !== "-") {
        try {
          await Deno.stat(path);
        } catch (error) {
          throw new AdminError(`Cannot read file "${path}": ${(error as Error).message}`);
        }
      }
      return await importFile(sql, path, {
        onProgress: (lines) => log(`Imported ${lines.toLocaleString("en-US")} lines`),
      });
    },
  },
  {
    path: ["seed-demo"],
    summary: "Fill the database with deterministic demo data",
    description: "Writes the demo categories, themes, opportunities, evidence quotes and blog\n" +
      "posts, with progress on standard error. Prints the summary.",
    flags: [{
      name: "opportunities",
      value: "N",
      help:
        `How many opportunities to generate (default ${DEFAULT_OPPORTUNITIES}; 1000000 for benchmarks)`,
      check: positiveInteger(Number.MAX_SAFE_INTEGER),
    }],
    run: async ({ sql, flags, log }) => {
      const wanted = text(flags, "opportunities");
      let lastPercent = -1;
      return await seedDemo(sql, {
        opportunities: wanted === undefined ? undefined : Number(wanted),
        onProgress: (done, total) => {
          // The generator may report often; a line per percent is enough for a person.
          const percent = total > 0 ? Math.floor((done * 100) / total) : 100;
          if (percent === lastPercent && done !== total) return;
          lastPercent = percent;
          log(
            `Seeded ${done.toLocaleString("en-US")} of ${
              total.toLocaleString("en-US")
            } (${percent}%)`,
          );
        },
      });
    },
  },
];

const GROUPS: Record<string, string> = {
  account: "Create accounts, verify their e-mail, change their plan",
  key: "Create, list and revoke API keys",
};

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

function topHelp(): string {
  return [
    "Opportunity Intelligence operator CLI",
    "",
    "Usage: deno task admin <command> [flags]",
    "",
    "Commands:",
    ...table(COMMANDS.map((c) => [c.path.join(" "), c.summary])),
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

function groupHelp(group: string): string {
  const members = COMMANDS.filter((c) => c.path[0] === group && c.path.length > 1);
  return [
    GROUPS[group],
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

type Parsed =
  | { kind: "help"; text: string }
  | { kind: "run"; command: Command; flags: Flags; args: string[] };

const HELP = ["--help", "-h"];

/** Finds the command named by the first words of `args` and parses the rest. */
function parseCommandLine(args: string[]): Parsed {
  const [first, second] = args;
  if (first === undefined) throw new UsageError("Missing command");
  if (HELP.includes(first)) return { kind: "help", text: topHelp() };
  if (first === "help") return parseCommandLine([...args.slice(1), "--help"]);
  let command: Command | undefined;
  if (first in GROUPS) {
    if (second === undefined) throw new UsageError(`Missing sub-command of "${first}"`, [first]);
    if (HELP.includes(second)) return { kind: "help", text: groupHelp(first) };
    command = COMMANDS.find((c) => c.path[0] === first && c.path[1] === second);
    if (!command) throw new UsageError(`Unknown command "${first} ${second}"`, [first]);
  } else {
    command = COMMANDS.find((c) => c.path.length === 1 && c.path[0] === first);
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

/** Runs one CLI command and returns its exit code: 0 done, 1 refused or failed, 2 usage error. */
export async function runAdmin(args: string[], io: AdminIo = {}): Promise<number> {
  const out = io.stdout ?? ((s: string) => console.log(s));
  const err = io.stderr ?? ((s: string) => console.error(s));
  let parsed: Parsed;
  try {
    parsed = parseCommandLine(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    err(`Error: ${error.message}`);
    err(`Run "deno task admin ${[...error.helpPath, "--help"].join(" ")}" for usage`);
    return 2;
  }
  if (parsed.kind === "help") {
    out(parsed.text);
    return 0;
  }
  let database = io.database;
  let owned = false;
  try {
    if (!database) {
      database = await openDatabase(readConfig(io.env ?? Deno.env.toObject()), {
        joinRunning: true,
        max: 4,
      });
      owned = true;
      if (database.shared) err("Using the embedded database of the running server");
    }
    const applied = await migrate(database.sql);
    if (applied.length > 0 && parsed.command.path[0] !== "migrate") {
      err(`Applied migrations ${applied.join(", ")}`);
    }
    const result = await parsed.command.run({
      sql: database.sql,
      flags: parsed.flags,
      args: parsed.args,
      applied,
      log: err,
    });
    out(JSON.stringify(result, null, 2));
    return 0;
  } catch (error) {
    // Refusals (AdminError, ImportError "Line N: reason") and failures alike are one line for
    // the operator; nothing reaches standard output, so a script never parses half a result.
    err(`Error: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    if (owned) await database?.close();
  }
}

if (import.meta.main) Deno.exit(await runAdmin(Deno.args));
