import type { Sql } from "../db/open.ts";
import { type Plan, PLAN_LIMITS } from "../platform/plans.ts";

/** An account's position in its monthly quota, after the current call's charge if any. */
export interface UsageState {
  limit: number;
  used: number;
  remaining: number;
  reset_at: string;
}

/** The first day of `now`'s calendar month in UTC, as the `period` key of usage_counters. */
export function periodOf(now: Date): string {
  return `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, "0")}-01`;
}

/** 00:00:00 UTC on the 1st of the month after `now`, when the quota resets. */
export function resetAtOf(now: Date): string {
  const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return next.toISOString().replace(".000Z", "Z");
}

/** Builds the usage state of a plan from a used count. */
export function usageState(plan: Plan, used: number, now: Date): UsageState {
  const limit = PLAN_LIMITS[plan];
  return { limit, used, remaining: Math.max(0, limit - used), reset_at: resetAtOf(now) };
}

/** This month's usage of an account. */
export async function readUsage(
  sql: Sql,
  account: { id: number; plan: Plan },
  now: Date = new Date(),
): Promise<UsageState> {
  const [row] = await sql<{ used: number }[]>`
    select used from usage_counters where account_id = ${account.id} and period = ${periodOf(now)}`;
  return usageState(account.plan, row?.used ?? 0, now);
}

/**
 * Takes one call from the account's monthly quota in one atomic statement: the row is created
 * or incremented only while it is below the limit, so with R calls remaining and any number of
 * concurrent callers exactly R succeed. Returns the count after the charge, or `charged: false`
 * with the current count when the quota is used up.
 */
export async function chargeQuota(
  sql: Sql,
  account: { id: number; plan: Plan },
  now: Date = new Date(),
): Promise<{ charged: boolean; state: UsageState }> {
  const limit = PLAN_LIMITS[account.plan];
  const period = periodOf(now);
  const [row] = await sql<{ used: number }[]>`
    insert into usage_counters as u (account_id, period, used)
    values (${account.id}, ${period}, 1)
    on conflict (account_id, period) do update set used = u.used + 1 where u.used < ${limit}
    returning used`;
  if (row) return { charged: true, state: usageState(account.plan, row.used, now) };
  return { charged: false, state: await readUsage(sql, account, now) };
}

/** Takes back one charged call of the account's current month (never below zero). */
export async function refundQuota(
  sql: Sql,
  accountId: number,
  now: Date = new Date(),
): Promise<void> {
  await sql`
    update usage_counters set used = used - 1
    where account_id = ${accountId} and period = ${periodOf(now)} and used > 0`;
}
