/**
 * The operator CLI: `deno task admin <command>`. Every command prints exactly one JSON document on
 * standard output; messages, progress and errors go to standard error. Exit codes: 0 done,
 * 1 refused or failed, 2 usage error. The commands live beside this file, one module per group.
 */
import { readConfig } from "../platform/config.ts";
import { migrate } from "../db/migrate.ts";
import { type Database, openDatabase } from "../db/open.ts";
import { type CommandSet, parseCommandLine, type Parsed, UsageError } from "./args.ts";
import { ACCOUNT_COMMANDS, ACCOUNT_GROUPS } from "./account_commands.ts";
import { CONTENT_COMMANDS, MIGRATE_COMMAND } from "./content_commands.ts";
import { WATCH_COMMANDS } from "./watch_commands.ts";
import { OAUTH_COMMANDS, OAUTH_GROUPS } from "./oauth_commands.ts";
import { BILLING_COMMANDS, BILLING_GROUPS } from "./billing_commands.ts";

/** Where the CLI reads its environment and writes its output; tests pass their own. */
export interface AdminIo {
  env?: Record<string, string | undefined>;
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
  /** An open database to use instead of opening one from the configuration (tests). */
  database?: Database;
}

const CLI: CommandSet = {
  commands: [
    MIGRATE_COMMAND,
    ...ACCOUNT_COMMANDS,
    ...CONTENT_COMMANDS,
    ...WATCH_COMMANDS,
    ...OAUTH_COMMANDS,
    ...BILLING_COMMANDS,
  ],
  groups: { ...ACCOUNT_GROUPS, ...OAUTH_GROUPS, ...BILLING_GROUPS },
};

/** Runs one CLI command and returns its exit code: 0 done, 1 refused or failed, 2 usage error. */
export async function runAdmin(args: string[], io: AdminIo = {}): Promise<number> {
  const out = io.stdout ?? ((s: string) => console.log(s));
  const err = io.stderr ?? ((s: string) => console.error(s));
  let parsed: Parsed;
  try {
    parsed = parseCommandLine(CLI, args);
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
      env: io.env ?? Deno.env.toObject(),
    });
    out(JSON.stringify(result, null, 2));
    return 0;
  } catch (error) {
    // Refusals (AccountError, ImportError "Line N: reason") and failures alike are one line for
    // the operator; nothing reaches standard output, so a script never parses half a result.
    err(`Error: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    if (owned) await database?.close();
  }
}

if (import.meta.main) Deno.exit(await runAdmin(Deno.args));
