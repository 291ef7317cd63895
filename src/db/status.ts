/**
 * What the service asks the database about itself: whether it answers (`/healthz`), and its
 * connections by state (`/metrics`).
 */
import type { Sql } from "./open.ts";

/** True when the database answers a trivial query. */
export async function isDatabaseUp(sql: Sql): Promise<boolean> {
  try {
    await sql`select 1`;
    return true;
  } catch {
    return false;
  }
}

/**
 * Every connection to this database (all instances, and a pooler's server connections behind
 * a pooler), less the one asking, counted by state; undefined when the database does not answer.
 * postgres.js keeps its pool counts private, so the server's own view is used.
 */
export async function connectionsByState(
  sql: Sql,
): Promise<{ state: string; n: number }[] | undefined> {
  try {
    return await sql<{ state: string; n: number }[]>`
      select coalesce(state, 'other') as state, count(*)::int as n from pg_stat_activity
      where datname = current_database() and pid <> pg_backend_pid()
        and backend_type = 'client backend'
      group by 1`;
  } catch {
    return undefined;
  }
}
