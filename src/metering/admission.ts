/**
 * What a call costs and whether it may go on: the operations of both surfaces with their tier and
 * price, and the admission statement that finds the caller (accounts/credentials.ts), checks the
 * plan and what must exist, and charges the quota in one statement (admit), shared by the REST
 * handlers and the MCP tools so that both surfaces draw on one counter under one set of rules
 * (docs/DECISIONS.md sections 1-3); refund gives back the charge of an answer that failed. The same
 * call twice is charged once (issue 49): a call with a fingerprint (repeats.ts) is claimed in the
 * same statement as its charge, and a repeat of a claimed call is answered free.
 */
import type postgres from "postgres";
import type { Sql } from "../db/open.ts";
import { PlanRequiredError, QuotaExceededError } from "../platform/errors.ts";
import { dayOf, periodOf, type Plan, PLAN_RANK, type UsageState } from "../platform/plans.ts";
import {
  type Caller,
  callerOf,
  credentialRows,
  keyDigest,
  remember,
  unknownCredential,
} from "../accounts/credentials.ts";
import { refundQuota, type Surface } from "./usage.ts";
import { admissionGroups, type GroupRow } from "./admission_group.ts";
import { chargeUpdate, planLimit, planRank } from "./counter_sql.ts";
import { isAccessTokenShaped } from "../accounts/keys.ts";
import {
  ADMISSION_RACED,
  fingerprintOf,
  forgetCall,
  forgetOldCalls,
  REPEAT_WINDOW_MS,
} from "./repeats.ts";

/** What an operation needs and costs. */
export interface Operation {
  /** The name a customer knows it by (REST operationId or MCP tool name), for messages. */
  name: string;
  /** What it does, as the start of a sentence a customer reads ("Listing opportunities"). */
  action?: string;
  /** The lowest plan allowed. */
  plan: Plan;
  /** Quota units a successful call takes. */
  cost: 0 | 1;
  /** True when the call can answer 404, which comes before 429 in the check order. */
  mayNotExist?: boolean;
}

/** The operations of both surfaces with their tier and cost (docs/DECISIONS.md section 1). */
export const OPERATIONS = {
  listOpportunities: {
    name: "listOpportunities",
    action: "Listing opportunities",
    plan: "pro",
    cost: 1,
  },
  getOpportunity: { name: "getOpportunity", plan: "free", cost: 1, mayNotExist: true },
  listBlogPosts: { name: "listBlogPosts", plan: "free", cost: 0 },
  getBlogPost: { name: "getBlogPost", plan: "free", cost: 0, mayNotExist: true },
  getOverview: { name: "getOverview", plan: "free", cost: 1 },
  listCategories: { name: "listCategories", plan: "free", cost: 0 },
  listTrendingThemes: {
    name: "listTrendingThemes",
    action: "Listing trending themes",
    plan: "pro",
    cost: 1,
  },
  getTheme: {
    name: "getTheme",
    action: "Reading a theme",
    plan: "pro",
    cost: 1,
    mayNotExist: true,
  },
  getThemeHistory: {
    name: "getThemeHistory",
    action: "Reading a theme's history",
    plan: "pro",
    cost: 1,
    mayNotExist: true,
  },
  getUsage: { name: "getUsage", plan: "free", cost: 0 },
  exportOpportunities: {
    name: "exportOpportunities",
    action: "Exporting opportunities",
    plan: "business",
    cost: 1,
  },
  findSimilar: {
    name: "findSimilar",
    action: "Finding similar opportunities",
    plan: "pro",
    cost: 1,
    mayNotExist: true,
  },
  matchIdea: { name: "matchIdea", action: "Matching an idea", plan: "pro", cost: 1 },
} as const satisfies Record<string, Operation>;

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
  /** True when the call is a repeat of a call charged before: answered free. */
  repeat?: boolean;
  /** The fingerprint a charged call claimed (given back with its charge by refund). */
  fingerprint?: string;
}

type AdmitRow = GroupRow & {
  /** The prefetch's value, when one was given. */
  fetched?: unknown;
  /** True when the call repeats a claimed one (not charged, counted in `repeats`). */
  repeat?: boolean;
};

/** Statements admit runs again after a race for the last unit before it stops claiming. */
const RACE_TRIES = 3;

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
 *
 * `call`, the text of the call (Prepared's `call`, repeats.ts), makes a repeat of a call charged
 * before free (`repeat`): see admitClaimed. Without it every call is charged (an export).
 */
export async function admit(
  sql: Sql,
  rawKey: string | undefined,
  operation: Operation,
  existence?: Existence,
  now: Date = new Date(),
  surface: Surface = "rest",
  prefetch?: postgres.Fragment,
  call?: string,
): Promise<Admission> {
  const hash = await keyDigest(rawKey);
  const period = periodOf(now);
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
          and ${planRank(sql, sql`f.plan`)} >= ${PLAN_RANK[operation.plan]}::int
        then ${prefetch} end as fetched
      from (${keyRow}) f`
    : keyRow;
  const fingerprint = call !== undefined && operation.cost > 0
    ? await fingerprintOf(call)
    : undefined;
  const alone = async () => {
    const [row]: [AdmitRow?] = await sql`
    with k as (${keyRows}),
    charged as (
      insert into usage_counters as u (account_id, period, used, day, today)
      select k.account_id, ${period}, 1, ${dayOf(now)}, jsonb_build_object(k.slot, 1) from k
      where ${operation.cost}::int > 0 and k.revoked_by is null and k.found
        and ${planRank(sql, sql`k.plan`)} >= ${PLAN_RANK[operation.plan]}::int
      on conflict (account_id, period) do update set ${chargeUpdate(sql)}
        where u.used < (select ${planLimit(sql, sql`k.plan`)} from k)
      returning used
    )
    select k.*, (select used from charged) is not null as charged,
      -- coalesce stops at the first value: the counter is read only when nothing was charged.
      coalesce((select used from charged), (select used from usage_counters
        where account_id = k.account_id and period = ${period}), 0) as used,
      (select version::float8 from data_version) as data_version
    from k`;
    return row;
  };
  // A call that may repeat another is claimed with its charge (admitClaimed).
  const single = fingerprint
    ? () =>
      withRetries(
        () => admitClaimed(sql, keyRows, { operation, fp: fingerprint, now, period }),
        alone,
      )
    : alone;
  // A call that needs only its key, plan and quota may go with others (admission_group.ts);
  // an OAuth token is looked up alone (its expiry and grant).
  const groupable = !existence && !prefetch && !isAccessTokenShaped(rawKey!);
  const row: AdmitRow | undefined = groupable
    ? await admissionGroups(sql).admit({
      hash,
      surface,
      cost: operation.cost,
      need: PLAN_RANK[operation.plan],
      now,
      fp: fingerprint,
    }, single)
    : await single();
  if (!row) throw unknownCredential(rawKey!);
  const caller = remember(hash, callerOf(sql, row, row.used, now), now);
  if (PLAN_RANK[caller.plan] < PLAN_RANK[operation.plan]) {
    return {
      caller,
      refusal: new PlanRequiredError(operation.plan, caller.plan, operation.name, operation.action),
    };
  }
  if (!row.found) return { caller, refusal: existence!.notFound() };
  if (operation.cost === 0) return { caller };
  // A repeat's answer is read as the first one was: with the prefetch's rows when there is one.
  if (row.repeat) return { caller, repeat: true, ...(prefetch ? { fetched: row.fetched } : {}) };
  if (!row.charged) {
    const { used, limit: max, reset_at } = caller.usage;
    return { caller, refusal: new QuotaExceededError(used, max, reset_at) };
  }
  // Now and then, claims past their window are cleared (no scheduler needed).
  if (fingerprint && Math.random() < 0.001) forgetOldCalls(sql, now).catch(() => {});
  return {
    caller,
    charged: true,
    ...(prefetch ? { fetched: row.fetched } : {}),
    ...(fingerprint ? { fingerprint } : {}),
  };
}

/**
 * Runs the claiming statement; when it claimed a call whose charge a concurrent call's took the
 * last unit from (admission_raced: the claim rolled back with it), runs it again in a fresh
 * snapshot, which then sees the quota spent; after RACE_TRIES, admits without a claim.
 */
async function withRetries(
  claimed: () => Promise<AdmitRow | undefined>,
  alone: () => Promise<AdmitRow | undefined>,
): Promise<AdmitRow | undefined> {
  for (let i = 0; i < RACE_TRIES; i++) {
    try {
      return await claimed();
    } catch (error) {
      if ((error as { code?: string }).code !== ADMISSION_RACED) throw error;
    }
  }
  return await alone();
}

/**
 * The admission statement of a call that may repeat another, in ONE statement: finds the key and
 * checks plan and existence (as admit's), then decides whether the call repeats a charged one of
 * the account (the same fingerprint at the same data version within REPEAT_WINDOW_MS), claims it
 * when it does not, and charges it, or counts the repeat, on the counter row.
 *
 * Exact under concurrency: a claim in the statement's snapshot is a repeat at once; otherwise the
 * statement claims the fingerprint (insert ... on conflict), which waits for a concurrent claim
 * of the same call to commit and then sees it (a repeat). A claim comes before the counter row in
 * every statement, so two calls never wait on each other in a cycle. The claim is attempted only
 * when the snapshot's counter has room; when the counter row, locked, turns out full, the
 * statement raises admission_raced() and rolls the claim back with it (admit runs it again).
 */
async function admitClaimed(
  sql: Sql,
  keyRows: postgres.Fragment,
  call: { operation: Operation; fp: string; now: Date; period: string },
): Promise<AdmitRow | undefined> {
  const { operation, fp, now, period } = call;
  const since = new Date(now.getTime() - REPEAT_WINDOW_MS);
  const [row]: [AdmitRow?] = await sql`
    with k as (${keyRows}),
    v as (select version from data_version),
    ok as (
      select k.account_id, k.slot, ${planLimit(sql, sql`k.plan`)} as lim from k
      where k.revoked_by is null and k.found
        and ${planRank(sql, sql`k.plan`)} >= ${PLAN_RANK[operation.plan]}::int
    ),
    prior as (
      select ok.*, exists (select 1 from call_repeats r where r.account_id = ok.account_id
          and r.fingerprint = ${fp} and r.data_version = (select version from v)
          and r.at > ${since}) as fresh,
        coalesce((select c.used < ok.lim from usage_counters c
          where c.account_id = ok.account_id and c.period = ${period}), true) as room
      from ok
    ),
    claim as (
      insert into call_repeats as c (account_id, fingerprint, data_version, at)
      select account_id, ${fp}, (select version from v), ${now} from prior
      where not fresh and room
      on conflict (account_id, fingerprint) do update
        set data_version = excluded.data_version, at = excluded.at
        where c.data_version <> excluded.data_version or c.at <= ${since}
      returning account_id
    ),
    p as (select prior.*, fresh or (room and not exists (select 1 from claim)) as repeat from prior),
    charged as (
      insert into usage_counters as u (account_id, period, used, day, today, repeats)
      select account_id, ${period}, case when repeat then 0 else 1 end, ${dayOf(now)},
        case when repeat then '{}'::jsonb else jsonb_build_object(slot, 1) end,
        case when repeat then 1 else 0 end
      from p
      on conflict (account_id, period) do update set ${chargeUpdate(sql)},
        repeats = u.repeats + excluded.repeats
        where excluded.used = 0 or u.used < (select lim from p)
      returning used
    )
    select k.*, coalesce((select not repeat from p), false)
        and (select used from charged) is not null as charged,
      coalesce((select repeat from p), false) as repeat,
      coalesce((select used from charged), (select used from usage_counters
        where account_id = k.account_id and period = ${period}), 0) as used,
      (select version::float8 from v) as data_version,
      case when exists (select 1 from claim) and (select used from charged) is null
        then admission_raced() end as raced
    from k`;
  return row;
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
  fingerprint?: string,
): Promise<number | undefined> {
  // A failed call makes no repeat free: its claim goes first (its own statement, so that no
  // statement holds the counter row while waiting for a claim).
  if (fingerprint) {
    const claim = { accountId: caller.accountId, fingerprint, at: chargedAt };
    await forgetCall(sql, claim).catch(() => {});
  }
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
