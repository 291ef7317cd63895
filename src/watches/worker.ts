/**
 * The delivery worker: claims due jobs of the queue and delivers them, at most `concurrency` at
 * once per process: webhook events (signed, SSRF-checked, each attempt logged), e-mail digests
 * and the owner's notices. The server runs it from requests (`poke`, at most one run at a time,
 * which suits Deno Deploy where only requests wake an isolate) and from a timer when it is a
 * long-lived process; operators run it with `deno task admin deliver`. Time comes from an
 * injectable clock, so tests can walk through 3 days of retries at once.
 */
import type { Sql } from "../db/open.ts";
import { listColumns, type ListRow, toListItem } from "../catalog/lists/opportunities.ts";
import type { OpportunityListItem } from "../catalog/schemas.ts";
import { eventIdOf, recordAttempt } from "./attempts.ts";
import { digestMail, disabledNoticeMail, type WatchMailer } from "./digest.ts";
import { cancelJob, claimJobs, completeJob, failJob, type Job, savePayload } from "./queue.ts";
import { themeChangesOf, themeDigestMail } from "./theme_watches.ts";
import { eventBody, postEvent, type SendOutcome, type WebhookOptions } from "./webhook.ts";

export interface WorkerDeps {
  sql: Sql;
  /** Sends digests and notices; without it e-mail jobs fail and are retried. */
  mailer?: WatchMailer;
  /** The public origin, for links in mails and events. */
  publicBaseUrl: string;
  webhook?: WebhookOptions;
  /** Deliveries at once in this process; 8 by default. */
  concurrency?: number;
  /** Now; the system clock by default. */
  clock?: () => Date;
  /** Jitter source in [0, 1); Math.random by default. */
  random?: () => number;
  /** Least time between two runs started by `poke`; one second by default. */
  intervalMs?: number;
  log?: (entry: Record<string, unknown>) => void;
}

/** What one run did. */
export interface RunSummary {
  delivered: number;
  retried: number;
  dead: number;
  cancelled: number;
}

/** The opportunities of an event, best score first. */
async function itemsOf(sql: Sql, ids: number[], base: string): Promise<OpportunityListItem[]> {
  const rows = await sql<ListRow[]>`
    select ${listColumns(sql)} from opportunities o where o.id = any(${ids}::int[])
    order by o.score desc, o.created_at desc, o.id desc`;
  return rows.map((row) => toListItem(row, base));
}

/** Builds a worker. */
export function createDeliveryWorker(deps: WorkerDeps) {
  const { sql } = deps;
  const clock = deps.clock ?? (() => new Date());
  const random = deps.random ?? Math.random;
  const concurrency = deps.concurrency ?? 8;
  const log = deps.log ?? ((entry) => console.error(JSON.stringify(entry)));
  let running: Promise<RunSummary> | undefined;
  let lastRun = -Infinity;

  async function attemptWebhook(job: Job): Promise<SendOutcome> {
    let body = job.payload;
    if (body === null) {
      const watch = { id: job.watchId, name: job.watchName };
      body = job.changeIds.length > 0
        ? eventBody("watch.theme_status", clock(), {
          watch,
          changes: await themeChangesOf(sql, job.changeIds),
        })
        : eventBody("watch.matches", clock(), {
          watch,
          opportunities: await itemsOf(sql, job.opportunityIds, deps.publicBaseUrl),
        });
      await savePayload(sql, job, body);
    }
    const outcome = await postEvent(
      job.webhookUrl!,
      job.webhookSecret!,
      { id: eventIdOf(job.id), body },
      deps.webhook,
    );
    return outcome;
  }

  async function attemptMail(job: Job): Promise<SendOutcome> {
    const started = performance.now();
    try {
      if (!deps.mailer) throw new Error("No mailer is configured");
      const to = { name: job.watchName, emailToken: job.emailToken, to: job.accountEmail };
      const mail = job.kind === "email" && job.changeIds.length > 0
        ? themeDigestMail(to, await themeChangesOf(sql, job.changeIds), deps.publicBaseUrl)
        : job.kind === "email"
        ? digestMail(
          { name: job.watchName, emailToken: job.emailToken, to: job.accountEmail },
          await itemsOf(sql, job.opportunityIds, deps.publicBaseUrl),
          deps.publicBaseUrl,
        )
        : disabledNoticeMail(
          { name: job.watchName, to: job.accountEmail, url: job.webhookUrl },
          deps.publicBaseUrl,
        );
      await deps.mailer.send(mail);
      return { ok: true, statusCode: null, error: null, retryable: false, durationMs: 0 };
    } catch (error) {
      return {
        ok: false,
        statusCode: null,
        error: `Mail failed: ${error instanceof Error ? error.message : String(error)}`,
        retryable: true,
        durationMs: performance.now() - started,
      };
    }
  }

  /** Delivers one claimed job and records the outcome. */
  async function deliver(job: Job): Promise<keyof RunSummary> {
    const now = clock();
    const off = job.paused && job.kind !== "disabled_notice" ||
      job.kind === "webhook" && (job.webhookOff || !job.webhookUrl) ||
      job.kind === "email" && !job.emailOn;
    if (off) {
      await cancelJob(sql, job, now);
      return "cancelled";
    }
    const outcome = job.kind === "webhook" ? await attemptWebhook(job) : await attemptMail(job);
    await recordAttempt(sql, {
      watchId: job.watchId,
      jobId: Number(job.id),
      kind: job.kind,
      attempt: job.attempt,
      attemptedAt: now,
      ok: outcome.ok,
      statusCode: outcome.statusCode,
      error: outcome.error,
      durationMs: outcome.durationMs,
    });
    if (outcome.ok) {
      await completeJob(sql, job, clock());
      return "delivered";
    }
    const effect = await failJob(sql, job, {
      now: clock(),
      retryable: outcome.retryable,
      random: random(),
    });
    return effect.state === "retry" ? "retried" : effect.state;
  }

  /** Delivers every job due now, `concurrency` at a time, until none is left. */
  async function runOnce(): Promise<RunSummary> {
    const summary: RunSummary = { delivered: 0, retried: 0, dead: 0, cancelled: 0 };
    while (true) {
      const jobs = await claimJobs(sql, clock(), concurrency);
      if (jobs.length === 0) return summary;
      const results = await Promise.all(jobs.map((job) =>
        deliver(job).catch(async (error) => {
          log({
            level: "error",
            message: "watch delivery failed",
            job: job.id,
            error: String(error),
          });
          // Retried with the same backoff as a failed attempt (dead after the last one); if even
          // that fails, the job stays leased and is claimed again when its lease ends.
          try {
            const effect = await failJob(sql, job, {
              now: clock(),
              retryable: true,
              random: random(),
            });
            return effect.state === "retry" ? "retried" as const : effect.state;
          } catch {
            return undefined;
          }
        })
      ));
      for (const r of results) if (r) summary[r]++;
    }
  }

  return {
    runOnce,
    /** Starts a run when none is running and none started within the interval; returns at once. */
    poke(): void {
      const now = Date.now();
      if (running || now - lastRun < (deps.intervalMs ?? 1000)) return;
      lastRun = now;
      running = runOnce().catch((error) => {
        log({ level: "error", message: "watch deliveries failed", error: String(error) });
        return { delivered: 0, retried: 0, dead: 0, cancelled: 0 };
      }).finally(() => running = undefined);
    },
    /** Waits for a run in progress (shutdown, tests). */
    async idle(): Promise<void> {
      await running;
    },
  };
}

export type DeliveryWorker = ReturnType<typeof createDeliveryWorker>;
