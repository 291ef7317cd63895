/**
 * Charges of more than one unit, for the bulk export (src/rest/export.ts): admit charges the
 * first unit with its usual checks; these add or give back the rest on the same counter and the
 * same day's record of the key, so that usage reports count them as calls of that key.
 */
import type { Sql } from "../db/open.ts";
import type { Caller } from "../accounts/credentials.ts";
import type { Surface } from "./usage.ts";
import { dayOf, periodOf } from "../platform/plans.ts";

/**
 * Adds `units` to the caller's counter, right after admit charged it at `at`, if the month's
 * quota leaves room for all of them; returns the month's used count, or undefined (nothing
 * charged) when it does not.
 */
export async function chargeUnits(
  sql: Sql,
  caller: Caller,
  units: number,
  at: Date,
  surface: Surface = "rest",
): Promise<number | undefined> {
  if (units <= 0) return caller.usage.used;
  const slot = `${caller.keyId}:${surface}`;
  const [row] = await sql<{ used: number }[]>`
    update usage_counters u set used = u.used + ${units},
      today = jsonb_set(u.today, array[${slot}],
        to_jsonb(coalesce((u.today ->> ${slot})::int, 0) + ${units}))
    where u.account_id = ${caller.accountId} and u.period = ${periodOf(at)}
      and u.day = ${dayOf(at)}::date and u.used + ${units} <= ${caller.usage.limit}
    returning u.used`;
  return row?.used;
}

/** Gives back `units` that chargeUnits (or admit) charged at `at`; best effort. */
export async function refundUnits(
  sql: Sql,
  caller: Caller,
  units: number,
  at: Date,
  surface: Surface = "rest",
): Promise<void> {
  if (units <= 0) return;
  const slot = `${caller.keyId}:${surface}`;
  await sql`
    update usage_counters u set used = greatest(0, u.used - ${units}),
      today = case when u.day = ${dayOf(at)}::date then jsonb_set(u.today, array[${slot}],
        to_jsonb(greatest(0, coalesce((u.today ->> ${slot})::int, 0) - ${units})))
        else u.today end
    where u.account_id = ${caller.accountId} and u.period = ${periodOf(at)}`.catch(() => {});
}
