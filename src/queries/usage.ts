import type { Sql } from "../db/open.ts";
import { PLAN_LIMITS } from "../schemas.ts";

type Plan = keyof typeof PLAN_LIMITS;

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
