/**
 * The operator CLI run in-process (runAdmin) for tests: its exit code and what it printed, on a
 * database the test owns, or on none (a database nobody listens on: a command that should not
 * touch the database fails loudly if it tries to).
 */
import assert from "node:assert/strict";
import { runAdmin } from "../../src/cli/admin.ts";
import type { Database, Sql } from "../../src/db/open.ts";

/** One run of the CLI. */
export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

// A database nobody listens on: a command that should not touch the database fails loudly if
// it tries to.
export const NO_DATABASE = { DATABASE_URL: "postgres://nobody@127.0.0.1:1/none" };

/** Runs `admin ARGS` on `database` (none: NO_DATABASE). */
export async function admin(database: Database | undefined, ...args: string[]): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runAdmin(args, {
    database,
    env: NO_DATABASE,
    stdout: (s) => out.push(s),
    stderr: (s) => err.push(s),
  });
  return { code, stdout: out.join("\n"), stderr: err.join("\n") };
}

/** The one JSON document of a successful run. */
export function json(run: Run): Record<string, unknown> {
  assert.equal(run.code, 0, `exit code 0 expected; stderr: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

/** A refusal: exit 1, a message on stderr, nothing on stdout. */
export function refused(run: Run, message: RegExp): void {
  assert.equal(run.code, 1, `exit code 1 expected; stderr: ${run.stderr}`);
  assert.equal(run.stdout, "");
  assert.match(run.stderr, message);
}

/** Rows in `table`. */
export async function count(
  sql: Sql,
  table: "accounts" | "api_keys" | "categories",
): Promise<number> {
  const [{ n }] = await sql<{ n: number }[]>`select count(*)::int as n from ${sql(table)}`;
  return n;
}
