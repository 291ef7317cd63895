/**
 * This month's usage of an account, and the refund of a charged call from its counter and its
 * usage record (the charge itself is in admission.ts's statement).
 */
import type { Sql } from "../db/open.ts";
import { dayOf, periodOf, type Plan, type UsageState, usageState } from "../platform/plans.ts";

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

/** Whose call was charged: the account, the key, and the surface. */
export interface Charge {
  accountId: number;
  keyId: number;
  surface: Surface;
}

/**
 * Takes back one charged call of the month and day of `chargedAt` (never below zero), from the
 * account's counter and from the call's usage record together: in the counter row's `today` or
 * `earlier` (sql/0007), or, for a call recorded before that, in usage_daily. Returns the month's
 * used count after the refund, or undefined when there was nothing to take back.
 */
export async function refundQuota(
  sql: Sql,
  charge: Charge,
  chargedAt: Date = new Date(),
): Promise<number | undefined> {
  const slot = `${charge.keyId}:${charge.surface}`;
  const day = dayOf(chargedAt);
  const [row] = await sql<{ used: number }[]>`
    with old as (
      -- The row as it stands, locked: where the call's record is.
      select account_id, period,
        day = ${day}::date and coalesce((today ->> ${slot})::int, 0) > 0 as in_today,
        (select (f.i - 1)::text from jsonb_array_elements(earlier) with ordinality f (v, i)
          where f.v ->> 'day' = ${day} and coalesce((f.v -> 'calls' ->> ${slot})::int, 0) > 0
          limit 1) as filed
      from usage_counters
      where account_id = ${charge.accountId} and period = ${periodOf(chargedAt)}
      for update
    ),
    refunded as (
      update usage_counters u set used = u.used - 1,
        today = case when old.in_today
          then jsonb_set(u.today, array[${slot}], to_jsonb((u.today ->> ${slot})::int - 1))
          else u.today end,
        earlier = case when not old.in_today and old.filed is not null
          then jsonb_set(u.earlier, array[old.filed, 'calls', ${slot}],
            to_jsonb((u.earlier #>> array[old.filed, 'calls', ${slot}])::int - 1))
          else u.earlier end
      from old
      where u.account_id = old.account_id and u.period = old.period and u.used > 0
      returning u.used, old.in_today or old.filed is not null as on_row
    ),
    -- A data-modifying WITH runs whether or not the final select reads it.
    attributed as (
      update usage_daily set calls = calls - 1
      where account_id = ${charge.accountId} and day = ${day}
        and key_id = ${charge.keyId} and surface = ${charge.surface} and calls > 0
        and exists (select 1 from refunded where not on_row)
    )
    select used from refunded`;
  return row?.used;
}
