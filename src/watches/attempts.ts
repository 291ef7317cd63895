/**
 * The log of delivery attempts (every webhook POST, e-mail and test event, with its outcome),
 * kept to the last 100 of each watch: GET /api/v1/watches/{id}/deliveries reads it.
 */
import type { Sql } from "../db/open.ts";
import { iso } from "../db/rows.ts";
import type { DeliveryList } from "./schemas.ts";

/** How many attempts of a watch are kept and listed. */
export const ATTEMPTS_KEPT = 100;

/** One attempt to log. */
export interface Attempt {
  watchId: number;
  jobId: number | null;
  kind: "webhook" | "email" | "disabled_notice" | "test";
  attempt: number;
  attemptedAt: Date;
  ok: boolean;
  statusCode: number | null;
  /** A short reason, never a whole response body. */
  error: string | null;
  durationMs: number;
}

/** The webhook-id of a job's event: the same for every attempt, so receivers can deduplicate. */
export function eventIdOf(jobId: number | bigint | string): string {
  return `msg_${jobId}`;
}

/** Logs an attempt and forgets the watch's attempts beyond the last 100. */
export async function recordAttempt(sql: Sql, attempt: Attempt): Promise<void> {
  await sql`
    insert into watch_attempts (watch_id, job_id, kind, attempt, attempted_at, ok, status_code,
      error, duration_ms)
    values (${attempt.watchId}, ${attempt.jobId}, ${attempt.kind}, ${attempt.attempt},
      ${attempt.attemptedAt}, ${attempt.ok}, ${attempt.statusCode},
      ${attempt.error?.slice(0, 500) ?? null}, ${Math.max(0, Math.round(attempt.durationMs))})`;
  await sql`
    delete from watch_attempts
    where watch_id = ${attempt.watchId} and id <= (
      select id from watch_attempts where watch_id = ${attempt.watchId}
      order by id desc offset ${ATTEMPTS_KEPT} limit 1)`;
}

interface AttemptRow {
  id: string;
  job_id: string | null;
  kind: Attempt["kind"];
  attempt: number;
  attempted_at: Date;
  ok: boolean;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

/** The last 100 attempts of a watch, newest first. */
export async function listDeliveries(sql: Sql, watchId: number): Promise<DeliveryList> {
  const rows = await sql<AttemptRow[]>`
    select id::text, job_id::text, kind, attempt, attempted_at, ok, status_code, error,
      duration_ms
    from watch_attempts where watch_id = ${watchId}
    order by id desc limit ${ATTEMPTS_KEPT}`;
  return {
    items: rows.map((r) => ({
      id: Number(r.id),
      kind: r.kind,
      event_id: r.job_id === null ? null : eventIdOf(r.job_id),
      attempt: r.attempt,
      attempted_at: iso(r.attempted_at),
      ok: r.ok,
      status_code: r.status_code,
      error: r.error,
      duration_ms: r.duration_ms,
    })),
  };
}
