/**
 * The SQL both admission statements share (admission.ts alone, admission_group.ts in groups): a
 * plan's rank and monthly limit, and the update of an account's counter row by a charge.
 */
import type postgres from "postgres";
import type { Sql } from "../db/open.ts";
import { PLAN_LIMITS, PLAN_RANK } from "../platform/plans.ts";

/** PLAN_RANK of a plan column, in SQL. */
export function planRank(sql: Sql, plan: postgres.Fragment): postgres.Fragment {
  return sql`(case ${plan} when 'free' then ${PLAN_RANK.free}::int
    when 'pro' then ${PLAN_RANK.pro}::int else ${PLAN_RANK.business}::int end)`;
}

/** PLAN_LIMITS of a plan column, in SQL. */
export function planLimit(sql: Sql, plan: postgres.Fragment): postgres.Fragment {
  return sql`(case ${plan} when 'free' then ${PLAN_LIMITS.free}::int
    when 'pro' then ${PLAN_LIMITS.pro}::int else ${PLAN_LIMITS.business}::int end)`;
}

/**
 * The `set` of `insert into usage_counters as u ... on conflict (account_id, period) do update`:
 * the inserted row's `used` calls added, and its `today` (calls per key and surface) added to the
 * day's counts; the first charge of another day files the last day's counts (sql/0007).
 */
export function chargeUpdate(sql: Sql): postgres.Fragment {
  return sql`used = u.used + excluded.used, day = excluded.day,
    today = case when u.day = excluded.day
      -- A repeat (admission.ts) adds no call: its today is empty, which aggregates to null.
      then u.today || coalesce((select jsonb_object_agg(e.key,
        coalesce((u.today ->> e.key)::int, 0) + e.value::int)
        from jsonb_each_text(excluded.today) e), '{}')
      else excluded.today end,
    earlier = case when u.day <> excluded.day
      then u.earlier || jsonb_build_object('day', u.day, 'calls', u.today)
      else u.earlier end`;
}
