/**
 * An account's usage of a month, from the usage records that the charge writes in its own
 * statement (the view usage_records: usage_daily and the counter rows' current day): totals,
 * per key, per UTC day and per surface, and the repeats answered free. Reading it is never
 * charged.
 */
import type { Sql } from "../db/open.ts";
import { InvalidParameterError } from "../platform/errors.ts";
import type { Plan } from "../platform/plans.ts";
import { periodOf, resetAtOf, usageState } from "../platform/plans.ts";
import type { UsageReport } from "./usage_schema.ts";

/** How many months before the current one a report can go back. */
export const USAGE_MONTHS_BACK = 12;

/** The first instant of the month `month` (YYYY-MM) names; 422 when it is out of range. */
function monthStart(month: string | undefined, now: Date): Date {
  const current = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  if (month === undefined) return current;
  const [year, mon] = month.split("-").map(Number);
  const start = new Date(Date.UTC(year, mon - 1, 1));
  const back = (current.getUTCFullYear() - year) * 12 + current.getUTCMonth() - (mon - 1);
  if (back < 0 || back > USAGE_MONTHS_BACK) {
    throw new InvalidParameterError([{
      param: "month",
      message: `must be this month or one of the ${USAGE_MONTHS_BACK} before it`,
    }]);
  }
  return start;
}

/** The report of one month (this month by default) of an account on its current plan. */
export async function readUsageReport(
  sql: Sql,
  account: { id: number; plan: Plan },
  options: { month?: string; now?: Date } = {},
): Promise<UsageReport> {
  const now = options.now ?? new Date();
  const start = monthStart(options.month, now);
  const end = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
  const period = periodOf(start);
  const [counter, keys, days] = await Promise.all([
    sql<{ used: number; repeats: number }[]>`
      select used, repeats from usage_counters
      where account_id = ${account.id} and period = ${period}`,
    // Every key that could be used in the month, and any key that was.
    sql<{ prefix: string; name: string; calls: number; revoked: boolean }[]>`
      select prefix, name, calls, revoked from (
        select k.prefix, k.name, coalesce(sum(d.calls), 0)::int as calls,
          k.revoked_at is not null as revoked, 0 as kind, k.id
        from api_keys k
        left join usage_records d on d.account_id = k.account_id and d.key_id = k.id
          and d.day >= ${period} and d.day < ${periodOf(end)}
        where k.account_id = ${account.id} and (d.calls > 0
          or (k.created_at < ${end} and (k.revoked_at is null or k.revoked_at >= ${start})))
        group by k.id
        union all
        -- Apps connected through OAuth: their calls are recorded under the grant's negative id
        -- (src/metering/admission.ts), shown under the app's name; a grant that never got a token
        -- is left out.
        select 'oauth:' || g.id, g.client_name, coalesce(sum(d.calls), 0)::int,
          g.revoked_at is not null, 1, g.id
        from oauth_grants g
        left join usage_records d on d.account_id = g.account_id and d.key_id = -g.id
          and d.day >= ${period} and d.day < ${periodOf(end)}
        where g.account_id = ${account.id} and (d.calls > 0
          or (g.last_used_at is not null and g.created_at < ${end}
            and (g.revoked_at is null or g.revoked_at >= ${start})))
        group by g.id
      ) entries
      order by calls desc, kind, id`,
    sql<{ day: string; surface: "rest" | "mcp"; calls: number }[]>`
      select to_char(day, 'YYYY-MM-DD') as day, surface, sum(calls)::int as calls
      from usage_records
      where account_id = ${account.id} and day >= ${period} and day < ${periodOf(end)}
      group by day, surface`,
  ]);
  const perDay = new Map<string, number>();
  const bySurface = { rest: 0, mcp: 0 };
  for (const row of days) {
    perDay.set(row.day, (perDay.get(row.day) ?? 0) + row.calls);
    bySurface[row.surface] += row.calls;
  }
  // The days of the month up to today: a past month in full, this month so far.
  const last = end.getTime() <= now.getTime() ? new Date(end.getTime() - 86_400_000) : now;
  const byDay = [];
  for (let d = new Date(start); d <= last; d = new Date(d.getTime() + 86_400_000)) {
    const date = d.toISOString().slice(0, 10);
    byDay.push({ date, calls: perDay.get(date) ?? 0 });
  }
  const state = usageState(account.plan, counter[0]?.used ?? 0, start);
  return {
    month: period.slice(0, 7),
    plan: account.plan,
    used: state.used,
    limit: state.limit,
    remaining: state.remaining,
    repeats: counter[0]?.repeats ?? 0,
    reset_at: resetAtOf(start),
    by_key: keys,
    by_day: byDay,
    by_surface: bySurface,
  };
}
