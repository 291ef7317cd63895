/**
 * Who is calling and what it costs: key lookup, plan check and the quota charge, shared by the
 * REST handlers and the MCP tools so that both surfaces draw on one counter under one set of
 * rules (DECISIONS.md sections 1-3).
 */
import type { Sql } from "./db/open.ts";
import {
  InvalidApiKeyError,
  KeyRevokedError,
  MissingApiKeyError,
  type Plan,
  PlanRequiredError,
  QuotaExceededError,
} from "./errors.ts";
import { hashApiKey, isWellFormedKey } from "./keys.ts";
import { chargeQuota, periodOf, type UsageState, usageState } from "./queries/usage.ts";

/** An authenticated caller: the key, its account and the account's usage when the call began. */
export interface Caller {
  keyId: number;
  keyPrefix: string;
  accountId: number;
  plan: Plan;
  /** Usage before this call's charge. */
  usage: UsageState;
}

/** What an operation needs and costs. */
export interface Operation {
  /** The name a customer knows it by (REST operationId or MCP tool name), for messages. */
  name: string;
  /** The lowest plan allowed. */
  plan: "free" | "pro";
  /** Quota units a successful call takes. */
  cost: 0 | 1;
}

const PLAN_RANK: Record<Plan, number> = { free: 0, pro: 1, business: 2 };

/** The operations of both surfaces with their tier and cost (DECISIONS.md section 1). */
export const OPERATIONS = {
  listOpportunities: { name: "listOpportunities", plan: "pro", cost: 1 },
  getOpportunity: { name: "getOpportunity", plan: "free", cost: 1 },
  listBlogPosts: { name: "listBlogPosts", plan: "free", cost: 0 },
  getBlogPost: { name: "getBlogPost", plan: "free", cost: 0 },
  getOverview: { name: "getOverview", plan: "free", cost: 1 },
  listCategories: { name: "listCategories", plan: "free", cost: 0 },
  listTrendingThemes: { name: "listTrendingThemes", plan: "pro", cost: 1 },
  getTheme: { name: "getTheme", plan: "pro", cost: 1 },
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
  if (!rawKey) throw new MissingApiKeyError();
  if (!isWellFormedKey(rawKey)) throw new InvalidApiKeyError();
  const hash = await hashApiKey(rawKey);
  const [row]: [
    {
      key_id: number;
      prefix: string;
      revoked_by: "owner" | "admin" | null;
      last_used_at: Date | null;
      account_id: number;
      plan: Plan;
      used: number;
    }?,
  ] = await sql`
    select k.id as key_id, k.prefix, k.revoked_by, k.last_used_at, a.id as account_id, a.plan,
      coalesce(u.used, 0) as used
    from api_keys k
    join accounts a on a.id = k.account_id
    left join usage_counters u on u.account_id = a.id and u.period = ${periodOf(now)}
    where k.key_hash = ${hash}`;
  if (!row) throw new InvalidApiKeyError();
  if (row.revoked_by) throw new KeyRevokedError(row.revoked_by);
  touchKey(sql, row.key_id, row.last_used_at, now);
  return {
    keyId: row.key_id,
    keyPrefix: row.prefix,
    accountId: row.account_id,
    plan: row.plan,
    usage: usageState(row.plan, row.used, now),
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
export function requirePlan(caller: Caller, operation: Operation): void {
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
 * Runs an operation in the order of DECISIONS.md section 4 after the key and the parameters
 * have been checked: plan (403), then the work itself (which may throw 404), then the charge
 * (429). Only a call that succeeds is charged, exactly once.
 */
export async function perform<T>(
  sql: Sql,
  caller: Caller,
  operation: Operation,
  work: () => Promise<T>,
): Promise<Performed<T>> {
  requirePlan(caller, operation);
  const result = await work();
  if (operation.cost === 0) return { result, usage: caller.usage };
  const { charged, state } = await chargeQuota(sql, { id: caller.accountId, plan: caller.plan });
  if (!charged) throw new QuotaExceededError(state.used, state.limit, state.reset_at);
  return { result, usage: state };
}
