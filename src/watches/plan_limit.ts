/**
 * Watches beyond the plan's limit: after a downgrade an account may hold more watches than its
 * new plan allows (Business 50 -> Free 1). The newest ones within the limit keep delivering;
 * the older ones are paused by the plan: they record no matches, their pending deliveries are
 * cancelled, and their record says why. An upgrade (or deleting newer watches, or pausing them)
 * resumes them by the same rule, so nothing has to run when a plan changes: the rule is read
 * from the account's plan at every match, claim and read. Watches their owner paused do not
 * count, so the owner chooses which ones stay on by pausing others.
 */
import type { Sql } from "../db/open.ts";
import { type Plan, PLAN_NAMES, WATCH_LIMITS } from "../platform/plans.ts";

/**
 * SQL: true when the watch row `alias` is on but beyond its account's plan limit (at least
 * `limit` newer watches of the account are on). `alias` is a table alias of `watches`.
 */
export function overPlanLimit(sql: Sql, alias: string) {
  const w = (column: string) => sql(`${alias}.${column}`);
  return sql`(not ${w("paused")} and (
    select count(*) from watches newer
    where newer.account_id = ${w("account_id")} and not newer.paused and newer.id > ${w("id")}
  ) >= (
    select case a.plan when 'business' then ${WATCH_LIMITS.business}::int
      when 'pro' then ${WATCH_LIMITS.pro}::int else ${WATCH_LIMITS.free}::int end
    from accounts a where a.id = ${w("account_id")}
  ))`;
}

/** Where a watch stands: delivering, paused by its owner, or paused by the plan's limit. */
export type WatchStatus = "active" | "paused" | "paused_plan_limit";

/** Why a watch paused by the plan delivers nothing, in words for the record and the dashboard. */
function planLimitReason(plan: Plan): string {
  const limit = WATCH_LIMITS[plan];
  return `The ${PLAN_NAMES[plan]} plan keeps ${limit} watch${limit === 1 ? "" : "es"} on and ` +
    `this account holds more: the newest ${limit === 1 ? "one stays" : `${limit} stay`} on, ` +
    "this one is paused. Upgrade, or delete or pause a newer watch, to resume it";
}

/** The status of a watch row read with `over_limit` (overPlanLimit) and its account's plan. */
export function watchStatus(row: {
  paused: boolean;
  webhook_url: string | null;
  email: boolean;
  feed_token_hash: string | null;
  over_limit: boolean;
  plan: Plan;
}): { status: WatchStatus; status_reason: string | null } {
  if (row.paused) {
    const unsubscribed = row.webhook_url === null && !row.email && row.feed_token_hash === null;
    return {
      status: "paused",
      status_reason: unsubscribed
        ? "E-mail was unsubscribed and the watch had no other delivery; turn one on to resume it"
        : "Paused by its owner",
    };
  }
  if (row.over_limit) {
    return { status: "paused_plan_limit", status_reason: planLimitReason(row.plan) };
  }
  return { status: "active", status_reason: null };
}
