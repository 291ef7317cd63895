/**
 * Fixed-window rate limits kept in PostgreSQL (table web_rate_limits), so that every instance
 * counts against the same window: the account area's mails, OAuth registration and document
 * fetches, and the watches' webhook tests. Here, under both the accounts and the watches, because
 * both use it and neither may import the other.
 */
import type { Sql } from "./open.ts";

/**
 * Counts one hit in `bucket`'s current fixed window, in one atomic statement that stops at
 * `limit`. Returns false when the window is already full.
 */
export async function hitRateLimit(
  sql: Sql,
  options: { bucket: string; limit: number; windowSeconds: number },
): Promise<boolean> {
  const { bucket, limit, windowSeconds } = options;
  const [row]: [{ hits: number }?] = await sql`
    insert into web_rate_limits as r (bucket, window_start, hits)
    values (${bucket},
      to_timestamp(floor(extract(epoch from now()) / ${windowSeconds}::int) * ${windowSeconds}::int), 1)
    on conflict (bucket, window_start) do update set hits = r.hits + 1 where r.hits < ${limit}::int
    returning hits`;
  return row !== undefined;
}
