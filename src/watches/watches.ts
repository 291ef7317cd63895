/**
 * Watches and their management: create, list, read, change and delete an account's saved list
 * queries, with the plan's limits (Free 1 watch with e-mail and feed only, Pro 10, Business 50)
 * and the secrets made for them (webhook signing secret, feed token), shown once. Managing
 * watches costs no quota (docs/DECISIONS.md, second phase).
 */
import type { Sql } from "../db/open.ts";
import { iso } from "../db/rows.ts";
import { sha256Hex } from "../platform/crypto.ts";
import {
  ApiError,
  InvalidParameterError,
  NotFoundError,
  PlanRequiredError,
} from "../platform/errors.ts";
import { type Plan, WATCH_LIMITS } from "../platform/plans.ts";
import {
  type Watch,
  WatchCreateSchema,
  type WatchList,
  WatchPatchSchema,
  type WatchQuery,
  type WatchWithSecrets,
} from "./schemas.ts";
import { parseWatchQuery, validate } from "./input.ts";
import { checkOutboundUrl, UnsafeUrlError, type UrlPolicy } from "../platform/outbound_target.ts";
import { isRowId } from "../db/rows.ts";
import { overPlanLimit, watchStatus } from "./plan_limit.ts";

/** Who manages a watch: the caller's account and its plan. */
export interface Owner {
  accountId: number;
  plan: Plan;
}

/** What watch management needs besides the database. */
export interface WatchOptions {
  /** The public origin, for feed URLs. */
  publicBaseUrl: string;
  /** The SSRF guard's allow-list and resolver. */
  urlPolicy?: UrlPolicy;
}

/** 403: the account holds as many watches as its plan allows. */
export class WatchLimitError extends ApiError {
  readonly status = 403;
  readonly code = "watch_limit_reached";
  constructor(readonly limit: number, readonly plan: Plan) {
    super(
      `The ${plan} plan keeps at most ${limit} watch${limit === 1 ? "" : "es"}; delete one or ` +
        "upgrade",
    );
  }
  protected override extra() {
    return { limit: this.limit, current_plan: this.plan };
  }
}

function randomToken(bytes: number): string {
  const raw = crypto.getRandomValues(new Uint8Array(bytes));
  return btoa(String.fromCharCode(...raw)).replaceAll("+", "-").replaceAll("/", "_")
    .replace(/=+$/, "");
}

/** A Standard Webhooks signing secret: `whsec_` and 32 random bytes in base64. */
function newWebhookSecret(): string {
  const raw = crypto.getRandomValues(new Uint8Array(32));
  return `whsec_${btoa(String.fromCharCode(...raw))}`;
}

/** A feed token (`oi_feed_` + 32 random bytes) and the digest that is stored. */
async function newFeedToken(): Promise<{ token: string; hash: string }> {
  const token = `oi_feed_${randomToken(32)}`;
  return { token, hash: await sha256Hex(token) };
}

/** The public URL of a watch's feed. */
export function feedUrl(publicBaseUrl: string, token: string): string {
  return `${publicBaseUrl}/feeds/watch?token=${token}`;
}

interface WatchRow {
  id: number;
  name: string;
  query: WatchQuery;
  webhook_url: string | null;
  webhook_disabled_at: Date | null;
  failing_since: Date | null;
  email: boolean;
  feed_token_hash: string | null;
  paused: boolean;
  theme_status: Watch["theme_status"] | null;
  created_at: Date;
  updated_at: Date;
  /** Derived (plan_limit.ts): on, but beyond the plan's limit; and the account's plan. */
  over_limit: boolean;
  plan: Plan;
}

const COLUMNS = [
  "id",
  "name",
  "query",
  "webhook_url",
  "webhook_disabled_at",
  "failing_since",
  "email",
  "feed_token_hash",
  "paused",
  "theme_status",
  "created_at",
  "updated_at",
] as const;

/** The columns of a watch with what is derived from its account: `returning` or `select` it. */
function columns(sql: Sql) {
  return sql`${sql(COLUMNS)}, ${overPlanLimit(sql, "watches")} as over_limit,
    (select plan from accounts where id = watches.account_id) as plan`;
}

function toWatch(row: WatchRow): Watch {
  return {
    id: row.id,
    name: row.name,
    query: row.query,
    deliveries: {
      webhook: row.webhook_url === null ? null : {
        url: row.webhook_url,
        disabled_at: iso(row.webhook_disabled_at),
        failing_since: iso(row.failing_since),
      },
      email: row.email,
      feed: row.feed_token_hash !== null,
    },
    paused: row.paused,
    ...watchStatus(row),
    ...(row.theme_status ? { theme_status: row.theme_status } : {}),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

/** True when the watch delivers somehow: a webhook (even one disabled), e-mail or its feed. */
export function hasDelivery(watch: Watch): boolean {
  const { webhook, email, feed } = watch.deliveries;
  return webhook !== null || email || feed;
}

/** The filter columns of a stored query (watches.q ... online_only). */
function filterColumns(query: WatchQuery) {
  return {
    query,
    q: query.q ?? null,
    platform: query.platform ?? null,
    channel: query.channel ?? null,
    min_score: query.min_score,
    recommendation: query.recommendation ?? null,
    category: query.category ?? null,
    online_only: query.online_only,
    min_pain_point_intensity: query.min_pain_point_intensity ?? null,
    min_willingness_to_pay: query.min_willingness_to_pay ?? null,
    max_tech_difficulty: query.max_tech_difficulty ?? null,
    min_sustainability: query.min_sustainability ?? null,
  };
}

/** Checks a webhook URL for a watch: 422 naming the field when the SSRF guard refuses it. */
async function checkedUrl(url: string, options: WatchOptions): Promise<string> {
  try {
    return (await checkOutboundUrl(url.trim(), options.urlPolicy)).href;
  } catch (error) {
    if (!(error instanceof UnsafeUrlError)) throw error;
    throw new InvalidParameterError([{ param: "deliveries.webhook.url", message: error.message }]);
  }
}

/** Webhooks are for paid plans; throws PlanRequiredError on Free. */
export function requireWebhookPlan(owner: Owner): void {
  if (owner.plan === "free") {
    throw new PlanRequiredError("pro", owner.plan, "webhook delivery", "Webhook delivery");
  }
}

/**
 * Inserts a watch into the lowest free slot of the account, within the plan's limit, in one
 * statement (no transaction: the embedded engine serves one at a time). Two concurrent
 * creations that pick the same slot meet at the unique (account_id, slot): one waits, then does
 * nothing and tries the next slot; so at most `limit` watches ever exist at once.
 */
async function insertWithinLimit(
  sql: Sql,
  owner: Owner,
  v: ReturnType<typeof filterColumns> & {
    name: string;
    webhook_url: string | null;
    webhook_secret: string | null;
    email: boolean;
    email_token: string;
    feed_token_hash: string | null;
    theme_status: string | null;
  },
): Promise<WatchRow> {
  const limit = WATCH_LIMITS[owner.plan];
  const account = owner.accountId;
  for (let tries = 0; tries <= limit; tries++) {
    const [row]: [WatchRow?] = await sql`
      insert into watches (account_id, slot, name, query, q, platform, channel, min_score,
        recommendation, category, online_only, webhook_url, webhook_secret, email, email_token,
        feed_token_hash, theme_status, min_pain_point_intensity, min_willingness_to_pay,
        max_tech_difficulty, min_sustainability)
      select ${account}, s.slot, ${v.name}, ${sql.json(v.query as never)}, ${v.q}, ${v.platform},
        ${v.channel}, ${v.min_score}, ${v.recommendation}, ${v.category}, ${v.online_only},
        ${v.webhook_url}, ${v.webhook_secret}, ${v.email}, ${v.email_token}, ${v.feed_token_hash},
        ${v.theme_status}, ${v.min_pain_point_intensity}, ${v.min_willingness_to_pay},
        ${v.max_tech_difficulty}, ${v.min_sustainability}
      from (
        select min(n)::smallint as slot from generate_series(1, ${limit}::int) n
        where n not in (select slot from watches where account_id = ${account})
      ) s
      where s.slot is not null
        and (select count(*) from watches where account_id = ${account}) < ${limit}::int
      on conflict (account_id, slot) do nothing
      returning ${columns(sql)}`;
    if (row) return row;
    const [{ count }] = await sql<{ count: number }[]>`
      select count(*)::int as count from watches where account_id = ${account}`;
    if (count >= limit) break;
  }
  throw new WatchLimitError(limit, owner.plan);
}

/** Creates a watch for the owner: 422 for a bad body, 403 over the plan's limits. */
export async function createWatch(
  sql: Sql,
  owner: Owner,
  body: unknown,
  options: WatchOptions,
): Promise<WatchWithSecrets> {
  const input = validate(WatchCreateSchema, body);
  const query = parseWatchQuery(input.query);
  const { webhook, email, feed } = input.deliveries;
  if (!webhook && !email && !feed) {
    throw new InvalidParameterError([{
      param: "deliveries",
      message: "must turn on at least one of webhook, email, feed",
    }]);
  }
  if (webhook) requireWebhookPlan(owner);
  const url = webhook ? await checkedUrl(webhook.url, options) : null;
  const secret = webhook ? newWebhookSecret() : null;
  const feedToken = feed ? await newFeedToken() : null;
  const row = await insertWithinLimit(sql, owner, {
    name: input.name,
    ...filterColumns(query),
    webhook_url: url,
    webhook_secret: secret,
    email: email ?? false,
    email_token: randomToken(24),
    feed_token_hash: feedToken?.hash ?? null,
    theme_status: input.theme_status ?? null,
  });
  return {
    ...toWatch(row),
    ...(secret ? { webhook_secret: secret } : {}),
    ...(feedToken ? { feed_url: feedUrl(options.publicBaseUrl, feedToken.token) } : {}),
  };
}

/** The owner's watches, oldest first. */
export async function listWatches(sql: Sql, accountId: number): Promise<WatchList> {
  const rows = await sql<WatchRow[]>`
    select ${columns(sql)} from watches where account_id = ${accountId} order by id`;
  return { items: rows.map(toWatch) };
}

function notFound(id: number): NotFoundError {
  return new NotFoundError(`Cannot find watch ${id}`);
}

/** One of the owner's watches; 404 for another account's or an unknown id. */
export async function getWatch(sql: Sql, accountId: number, id: number): Promise<Watch> {
  if (!isRowId(id)) throw notFound(id);
  const [row]: [WatchRow?] = await sql`
    select ${columns(sql)} from watches where id = ${id} and account_id = ${accountId}`;
  if (!row) throw notFound(id);
  return toWatch(row);
}

/**
 * Changes a watch: name, query, deliveries (a new webhook URL switches a disabled webhook on
 * again), pause, and rotation of the signing secret or the feed token.
 */
export async function updateWatch(
  sql: Sql,
  owner: Owner,
  id: number,
  body: unknown,
  options: WatchOptions,
): Promise<WatchWithSecrets> {
  const input = validate(WatchPatchSchema, body);
  const current = await getWatch(sql, owner.accountId, id);
  const changes: Record<string, unknown> = {};
  let secret: string | undefined;
  let feedToken: { token: string; hash: string } | undefined;
  if (input.name !== undefined) changes.name = input.name;
  if (input.query !== undefined) {
    Object.assign(changes, filterColumns(parseWatchQuery(input.query)));
  }
  if (input.paused !== undefined) changes.paused = input.paused;
  if (input.theme_status !== undefined) changes.theme_status = input.theme_status;
  const deliveries = input.deliveries ?? {};
  if (deliveries.webhook === null) {
    Object.assign(changes, { webhook_url: null, webhook_secret: null, failing_since: null });
  } else if (
    deliveries.webhook &&
    !(current.deliveries.webhook?.url === deliveries.webhook.url &&
      current.deliveries.webhook.disabled_at === null)
  ) {
    // A new URL, or the same one for a webhook that was switched off: checked and on again. The
    // URL the watch already delivers to is left alone (the dashboard's edit form sends it back),
    // so an account moved to Free can still edit the rest of the watch.
    requireWebhookPlan(owner);
    changes.webhook_url = await checkedUrl(deliveries.webhook.url, options);
    changes.webhook_disabled_at = null;
    changes.failing_since = null;
    if (!current.deliveries.webhook) secret = newWebhookSecret();
  }
  if (input.rotate_webhook_secret) {
    if (!current.deliveries.webhook && !changes.webhook_url) {
      throw new InvalidParameterError([{
        param: "rotate_webhook_secret",
        message: "needs a webhook delivery",
      }]);
    }
    secret = newWebhookSecret();
  }
  if (secret) changes.webhook_secret = secret;
  if (deliveries.email !== undefined) changes.email = deliveries.email;
  if (deliveries.feed === false) changes.feed_token_hash = null;
  const wantsFeed = deliveries.feed ?? current.deliveries.feed;
  if ((deliveries.feed === true && !current.deliveries.feed) || input.rotate_feed_token) {
    if (!wantsFeed) {
      throw new InvalidParameterError([{ param: "rotate_feed_token", message: "needs a feed" }]);
    }
    feedToken = await newFeedToken();
    changes.feed_token_hash = feedToken.hash;
  }
  const keepsWebhook = "webhook_url" in changes
    ? changes.webhook_url !== null
    : current.deliveries.webhook !== null;
  if (!keepsWebhook && !(deliveries.email ?? current.deliveries.email) && !wantsFeed) {
    throw new InvalidParameterError([{
      param: "deliveries",
      message: "must keep at least one of webhook, email, feed",
    }]);
  }
  // Only the unsubscribe link leaves a watch without a delivery, and it pauses the watch for
  // that; a delivery turned on again resumes it, unless this change says otherwise.
  if (current.paused && !hasDelivery(current) && input.paused === undefined) {
    changes.paused = false;
  }
  if (Object.keys(changes).length === 0) return current;
  const [row]: [WatchRow?] = await sql`
    update watches set ${sql(changes)}, updated_at = now()
    where id = ${id} and account_id = ${owner.accountId}
    returning ${columns(sql)}`;
  if (!row) throw notFound(id);
  if (changes.webhook_url === null || changes.paused === true) {
    // Nothing more goes to a removed webhook; a paused watch delivers nothing.
    await cancelPendingJobs(sql, id, changes.webhook_url === null ? "webhook" : undefined);
  }
  return {
    ...toWatch(row),
    ...(secret ? { webhook_secret: secret } : {}),
    ...(feedToken ? { feed_url: feedUrl(options.publicBaseUrl, feedToken.token) } : {}),
  };
}

/** Cancels the pending deliveries of a watch (of one kind, or all). */
export async function cancelPendingJobs(sql: Sql, watchId: number, kind?: string): Promise<void> {
  await sql`
    update watch_jobs set state = 'cancelled', finished_at = now()
    where watch_id = ${watchId} and state = 'pending'
      ${kind ? sql`and kind = ${kind}` : sql``}`;
}

/** Deletes one of the owner's watches with its matches, jobs and attempts; 404 when unknown. */
export async function deleteWatch(sql: Sql, accountId: number, id: number): Promise<void> {
  if (!isRowId(id)) throw notFound(id);
  const rows = await sql`
    delete from watches where id = ${id} and account_id = ${accountId} returning id`;
  if (rows.length === 0) throw notFound(id);
}
