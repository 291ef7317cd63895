/**
 * The usage e-mails' bookkeeping: which accounts passed 80% or 100% of this month's quota and
 * have not been told yet, claimed in one statement so that several instances send each notice
 * once, and the account's choice to receive them.
 */
import type { Sql } from "../db/open.ts";
import { type Plan, PLAN_LIMITS } from "../platform/plans.ts";
import { periodOf, resetAtOf } from "../platform/plans.ts";

/** The shares of the quota, in percent, at which an account is told. */
export const NOTICE_THRESHOLDS = [80, 100] as const;

/** One account to tell: its highest threshold passed this month and not yet told. */
export interface UsageNotice {
  accountId: number;
  email: string;
  plan: Plan;
  used: number;
  limit: number;
  threshold: number;
  period: string;
  resetAt: string;
}

/**
 * Claims every notice now due (threshold passed, not yet sent this month, e-mails on, address
 * verified) by recording it, and returns one notice per account: the highest threshold passed,
 * so an account that jumps from 70% to 100% between two runs gets one mail, not two.
 */
export async function claimUsageNotices(sql: Sql, now: Date = new Date()): Promise<UsageNotice[]> {
  const period = periodOf(now);
  const rows = await sql<
    { account_id: number; email: string; plan: Plan; used: number; threshold: number }[]
  >`
    with due as (
      select a.id as account_id, a.email, a.plan, u.used, t.threshold
      from usage_counters u
      join accounts a on a.id = u.account_id
      cross join (values (80), (100)) as t (threshold)
      where u.period = ${period} and a.usage_emails and a.email_verified_at is not null
        and u.used * 100 >= t.threshold * (case a.plan when 'free' then ${PLAN_LIMITS.free}::int
          when 'pro' then ${PLAN_LIMITS.pro}::int else ${PLAN_LIMITS.business}::int end)
    ),
    claimed as (
      insert into usage_notices (account_id, period, threshold)
      select account_id, ${period}, threshold from due
      on conflict do nothing
      returning account_id, threshold
    )
    select d.* from due d join claimed c using (account_id, threshold)
    order by d.account_id, d.threshold desc`;
  const notices: UsageNotice[] = [];
  for (const row of rows) {
    if (notices.at(-1)?.accountId === row.account_id) continue;
    notices.push({
      accountId: row.account_id,
      email: row.email,
      plan: row.plan,
      used: row.used,
      limit: PLAN_LIMITS[row.plan],
      threshold: row.threshold,
      period,
      resetAt: resetAtOf(now),
    });
  }
  return notices;
}

/** Forgets a claimed notice whose mail could not be sent, so that the next run tries again. */
export async function releaseUsageNotice(sql: Sql, notice: UsageNotice): Promise<void> {
  await sql`
    delete from usage_notices
    where account_id = ${notice.accountId} and period = ${notice.period}
      and threshold = ${notice.threshold}`;
}

/** Whether the account receives the usage e-mails. */
export async function usageEmailsOn(sql: Sql, accountId: number): Promise<boolean> {
  const [row] = await sql<{ on: boolean }[]>`
    select usage_emails as on from accounts where id = ${accountId}`;
  return row?.on ?? false;
}

/** Turns the account's usage e-mails on or off. */
export async function setUsageEmails(sql: Sql, accountId: number, on: boolean): Promise<void> {
  await sql`update accounts set usage_emails = ${on} where id = ${accountId}`;
}
