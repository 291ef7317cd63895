/**
 * Webhook delivery: one POST of an event signed per Standard Webhooks (webhook-id,
 * webhook-timestamp, webhook-signature, by the `standardwebhooks` library), to a URL checked by
 * the SSRF guard right before sending and connected to the very address that was checked (no
 * second DNS answer can redirect it), with a time-out, no redirects followed, and the answer's
 * body read only up to a small cap and never kept whole. The outcome says whether a retry may
 * help: time-outs, connection errors, 408, 429 and 5xx may; other answers will not.
 */
import { Webhook } from "standardwebhooks";
import type { Sql } from "../db/open.ts";
import { InvalidParameterError, RateLimitedError } from "../platform/errors.ts";
import { hitRateLimit } from "../db/rate_limits.ts";
import { recordAttempt } from "./attempts.ts";
import type { WatchTestResult } from "./schemas.ts";
import { PostTimeoutError, postTo } from "../platform/pinned_request.ts";
import {
  type OutboundTarget,
  resolveOutboundTarget,
  UnsafeUrlError,
  type UrlPolicy,
} from "../platform/outbound_target.ts";
import type { Owner } from "./watches.ts";
import { getWatch, requireWebhookPlan } from "./watches.ts";

/** How webhooks are sent; tests pass a short time-out and an allow-list. */
export interface WebhookOptions {
  urlPolicy?: UrlPolicy;
  /** Time-out of one attempt; 10 s by default. */
  timeoutMs?: number;
  /** Extra trusted certificates (PEM), for tests with an https receiver of their own. */
  ca?: string;
}

export const WEBHOOK_TIMEOUT_MS = 10_000;
/** Bytes of an answer's body read at most (the rest is discarded unread). */
const BODY_CAP = 4096;
/** Characters of an answer's body kept in the attempt log. */
const BODY_KEPT = 200;

/** The outcome of one POST. */
export interface SendOutcome {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  /** True when a later attempt may succeed. */
  retryable: boolean;
  durationMs: number;
}

/** The signed headers of an event body. */
export function signedHeaders(
  secret: string,
  eventId: string,
  body: string,
  at: Date = new Date(),
): Record<string, string> {
  return {
    "webhook-id": eventId,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": new Webhook(secret).sign(eventId, at, body),
  };
}

/**
 * POSTs a signed event to `url`. Never throws: every failure is an outcome. The signature's
 * timestamp is the real time of sending (receivers compare it with their clock).
 */
export async function postEvent(
  url: string,
  secret: string,
  event: { id: string; body: string },
  options: WebhookOptions = {},
): Promise<SendOutcome> {
  const started = performance.now();
  const done = (o: Omit<SendOutcome, "durationMs">): SendOutcome => ({
    ...o,
    durationMs: performance.now() - started,
  });
  let target: OutboundTarget;
  try {
    target = await resolveOutboundTarget(url, options.urlPolicy);
  } catch (error) {
    if (!(error instanceof UnsafeUrlError)) throw error;
    // A name that cannot be resolved now may resolve later; a forbidden address will not change.
    const retryable = /cannot be resolved/.test(error.message);
    return done({ ok: false, statusCode: null, error: `Refused: ${error.message}`, retryable });
  }
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  let answer;
  try {
    answer = await postTo(target, event.body, {
      timeoutMs,
      cap: BODY_CAP,
      ca: options.ca,
      headers: {
        "Content-Type": "application/json",
        "User-Agent": "oppintel-webhooks/1.0",
        ...signedHeaders(secret, event.id, event.body),
      },
    });
  } catch (error) {
    return done({
      ok: false,
      statusCode: null,
      error: error instanceof PostTimeoutError
        ? error.message
        : `Connection failed: ${error instanceof Error ? error.message : String(error)}`,
      retryable: true,
    });
  }
  const { status, text } = answer;
  if (status >= 200 && status < 300) {
    return done({ ok: true, statusCode: status, error: null, retryable: false });
  }
  const snippet = text.replace(/\s+/g, " ").trim().slice(0, BODY_KEPT);
  const error = status >= 300 && status < 400
    ? `Redirect to ${answer.location ?? "(none)"} not followed`
    : `HTTP ${status}${snippet ? `: ${snippet}` : ""}`;
  const retryable = status === 408 || status === 429 || status >= 500;
  return done({ ok: false, statusCode: status, error, retryable });
}

/** The body of an event: Standard Webhooks' recommended {type, timestamp, data}. */
export function eventBody(type: string, at: Date, data: unknown): string {
  return JSON.stringify({ type, timestamp: at.toISOString(), data });
}

/** A sample opportunity for test events. */
const SAMPLE = {
  id: 0,
  platform: "reddit",
  channel_name: "SaaS",
  title: "Sample: invoice reminders that freelancers actually send",
  slug: "sample-invoice-reminders-that-freelancers-actually-send",
  recommendation: "Build",
  score: 80,
  created_at: "2026-01-01T00:00:00.000Z",
};

/** Test events an account may send per minute. */
export const TESTS_PER_MINUTE = 10;

/** Sends a sample signed event to the watch's webhook and logs the attempt. */
export async function sendTestEvent(
  sql: Sql,
  owner: Owner,
  id: number,
  options: WebhookOptions,
): Promise<WatchTestResult> {
  const watch = await getWatch(sql, owner.accountId, id);
  const [row] = await sql<{ webhook_url: string | null; webhook_secret: string | null }[]>`
    select webhook_url, webhook_secret from watches where id = ${id}`;
  if (!watch.deliveries.webhook || !row?.webhook_url || !row.webhook_secret) {
    throw new InvalidParameterError([{ param: "id", message: "this watch has no webhook" }]);
  }
  // A webhook left from a paid plan sends nothing on Free, test events included.
  requireWebhookPlan(owner);
  // Each test is a real request to a URL of the caller's choosing: a few a minute per account.
  const allowed = await hitRateLimit(sql, {
    bucket: `watch:test:${owner.accountId}`,
    limit: TESTS_PER_MINUTE,
    windowSeconds: 60,
  });
  if (!allowed) throw new RateLimitedError(`test events (${TESTS_PER_MINUTE} a minute)`, 60);
  const at = new Date();
  const eventId = `msg_test_${crypto.randomUUID().replaceAll("-", "")}`;
  const body = eventBody("watch.test", at, {
    watch: { id: watch.id, name: watch.name },
    sample: true,
    opportunities: [SAMPLE],
  });
  const outcome = await postEvent(
    row.webhook_url,
    row.webhook_secret,
    { id: eventId, body },
    options,
  );
  await recordAttempt(sql, {
    watchId: id,
    jobId: null,
    kind: "test",
    attempt: 1,
    attemptedAt: at,
    ok: outcome.ok,
    statusCode: outcome.statusCode,
    error: outcome.error,
    durationMs: outcome.durationMs,
  });
  return {
    ok: outcome.ok,
    status_code: outcome.statusCode,
    error: outcome.error,
    event_id: eventId,
  };
}
