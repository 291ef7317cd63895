/**
 * The usage e-mails: at 80% and at 100% of the month's quota, once each a month, through the
 * account area's mailer. Sent off the request path: `poke` starts a run at most once a
 * minute and never waits for it; `runOnce` is the run itself.
 */
import { claimUsageNotices, releaseUsageNotice, type UsageNotice } from "./usage_notices.ts";
import type { Sql } from "../db/open.ts";
import type { Mailer } from "../platform/mailer.ts";

export interface UsageMailDeps {
  sql: Sql;
  mailer: Mailer;
  /** The public origin, for the dashboard link. */
  publicBaseUrl: string;
  /** Least time between two runs started by `poke`; default one minute. */
  intervalMs?: number;
  /** Receives error entries; defaults to a JSON line on standard error. */
  log?: (entry: Record<string, unknown>) => void;
}

/** The mail of one notice. */
export function usageMail(notice: UsageNotice, publicBaseUrl: string) {
  const resets = new Date(notice.resetAt).toLocaleDateString("en-GB", {
    day: "numeric",
    month: "long",
    year: "numeric",
    timeZone: "UTC",
  });
  const full = notice.threshold >= 100;
  const subject = full
    ? "You have used all of this month's API calls"
    : `You have used ${notice.threshold}% of this month's API calls`;
  const text = [
    full
      ? `Your account has used all ${notice.limit} calls of this month. Charged calls answer 429 ` +
        `until the quota resets on ${resets} at 00:00 UTC; free calls keep working.`
      : `Your account has used ${notice.used} of its ${notice.limit} calls this month. The ` +
        `quota resets on ${resets} at 00:00 UTC.`,
    "",
    `See which key and which day used them: ${publicBaseUrl}/account`,
    `(or GET /api/v1/usage, free of charge).`,
    "",
    "You get this mail at most once at 80% and once at 100% a month. To stop these mails, use " +
    `"Stop usage e-mails" on ${publicBaseUrl}/account.`,
  ].join("\n");
  return { to: notice.email, subject, text };
}

/** Builds the usage notifier. */
export function createUsageMail(deps: UsageMailDeps) {
  const interval = deps.intervalMs ?? 60_000;
  const log = deps.log ?? ((entry) => console.error(JSON.stringify(entry)));
  let lastRun = -Infinity;
  let running: Promise<number> | undefined;

  /** Claims the notices due and mails them; returns how many were sent. */
  async function runOnce(now: Date = new Date()): Promise<number> {
    let sent = 0;
    for (const notice of await claimUsageNotices(deps.sql, now)) {
      try {
        await deps.mailer.send(usageMail(notice, deps.publicBaseUrl));
        sent++;
      } catch (error) {
        log({ level: "error", message: "usage e-mail failed", error: String(error) });
        await releaseUsageNotice(deps.sql, notice).catch(() => {});
      }
    }
    return sent;
  }

  return {
    runOnce,
    /** Starts a run when none ran in the last interval; returns at once. */
    poke(): void {
      const now = Date.now();
      if (running || now - lastRun < interval) return;
      lastRun = now;
      running = runOnce().catch((error) => {
        log({ level: "error", message: "usage e-mails failed", error: String(error) });
        return 0;
      }).finally(() => running = undefined);
    },
    /** Waits for a run in progress (for a clean shutdown and for tests). */
    async idle(): Promise<void> {
      await running;
    },
  };
}
