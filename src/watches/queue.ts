/**
 * The delivery queue in PostgreSQL (watch_jobs). Written here rather than taken from pg-boss or
 * graphile-worker: both need the `pg` driver (this service speaks postgres.js) and neither runs
 * on the embedded engine. Jobs are claimed with FOR UPDATE SKIP LOCKED in one statement and
 * leased until `locked_until`, so several instances share the work and deliver each job once
 * between them, and a job whose worker died mid-delivery is claimed again after its lease
 * (receivers deduplicate by webhook-id). Every time comes from the caller's clock.
 *
 * Retries: exponential backoff with jitter, 10 s x 3^(n-1) capped at 24 h, each +-20%, for
 * 12 attempts (about 3 days); a job is dead after its last attempt, or at once after an answer
 * a retry cannot change. A webhook failing for 3 days is switched off and its owner told.
 */
import type { Sql } from "../db/open.ts";
import { overPlanLimit } from "./plan_limit.ts";

/** Attempts of a job at most (the first and 11 retries, about 3 days). */
export const MAX_ATTEMPTS = 12;
/** A webhook that has failed this long is switched off. */
export const DISABLE_AFTER_MS = 3 * 24 * 3600 * 1000;
/** How long a claimed job stays with its worker before another may take it. */
export const LEASE_MS = 60_000;

const BASE_DELAY_MS = 10_000;
const MAX_DELAY_MS = 24 * 3600 * 1000;

/** The wait before retry `attempt` + 1, after `attempt` failed attempts; `random` in [0, 1). */
export function backoffMs(attempt: number, random: number): number {
  const base = Math.min(BASE_DELAY_MS * 3 ** (attempt - 1), MAX_DELAY_MS);
  return Math.round(base * (0.8 + 0.4 * random));
}

/** A claimed job with what delivering it needs. */
export interface Job {
  id: string;
  watchId: number;
  kind: "webhook" | "email" | "disabled_notice";
  opportunityIds: number[];
  /** The theme status changes of a theme watch's job (src/watches/theme_watches.ts), or empty. */
  changeIds: string[];
  /** The event body as first sent, or null before the first attempt. */
  payload: string | null;
  /** This attempt's number (1 for the first). */
  attempt: number;
  watchName: string;
  webhookUrl: string | null;
  webhookSecret: string | null;
  emailToken: string;
  accountEmail: string;
  emailOn: boolean;
  /** Paused by its owner or beyond its plan's limit (plan_limit.ts). */
  paused: boolean;
  /** The webhook was switched off, or the plan no longer has webhooks. */
  webhookOff: boolean;
}

interface JobRow {
  id: string;
  watch_id: number;
  kind: Job["kind"];
  opportunity_ids: number[];
  change_ids: string[];
  payload: string | null;
  attempts: number;
  name: string;
  webhook_url: string | null;
  webhook_secret: string | null;
  email_token: string;
  account_email: string;
  email: boolean;
  paused: boolean;
  webhook_off: boolean;
}

/** Claims up to `limit` due jobs (oldest first) for this worker until now + LEASE_MS. */
export async function claimJobs(
  sql: Sql,
  now: Date,
  limit: number,
  leaseMs: number = LEASE_MS,
): Promise<Job[]> {
  const rows = await sql<JobRow[]>`
    with due as (
      select id from watch_jobs
      where state = 'pending' and run_at <= ${now}
        and (locked_until is null or locked_until <= ${now})
      order by run_at, id
      limit ${limit}
      for update skip locked
    ),
    claimed as (
      update watch_jobs j set attempts = j.attempts + 1,
        locked_until = ${new Date(now.getTime() + leaseMs)}
      from due where j.id = due.id and j.attempts < ${MAX_ATTEMPTS}
      returning j.id, j.watch_id, j.kind, j.opportunity_ids, j.change_ids, j.payload, j.attempts
    ),
    -- A job whose last attempt was claimed and never finished (its worker died or failed) is
    -- not tried past the limit: it is dead.
    spent as (
      update watch_jobs j set state = 'dead', locked_until = null, finished_at = ${now}
      from due where j.id = due.id and j.attempts >= ${MAX_ATTEMPTS}
    )
    -- The id arrays as JSON: postgres.js parses an array only once its connection has read the
    -- array types, and a new pool's first statements (a second instance's) can come before that.
    select c.id::text, c.watch_id, c.kind, to_jsonb(c.opportunity_ids) as opportunity_ids,
      to_jsonb(c.change_ids::text[]) as change_ids, c.payload, c.attempts, w.name,
      w.webhook_url, w.webhook_secret, w.email_token, a.email as account_email, w.email,
      -- Paused by its owner or by the plan's limit (plan_limit.ts): either way it delivers nothing.
      (w.paused or ${
    overPlanLimit(sql, "w")
  }) as paused, (w.webhook_disabled_at is not null or a.plan = 'free') as webhook_off
    from claimed c
    join watches w on w.id = c.watch_id
    join accounts a on a.id = w.account_id
    order by c.id`;
  return rows.map((r) => ({
    id: r.id,
    watchId: r.watch_id,
    kind: r.kind,
    opportunityIds: r.opportunity_ids,
    changeIds: r.change_ids,
    payload: r.payload,
    attempt: r.attempts,
    watchName: r.name,
    webhookUrl: r.webhook_url,
    webhookSecret: r.webhook_secret,
    emailToken: r.email_token,
    accountEmail: r.account_email,
    emailOn: r.email,
    paused: r.paused,
    webhookOff: r.webhook_off,
  }));
}

/** Keeps the body of a job's first attempt, so that its retries send the same bytes. */
export async function savePayload(sql: Sql, job: Job, payload: string): Promise<void> {
  await sql`update watch_jobs set payload = ${payload} where id = ${job.id} and payload is null`;
}

/**
 * Marks a job done (only while this worker still holds it: same attempt count), and clears the
 * watch's failing streak after a webhook delivered.
 */
export async function completeJob(sql: Sql, job: Job, now: Date): Promise<void> {
  await sql`
    update watch_jobs set state = 'done', locked_until = null, finished_at = ${now}
    where id = ${job.id} and attempts = ${job.attempt} and state = 'pending'`;
  if (job.kind === "webhook") {
    await sql`
      update watches set failing_since = null
      where id = ${job.watchId} and failing_since is not null`;
  }
}

/** Drops a job that has nothing left to do (its delivery was switched off). */
export async function cancelJob(sql: Sql, job: Job, now: Date): Promise<void> {
  await sql`
    update watch_jobs set state = 'cancelled', locked_until = null, finished_at = ${now}
    where id = ${job.id} and attempts = ${job.attempt} and state = 'pending'`;
}

/** What a failure did: scheduled a retry, killed the job, and maybe switched the webhook off. */
export interface FailureEffect {
  state: "retry" | "dead" | "cancelled";
  /** When the retry runs. */
  runAt?: Date;
  /** True when this failure switched the watch's webhook off. */
  disabled: boolean;
}

/**
 * Records a failed attempt: a retry after the backoff while attempts remain and a retry may
 * help, else the dead state. A failed webhook starts or continues the watch's failing streak;
 * once it is 3 days old the webhook is switched off, its pending events cancelled, and a
 * notice to the owner queued (in one statement, so two workers cannot both do it).
 */
export async function failJob(
  sql: Sql,
  job: Job,
  options: { now: Date; retryable: boolean; random: number },
): Promise<FailureEffect> {
  const { now } = options;
  const retry = options.retryable && job.attempt < MAX_ATTEMPTS;
  const runAt = retry ? new Date(now.getTime() + backoffMs(job.attempt, options.random)) : null;
  await sql`
    update watch_jobs set
      state = ${retry ? "pending" : "dead"},
      run_at = coalesce(${runAt}, run_at),
      locked_until = null,
      finished_at = ${retry ? null : now}
    where id = ${job.id} and attempts = ${job.attempt} and state = 'pending'`;
  if (job.kind !== "webhook") {
    return { state: retry ? "retry" : "dead", runAt: runAt ?? undefined, disabled: false };
  }
  const cutoff = new Date(now.getTime() - DISABLE_AFTER_MS);
  // One update of the watch (a row may be changed once per statement): the streak starts at
  // the first failure, and the webhook goes off once the streak is 3 days old.
  const [row] = await sql<{ disabled: boolean }[]>`
    with streak as (
      update watches set failing_since = coalesce(failing_since, ${now}),
        webhook_disabled_at = case when coalesce(failing_since, ${now}) <= ${cutoff}
          then ${now}::timestamptz end
      where id = ${job.watchId} and webhook_disabled_at is null
      returning id, webhook_disabled_at is not null as off
    ),
    cancelled as (
      update watch_jobs set state = 'cancelled', locked_until = null, finished_at = ${now}
      where watch_id in (select id from streak where off) and kind = 'webhook'
        and state = 'pending'
    ),
    notice as (
      insert into watch_jobs (watch_id, kind, run_at)
      select id, 'disabled_notice', ${now} from streak where off
    )
    select coalesce((select off from streak), false) as disabled`;
  const disabled = row?.disabled ?? false;
  if (disabled) return { state: retry ? "cancelled" : "dead", disabled };
  return { state: retry ? "retry" : "dead", runAt: runAt ?? undefined, disabled };
}

/** How many jobs are in each state (for the CLI and tests). */
export async function queueCounts(sql: Sql): Promise<Record<string, number>> {
  const rows = await sql<{ state: string; count: number }[]>`
    select state, count(*)::int as count from watch_jobs group by state order by state`;
  return Object.fromEntries(rows.map((r) => [r.state, r.count]));
}
