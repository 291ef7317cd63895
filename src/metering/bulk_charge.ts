/**
 * Charges of more than one unit, for the bulk export (src/rest/export.ts): reserveUnits takes an
 * export's whole price in one statement before its first byte, refundUnits gives back what its
 * stream did not send; both on the account's counter and the same day's record of the key, so
 * that usage reports count them as calls of that key.
 */
import type { Sql } from "../db/open.ts";
import type { Caller } from "../accounts/credentials.ts";
import type { Surface } from "./usage.ts";
import { dayOf, periodOf } from "../platform/plans.ts";

/**
 * Adds `units` to the caller's counter of the month of `at` if the month's quota leaves room for
 * all of them, in ONE statement (the upsert of admit, src/metering/admission.ts, with `units` for
 * 1): concurrent reservations are serialised on the counter row and each sees the others' units,
 * so together they never pass the limit, and one that fits is never refused because another is
 * under way. Returns whether it was reserved and the month's used count (after it when it was; as
 * it stands when not, for the refusal's quota headers).
 */
export async function reserveUnits(
  sql: Sql,
  caller: Caller,
  units: number,
  at: Date,
  surface: Surface = "rest",
): Promise<{ reserved: boolean; used: number }> {
  const slot = `${caller.keyId}:${surface}`;
  const limit = caller.usage.limit;
  const period = periodOf(at);
  const [row] = await sql<{ reserved: number | null; used: number | null }[]>`
    with r as (
      insert into usage_counters as u (account_id, period, used, day, today)
      select ${caller.accountId}, ${period}, ${units}::int, ${dayOf(at)}::date,
        jsonb_build_object(${slot}::text, ${units}::int)
      where ${units}::int <= ${limit}::int
      on conflict (account_id, period) do update set used = u.used + excluded.used,
        day = excluded.day,
        today = case when u.day = excluded.day
          then u.today || jsonb_build_object(${slot}::text,
            coalesce((u.today ->> ${slot}::text)::int, 0) + excluded.used)
          else excluded.today end,
        -- The first charge of another day files the last day's counts (sql/0007).
        earlier = case when u.day <> excluded.day
          then u.earlier || jsonb_build_object('day', u.day, 'calls', u.today)
          else u.earlier end
        where u.used + excluded.used <= ${limit}::int
      returning u.used
    )
    select (select used from r) as reserved, (select used from usage_counters
      where account_id = ${caller.accountId} and period = ${period}) as used`;
  if (row.reserved !== null) return { reserved: true, used: row.reserved };
  return { reserved: false, used: row.used ?? 0 };
}

/** Gives back `units` that reserveUnits reserved at `at`; best effort. */
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
