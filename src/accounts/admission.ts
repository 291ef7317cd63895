/**
 * Who is calling and what it costs: key lookup, plan check and the quota charge, shared by the
 * REST handlers and the MCP tools so that both surfaces draw on one counter under one set of
 * rules (docs/DECISIONS.md sections 1-3).
 */
import type { Sql } from "../db/open.ts";
import { bearerToken } from "../platform/crypto.ts";
import {
  InvalidApiKeyError,
  KeyRevokedError,
  MissingApiKeyError,
  PlanRequiredError,
  QuotaExceededError,
} from "../platform/errors.ts";
import { hashApiKey, isWellFormedKey } from "./keys.ts";
import type postgres from "postgres";
import { chargeQuota, dayOf, periodOf, refundQuota, type Surface, usageState } from "./usage.ts";
import { type Plan, PLAN_LIMITS, PLAN_RANK, type UsageState } from "../platform/plans.ts";

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
    select k.id as key_id, k.prefix, k.revoked_by, k.last_used_at, a.id as account_id, a.plan,
      coalesce(u.used, 0) as used, (select version::float8 from data_version) as data_version
    from api_keys k
    join accounts a on a.id = k.account_id
    left join usage_counters u on u.account_id = a.id and u.period = ${periodOf(now)}
    where k.key_hash = ${hash}`;
  if (!row) throw new InvalidApiKeyError();
  return callerOf(sql, row, row.used, now);
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
  if (!isWellFormedKey(rawKey)) throw new InvalidApiKeyError();
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
  };
}

function touchKey(sql: Sql, keyId: number, lastUsed: Date | null, now: Date): void {
  const known = Math.max(lastUsed?.getTime() ?? 0, lastUsedWrites.get(keyId) ?? 0);
  if (now.getTime() - known < LAST_USED_INTERVAL_MS) return;
  lastUsedWrites.set(keyId, now.getTime());
  // Off the request path: a failed refresh of last_used_at must never fail the call.
  sql`
    update api_keys set last_used_at = ${now}
    where id = ${keyId} and (last_used_at is null or last_used_at < ${now})`
    .catch(() => lastUsedWrites.delete(keyId));
}

/** Throws 403 plan_required when the caller's plan is below the operation's. */
function requirePlan(caller: Caller, operation: Operation): void {
  if (PLAN_RANK[caller.plan] < PLAN_RANK[operation.plan]) {
    throw new PlanRequiredError(operation.plan, caller.plan, operation.name);
  }
}

/** The result of a performed operation and the caller's usage after it. */
export interface Performed<T> {
  result: T;
  usage: UsageState;
}

/**
 * Runs an operation in the order of docs/DECISIONS.md section 4 after the key and the parameters
 * have been checked: plan (403), then the work itself (which may throw 404), then the charge
 * (429). Only a call that succeeds is charged, exactly once.
 */
export async function perform<T>(
  sql: Sql,
  caller: Caller,
  operation: Operation,
  work: () => Promise<T>,
  surface: Surface = "mcp",
): Promise<Performed<T>> {
  requirePlan(caller, operation);
  // A caller whose quota was used up when its key was checked gets its 429 before any work, so
  // that refused calls cannot make the database search; where a 404 comes first (an id that
  // names nothing), the work is a lookup by primary key and runs first.
  if (operation.cost > 0 && !operation.mayNotExist && caller.usage.remaining <= 0) {
    const { used, limit, reset_at } = caller.usage;
    throw new QuotaExceededError(used, limit, reset_at);
  }
  const result = await work();
  if (operation.cost === 0) return { result, usage: caller.usage };
  const { charged, state } = await chargeQuota(sql, {
    accountId: caller.accountId,
    plan: caller.plan,
    keyId: caller.keyId,
    surface,
  });
  if (!charged) throw new QuotaExceededError(state.used, state.limit, state.reset_at);
  return { result, usage: state };
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
}

type AdmitRow = KeyRow & {
  found: boolean;
  charged: boolean;
  /** After the charge when charged, else the count as it stands. */
  used: number;
};

/**
 * Admits a call in ONE statement: finds the key, checks the plan and what must exist, charges
 * the quota when all of that holds and the operation costs something, and reads the data
 * version. Throws 401 and 403 key_revoked; a refusal of a known caller (403 plan_required, 404,
 * 429) is returned with the caller, so that its answer still carries the quota headers. The
 * order is that of docs/DECISIONS.md section 4; the caller checks its parameters before. The
 * caller's usage is after the charge.
 */
export async function admit(
  sql: Sql,
  rawKey: string | undefined,
  operation: Operation,
  existence?: Existence,
  now: Date = new Date(),
): Promise<Admission> {
  const hash = await keyDigest(rawKey);
  const period = periodOf(now);
  const rank = sql`(case k.plan when 'free' then 0 when 'pro' then 1 else 2 end)`;
  const limit = sql`(case k.plan when 'free' then ${PLAN_LIMITS.free}::int
    when 'pro' then ${PLAN_LIMITS.pro}::int else ${PLAN_LIMITS.business}::int end)`;
  const [row]: [AdmitRow?] = await sql`
    with k as (
      select k.id as key_id, k.prefix, k.revoked_by, k.last_used_at, a.id as account_id, a.plan,
        ${existence?.check ?? sql`true`} as found
      from api_keys k join accounts a on a.id = k.account_id
      where k.key_hash = ${hash}
    ),
    charged as (
      insert into usage_counters as u (account_id, period, used)
      select k.account_id, ${period}, 1 from k
      where ${operation.cost}::int > 0 and k.revoked_by is null and k.found
        and ${rank} >= ${PLAN_RANK[operation.plan]}::int
      on conflict (account_id, period) do update set used = u.used + 1
        where u.used < (select ${limit} from k)
      returning used
    ),
    -- The charged call is counted for its key, surface and UTC day in the same statement.
    attributed as (
      insert into usage_daily as d (account_id, key_id, surface, day, calls)
      select k.account_id, k.key_id, 'rest', ${dayOf(now)}, 1 from k, charged
      on conflict (account_id, day, key_id, surface) do update set calls = d.calls + 1
    )
    select k.*, (select used from charged) is not null as charged,
      -- coalesce stops at the first value: the counter is read only when nothing was charged.
      coalesce((select used from charged), (select used from usage_counters
        where account_id = k.account_id and period = ${period}), 0) as used,
      (select version::float8 from data_version) as data_version
    from k`;
  if (!row) throw new InvalidApiKeyError();
  const caller = callerOf(sql, row, row.used, now);
  if (PLAN_RANK[caller.plan] < PLAN_RANK[operation.plan]) {
    return { caller, refusal: new PlanRequiredError(operation.plan, caller.plan, operation.name) };
  }
  if (!row.found) return { caller, refusal: existence!.notFound() };
  if (operation.cost === 0) return { caller };
  if (!row.charged) {
    const { used, limit: max, reset_at } = caller.usage;
    return { caller, refusal: new QuotaExceededError(used, max, reset_at) };
  }
  return { caller, charged: true };
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
): Promise<number | undefined> {
  // The month of the charge, not of the refund: a call at 23:59:59 on the last day stays there.
  const charge = { accountId: caller.accountId, keyId: caller.keyId, surface: "rest" as const };
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
