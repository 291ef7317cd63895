/**
 * Who is calling: the API key or OAuth access token of a request, looked up with the account, its
 * plan, scopes and this month's usage; recently seen credentials remembered for the calls that
 * read nothing (vouch, recentCaller). The lookup's SQL is shared with the admission statement of
 * metering/admission.ts, which finds the caller and charges it in one round trip.
 */
import type postgres from "postgres";
import type { Sql } from "../db/open.ts";
import { bearerToken } from "../platform/crypto.ts";
import {
  InvalidApiKeyError,
  InvalidTokenError,
  KeyRevokedError,
  MissingApiKeyError,
} from "../platform/errors.ts";
import { periodOf, type Plan, type UsageState, usageState } from "../platform/plans.ts";
import {
  ACCESS_TOKEN_PREFIX,
  hashApiKey,
  isAccessTokenShaped,
  isWellFormedKey,
  isWellFormedSecret,
} from "./keys.ts";
import { ALL_SCOPES, parseScope, type Scope } from "./scopes.ts";

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

export function remember(hash: string, caller: Caller, now: Date): Caller {
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
export async function keyDigest(rawKey: string | undefined): Promise<string> {
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
export interface KeyRow {
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
export function callerOf(sql: Sql, row: KeyRow, used: number, now: Date): Caller {
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

/**
 * The rows of an API key: who holds it and on which plan. The credential part of the admission
 * statement (a second kind of credential adds its own lookup with the same columns). `hash` is
 * the key's digest, or a column of digests (the grouped admission, admission_group.ts).
 */
export function apiKeyRows(sql: Sql, hash: string | postgres.Fragment): postgres.Fragment {
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
export function credentialRows(sql: Sql, raw: string, hash: string, now: Date): postgres.Fragment {
  return isAccessTokenShaped(raw) ? oauthTokenRows(sql, hash, now) : apiKeyRows(sql, hash);
}

/** The 401 of a credential that has no row. */
export function unknownCredential(raw: string): Error {
  return isAccessTokenShaped(raw) ? new InvalidTokenError() : new InvalidApiKeyError();
}

export function apiKeyOf(request: Request, url: URL): string | undefined {
  const header = request.headers.get("x-api-key")?.trim();
  if (header) return header;
  const bearer = bearerToken(request);
  if (bearer) return bearer;
  return url.searchParams.get("api_key")?.trim() || undefined;
}
