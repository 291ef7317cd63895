/**
 * Who is calling and what it costs: key lookup, plan check, existence and the quota charge in
 * one statement (admit), shared by the REST handlers and the MCP tools so that both surfaces
 * draw on one counter under one set of rules (docs/DECISIONS.md sections 1-3).
 */
import type { Sql } from "../db/open.ts";
import { bearerToken } from "../platform/crypto.ts";
import {
  InvalidApiKeyError,
  InvalidTokenError,
  KeyRevokedError,
  MissingApiKeyError,
  PlanRequiredError,
  QuotaExceededError,
} from "../platform/errors.ts";
import {
  ACCESS_TOKEN_PREFIX,
  hashApiKey,
  isAccessTokenShaped,
  isWellFormedKey,
  isWellFormedSecret,
} from "./keys.ts";
import type postgres from "postgres";
import { dayOf, periodOf, refundQuota, type Surface, usageState } from "./usage.ts";
import { type Plan, PLAN_LIMITS, PLAN_RANK, type UsageState } from "../platform/plans.ts";
import { ALL_SCOPES, parseScope, type Scope } from "./oauth_scopes.ts";

/** An authenticated caller: the key, its account and the account's usage when the call began. */
export interface Caller {
  keyId: number;
  keyPrefix: string;
  accountId: number;
  plan: Plan;
  /** Usage before this call's charge (after it, for a caller returned by admit). */
  usage: UsageState;
  /** The data version when the call began: the key of every cached answer. */
  dataVersion: number;
  /** What the credential may do: every scope for a key, the token's for an OAuth app. */
  scopes: readonly Scope[];
}

/** What an operation needs and costs. */
export interface Operation {
  /** The name a customer knows it by (REST operationId or MCP tool name), for messages. */
  name: string;
  /** The lowest plan allowed. */
  plan: Plan;
  /** Quota units a successful call takes. */
  cost: 0 | 1;
  /** True when the call can answer 404, which comes before 429 in the check order. */
  mayNotExist?: boolean;
}

/** The operations of both surfaces with their tier and cost (docs/DECISIONS.md section 1). */
export const OPERATIONS = {
  listOpportunities: { name: "listOpportunities", plan: "pro", cost: 1 },
  getOpportunity: { name: "getOpportunity", plan: "free", cost: 1, mayNotExist: true },
  listBlogPosts: { name: "listBlogPosts", plan: "free", cost: 0 },
  getBlogPost: { name: "getBlogPost", plan: "free", cost: 0, mayNotExist: true },
  getOverview: { name: "getOverview", plan: "free", cost: 1 },
  listCategories: { name: "listCategories", plan: "free", cost: 0 },
  listTrendingThemes: { name: "listTrendingThemes", plan: "pro", cost: 1 },
  getTheme: { name: "getTheme", plan: "pro", cost: 1, mayNotExist: true },
  getUsage: { name: "getUsage", plan: "free", cost: 0 },
  exportOpportunities: { name: "exportOpportunities", plan: "business", cost: 1 },
} as const satisfies Record<string, Operation>;

// last_used_at is refreshed at most once a minute per key; this remembers, per process, when
// each key was last written, so that most calls cost no write at all.
const LAST_USED_INTERVAL_MS = 60_000;
const lastUsedWrites = new Map<number, number>();

/**
 * Finds the caller of a raw key. Throws 401 for a missing, malformed or unknown key and 403 for
 * a revoked one. A malformed key (bad format or checksum) is refused without a lookup.
 */
export async function authenticate(
  sql: Sql,
  rawKey: string | undefined,
  now: Date = new Date(),
): Promise<Caller> {
  const hash = await keyDigest(rawKey);
  const [row]: [(KeyRow & { used: number })?] = await sql`
    select c.*, coalesce(u.used, 0) as used,
      (select version::float8 from data_version) as data_version
    from (${credentialRows(sql, rawKey!, hash, now)}) c
    left join usage_counters u on u.account_id = c.account_id and u.period = ${periodOf(now)}`;
  if (!row) throw unknownCredential(rawKey!);
  return remember(hash, callerOf(sql, row, row.used, now), now);
}

// Callers of the keys seen in the last seconds, by key digest: the MCP messages that read no
// data and cost nothing (initialize, tools/list, ping, notifications) are answered for a key
// found here without a database round trip. A revoke in this process forgets the key at once
// (forgetKey); one made elsewhere is seen by those messages within RECENT_MS, and by every
// charged or data-reading call at once, since admit always looks the key up.
const RECENT_MS = 10_000;
const RECENT_MAX = 10_000;
const recent = new Map<string, { caller: Caller; at: number }>();

function remember(hash: string, caller: Caller, now: Date): Caller {
  // An OAuth access token is never kept: it is always looked up, so that revoking its grant
  // stops it at once everywhere (recentCaller).
  if (caller.keyId <= 0) return caller;
  recent.delete(hash);
  if (recent.size >= RECENT_MAX) recent.delete(recent.keys().next().value!);
  recent.set(hash, { caller, at: now.getTime() });
  return caller;
}

/**
 * The caller of a raw key as this process last saw it (usage included), when that was less than
 * RECENT_MS ago; else as `authenticate` finds it. For calls that read no data and cost nothing.
 */
export async function recentCaller(
  sql: Sql,
  rawKey: string | undefined,
  now: Date = new Date(),
): Promise<Caller> {
  const seen = recent.get(await keyDigest(rawKey));
  if (seen && now.getTime() - seen.at < RECENT_MS) return seen.caller;
  return await authenticate(sql, rawKey, now);
}

/** Forgets a key's recent caller (its revoke was made in this process). */
export function forgetKey(keyId: number): void {
  for (const [hash, seen] of recent) if (seen.caller.keyId === keyId) recent.delete(hash);
}

// OAuth tokens found good in the last RECENT_MS, by digest, for vouch only (admit still looks
// every token up, so that revoking a grant stops it at once).
const vouchedTokens = new Map<string, number>();

/**
 * Throws 401 or 403 unless `rawKey` was found good in the last RECENT_MS or is known to the
 * database now: an endpoint reads a body only for a caller it knows (the call's own admission
 * checks the credential again), so a request without one costs no more than its headers.
 */
export async function vouch(sql: Sql, rawKey: string | undefined, now = new Date()): Promise<void> {
  const hash = await keyDigest(rawKey);
  const seen = recent.get(hash)?.at ?? vouchedTokens.get(hash) ?? -Infinity;
  if (now.getTime() - seen < RECENT_MS) return;
  // authenticate remembers a key itself (recent); a token is remembered here.
  if ((await authenticate(sql, rawKey, now)).keyId > 0) return;
  if (vouchedTokens.size >= RECENT_MAX) vouchedTokens.clear();
  vouchedTokens.set(hash, now.getTime());
}

// Digests of recently seen keys: hashing is a tenth of a tool call's CPU. Bounded; the keys
// are only in this process's memory, as they are anyway while their requests run.
const DIGESTS_MAX = 10_000;
const digests = new Map<string, string>();

/** The stored digest of a raw key; 401 for a missing or malformed key, without a lookup. */
async function keyDigest(rawKey: string | undefined): Promise<string> {
  if (!rawKey) throw new MissingApiKeyError();
  const known = digests.get(rawKey);
  if (known) return known;
  if (isAccessTokenShaped(rawKey)) {
    if (!isWellFormedSecret(rawKey, ACCESS_TOKEN_PREFIX)) throw new InvalidTokenError();
  } else if (!isWellFormedKey(rawKey)) throw new InvalidApiKeyError();
  const digest = await hashApiKey(rawKey);
  if (digests.size >= DIGESTS_MAX) digests.delete(digests.keys().next().value!);
  digests.set(rawKey, digest);
  return digest;
}

/** The columns every key lookup reads. */
interface KeyRow {
  key_id: number;
  prefix: string;
  revoked_by: "owner" | "admin" | null;
  last_used_at: Date | null;
  account_id: number;
  plan: Plan;
  data_version: number;
  /** The access token's scope (sql/0011); null for an API key, which may do everything. */
  scope: string | null;
}

/** The caller of a found key; 403 when it is revoked. */
function callerOf(sql: Sql, row: KeyRow, used: number, now: Date): Caller {
  if (row.revoked_by) throw new KeyRevokedError(row.revoked_by);
  touchKey(sql, row.key_id, row.last_used_at, now);
  return {
    keyId: row.key_id,
    keyPrefix: row.prefix,
    accountId: row.account_id,
    plan: row.plan,
    usage: usageState(row.plan, used, now),
    dataVersion: row.data_version,
    scopes: row.scope === null ? ALL_SCOPES : parseScope(row.scope),
  };
}

function touchKey(sql: Sql, keyId: number, lastUsed: Date | null, now: Date): void {
  const known = Math.max(lastUsed?.getTime() ?? 0, lastUsedWrites.get(keyId) ?? 0);
  if (now.getTime() - known < LAST_USED_INTERVAL_MS) return;
  lastUsedWrites.set(keyId, now.getTime());
  // Off the request path: a failed refresh of last_used_at must never fail the call. A negative
  // id is an OAuth grant (oauthTokenRows); its client counts as used too (30-day expiry).
  const write = keyId > 0
    ? sql`
      update api_keys set last_used_at = ${now}
      where id = ${keyId} and (last_used_at is null or last_used_at < ${now})`
    : sql`
      with g as (
        update oauth_grants set last_used_at = ${now}
        where id = ${-keyId} and (last_used_at is null or last_used_at < ${now})
        returning client_id
      )
      update oauth_clients set last_used_at = ${now} where client_id in (select client_id from g)`;
  write.catch(() => lastUsedWrites.delete(keyId));
}

/** What must exist for a call to succeed: checked in the admission statement, before charging. */
export interface Existence {
  /** A boolean SQL expression, e.g. `exists (select 1 from opportunities where id = 5)`. */
  check: postgres.Fragment;
  /** The 404 to answer when it is false. */
  notFound: () => Error;
}

/** The outcome of admit: the caller, and the refusal to answer when the call may not go on. */
export interface Admission {
  caller: Caller;
  refusal?: Error;
  /** True when this call took a unit of quota (to refund if its answer fails). */
  charged?: boolean;
  /** The value of admit's `prefetch` when it was given and the call was charged. */
  fetched?: unknown;
}

type AdmitRow = KeyRow & {
  found: boolean;
  charged: boolean;
  /** After the charge when charged, else the count as it stands. */
  used: number;
  /** The prefetch's value, when one was given. */
  fetched?: unknown;
};

/**
 * The rows of an API key: who holds it and on which plan. The credential part of the admission
 * statement (a second kind of credential adds its own lookup with the same columns).
 */
function apiKeyRows(sql: Sql, hash: string): postgres.Fragment {
  return sql`
    select k.id as key_id, k.prefix, k.revoked_by, k.last_used_at, a.id as account_id, a.plan,
      null::text as scope
    from api_keys k join accounts a on a.id = k.account_id
    where k.key_hash = ${hash}`;
}

/**
 * The rows of an OAuth access token: the grant it belongs to (as a negative key id, so that its
 * calls are counted under the grant in the usage records and never collide with a key), its
 * account, plan and scope (the token's: a refresh may have narrowed it below the grant's). Only a
 * live token of a grant that is not revoked has a row: anything else is 401 invalid_token, never
 * 403 (a revoked grant is the end of the sign-in, not a key to switch on again).
 */
function oauthTokenRows(sql: Sql, hash: string, now: Date): postgres.Fragment {
  return sql`
    select -g.id as key_id, 'oauth:' || g.id as prefix, null::text as revoked_by,
      g.last_used_at, a.id as account_id, a.plan, t.scope
    from oauth_tokens t
    join oauth_grants g on g.id = t.grant_id
    join accounts a on a.id = g.account_id
    where t.token_hash = ${hash} and t.kind = 'access' and t.expires_at > ${now}
      and g.revoked_at is null`;
}

/** The credential rows of a raw key or access token (keyDigest has checked its shape). */
function credentialRows(sql: Sql, raw: string, hash: string, now: Date): postgres.Fragment {
  return isAccessTokenShaped(raw) ? oauthTokenRows(sql, hash, now) : apiKeyRows(sql, hash);
}

/** The 401 of a credential that has no row. */
function unknownCredential(raw: string): Error {
  return isAccessTokenShaped(raw) ? new InvalidTokenError() : new InvalidApiKeyError();
}

/**
 * Admits a call in ONE statement, for either surface: finds the key, checks the plan and what
 * must exist, charges the quota when all of that holds and the operation costs something,
 * records the charged call for its key, surface and UTC day, and reads the data version. Throws
 * 401 and 403 key_revoked; a refusal of a known caller (403 plan_required, 404, 429) is
 * returned with the caller, so that its answer still carries the quota headers. The order is
 * that of docs/DECISIONS.md section 4; the caller checks its parameters before. The caller's
 * usage is after the charge.
 *
 * The usage record costs no second table: the month's counts per key, surface and day live on
 * the account's counter row, which the charge writes anyway (sql/0007_usage_today.sql).
 *
 * `prefetch`, a scalar SQL expression, is the answer's data read in the same statement when the
 * call may be charged (a detail that is not cached): one round trip instead of two, read in the
 * same snapshot as the data version. Its value is the admission's `fetched` once charged.
 */
export async function admit(
  sql: Sql,
  rawKey: string | undefined,
  operation: Operation,
  existence?: Existence,
  now: Date = new Date(),
  surface: Surface = "rest",
  prefetch?: postgres.Fragment,
): Promise<Admission> {
  const hash = await keyDigest(rawKey);
  const period = periodOf(now);
  const rankOf = (plan: postgres.Fragment) =>
    sql`(case ${plan} when 'free' then 0 when 'pro' then 1 else 2 end)`;
  const rank = rankOf(sql`k.plan`);
  const limit = sql`(case k.plan when 'free' then ${PLAN_LIMITS.free}::int
    when 'pro' then ${PLAN_LIMITS.pro}::int else ${PLAN_LIMITS.business}::int end)`;
  const keyRow = sql`
    select c.*, ${existence?.check ?? sql`true`} as found,
      c.key_id::text || ${":" + surface} as slot
    from (${credentialRows(sql, rawKey!, hash, now)}) c`;
  // The prefetch is read with the key, before the charge: the counter row is locked from the
  // charge to the commit only, as without it (a read under the lock made every other call of
  // the account wait for it). It is read only when the call may be charged; when the quota then
  // refuses it, it is not used.
  const keyRows = prefetch
    ? sql`
      select f.*, case when f.found and f.revoked_by is null
          and ${rankOf(sql`f.plan`)} >= ${PLAN_RANK[operation.plan]}::int
        then ${prefetch} end as fetched
      from (${keyRow}) f`
    : keyRow;
  const [row]: [AdmitRow?] = await sql`
    with k as (${keyRows}),
    charged as (
      insert into usage_counters as u (account_id, period, used, day, today)
      select k.account_id, ${period}, 1, ${dayOf(now)}, jsonb_build_object(k.slot, 1) from k
      where ${operation.cost}::int > 0 and k.revoked_by is null and k.found
        and ${rank} >= ${PLAN_RANK[operation.plan]}::int
      on conflict (account_id, period) do update set used = u.used + 1, day = excluded.day,
        today = case when u.day = excluded.day
          then u.today || jsonb_build_object((select slot from k),
            coalesce((u.today ->> (select slot from k))::int, 0) + 1)
          else excluded.today end,
        -- The first charge of another day files the last day's counts (sql/0007).
        earlier = case when u.day <> excluded.day
          then u.earlier || jsonb_build_object('day', u.day, 'calls', u.today)
          else u.earlier end
        where u.used < (select ${limit} from k)
      returning used
    )
    select k.*, (select used from charged) is not null as charged,
      -- coalesce stops at the first value: the counter is read only when nothing was charged.
      coalesce((select used from charged), (select used from usage_counters
        where account_id = k.account_id and period = ${period}), 0) as used,
      (select version::float8 from data_version) as data_version
    from k`;
  if (!row) throw unknownCredential(rawKey!);
  const caller = remember(hash, callerOf(sql, row, row.used, now), now);
  if (PLAN_RANK[caller.plan] < PLAN_RANK[operation.plan]) {
    return { caller, refusal: new PlanRequiredError(operation.plan, caller.plan, operation.name) };
  }
  if (!row.found) return { caller, refusal: existence!.notFound() };
  if (operation.cost === 0) return { caller };
  if (!row.charged) {
    const { used, limit: max, reset_at } = caller.usage;
    return { caller, refusal: new QuotaExceededError(used, max, reset_at) };
  }
  return { caller, charged: true, ...(prefetch ? { fetched: row.fetched } : {}) };
}

/**
 * Gives back the unit admit charged when the answer then fails (a statement time-out, the
 * database going away), so that only successful calls are charged; the key's usage record of
 * that day gives it back too. Returns the month's used count after the refund, for the failed
 * answer's quota headers. Best effort: if the database is gone the refund is lost (undefined), which can only
 * cost the customer one call.
 */
export async function refund(
  sql: Sql,
  caller: Caller,
  chargedAt: Date,
  surface: Surface = "rest",
): Promise<number | undefined> {
  // The month of the charge, not of the refund: a call at 23:59:59 on the last day stays there.
  const charge = { accountId: caller.accountId, keyId: caller.keyId, surface };
  return await refundQuota(sql, charge, chargedAt).catch(() => undefined);
}

/** The usage a caller's answer shows once its charge was given back (`used` after refund). */
export function usageAfterRefund(usage: UsageState, used: number | undefined): UsageState {
  if (used === undefined) return usage;
  return { ...usage, used, remaining: Math.max(0, usage.limit - used) };
}

/** The raw key of a request: X-API-Key, then Authorization: Bearer, then ?api_key=. */
export function apiKeyOf(request: Request, url: URL): string | undefined {
  const header = request.headers.get("x-api-key")?.trim();
  if (header) return header;
  const bearer = bearerToken(request);
  if (bearer) return bearer;
  return url.searchParams.get("api_key")?.trim() || undefined;
}
