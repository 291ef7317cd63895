import type { Sql } from "../db/open.ts";
import { type Plan, PLAN_LIMITS, type UsageState } from "../platform/plans.ts";

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

/** The surface a call came through, as usage records name it. */
export type Surface = "rest" | "mcp";

/** Whose call is charged: the account (and its plan), the key, and the surface. */
export interface Charge {
  accountId: number;
  plan: Plan;
  keyId: number;
  surface: Surface;
}

/** The UTC day of `now` (YYYY-MM-DD), the `day` key of usage_daily. */
export function dayOf(now: Date): string {
  return now.toISOString().slice(0, 10);
}

/**
 * Takes one call from the account's monthly quota in one atomic statement: the row is created
 * or incremented only while it is below the limit, so with R calls remaining and any number of
 * concurrent callers exactly R succeed. The same statement counts the call for its key, surface
 * and UTC day in usage_daily. Returns the count after the charge, or `charged: false` with the
 * current count when the quota is used up.
 */
export async function chargeQuota(
  sql: Sql,
  charge: Charge,
  now: Date = new Date(),
): Promise<{ charged: boolean; state: UsageState }> {
  const limit = PLAN_LIMITS[charge.plan];
  const period = periodOf(now);
  const [row] = await sql<{ used: number }[]>`
    with charged as (
      insert into usage_counters as u (account_id, period, used)
      values (${charge.accountId}, ${period}, 1)
      on conflict (account_id, period) do update set used = u.used + 1 where u.used < ${limit}
      returning used
    ),
    attributed as (
      insert into usage_daily as d (account_id, key_id, surface, day, calls)
      select ${charge.accountId}, ${charge.keyId}, ${charge.surface}, ${dayOf(now)}, 1
      from charged
      on conflict (account_id, day, key_id, surface) do update set calls = d.calls + 1
    )
    select used from charged`;
  if (row) return { charged: true, state: usageState(charge.plan, row.used, now) };
  const account = { id: charge.accountId, plan: charge.plan };
  return { charged: false, state: await readUsage(sql, account, now) };
}

/**
 * Takes back one charged call of the month and day of `chargedAt` (never below zero), from the
 * account's counter and from the key's usage record together. Returns the month's used count
 * after the refund, or undefined when there was nothing to take back.
 */
export async function refundQuota(
  sql: Sql,
  charge: Omit<Charge, "plan">,
  chargedAt: Date = new Date(),
): Promise<number | undefined> {
  const [row] = await sql<{ used: number }[]>`
    with refunded as (
      update usage_counters set used = used - 1
      where account_id = ${charge.accountId} and period = ${periodOf(chargedAt)} and used > 0
      returning used
    ),
    -- A data-modifying WITH runs whether or not the final select reads it.
    attributed as (
      update usage_daily set calls = calls - 1
      where account_id = ${charge.accountId} and day = ${dayOf(chargedAt)}
        and key_id = ${charge.keyId} and surface = ${charge.surface} and calls > 0
        and exists (select 1 from refunded)
    )
    select used from refunded`;
  return row?.used;
}
