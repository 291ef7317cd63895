/**
 * Admission in groups: the calls that need only the key, the plan and the quota (no existence
 * check, no prefetch: a cached answer, most MCP calls) and that arrive while other admissions are
 * in flight are admitted together, in one statement and one commit, instead of one write
 * transaction each. A charge is a write, and under load the writes were what a cached answer cost
 * beside a plain read (bench/results/LISTS.md): a group of n calls costs one of them.
 *
 * Each call is still found, checked and charged exactly as alone (admission.ts): an account is
 * charged for its calls of the group only when all of them fit under its limit, in one update of
 * its counter row; when they do not, none is charged there and each of those calls is admitted
 * alone afterwards, so that the 429 falls exactly at the limit. Counter rows are locked in the
 * order of their account, so that two groups never wait on each other in a cycle. A group is
 * sent when fewer than IN_FLIGHT admissions are running; a call arriving at an idle server goes
 * at once, alone, by the single statement, as before (no waiting for company).
 */
import type { Sql } from "../db/open.ts";
import { dayOf, periodOf } from "../platform/plans.ts";
import { apiKeyRows, type KeyRow } from "../accounts/credentials.ts";
import { chargeUpdate, planLimit, planRank } from "./counter_sql.ts";
import type { Surface } from "./usage.ts";
import type { AdmissionCounts } from "../platform/metrics.ts";
import { ADMISSION_RACED, REPEAT_WINDOW_MS } from "./repeats.ts";

/** What an admission statement reads for a call (admission.ts's AdmitRow). */
export type GroupRow = KeyRow & {
  found: boolean;
  charged: boolean;
  /** True when the call repeats a claimed one (not charged, counted in `repeats`). */
  repeat?: boolean;
  /** After the charge when charged, else the count as it stands. */
  used: number;
};

/** A call waiting for a group: its key's digest, what it costs and needs, and its clock. */
export interface GroupCall {
  hash: string;
  surface: Surface;
  cost: 0 | 1;
  /** PLAN_RANK of the operation's plan. */
  need: number;
  now: Date;
  /** The call's fingerprint (repeats.ts), when a repeat of it is free. */
  fp?: string;
}

/** The admission of one call alone (admission.ts's single statement). */
export type Alone = () => Promise<GroupRow | undefined>;

interface Waiting {
  call: GroupCall;
  day: string;
  alone: Alone;
  resolve(row: GroupRow | undefined): void;
  reject(error: unknown): void;
}

/** Admissions running at once before the next calls wait to go together. */
const IN_FLIGHT = 4;
/** Calls of one group at most (the arrays of one statement). */
const GROUP_MAX = 200;

/** PostgreSQL's deadlock_detected. */
const DEADLOCK = "40P01";

/** Groups sent, the calls they admitted, and those that deadlocked (for /metrics and tests). */
export type GroupStats = AdmissionCounts;

class AdmissionGroups {
  #running = 0;
  #waiting: Waiting[] = [];
  readonly stats: GroupStats = { groups: 0, calls: 0, deadlocks: 0 };
  #inFlight = IN_FLIGHT;

  /** Admissions running at once before the next calls wait to go together (tests change it). */
  get inFlight(): number {
    return this.#inFlight;
  }

  set inFlight(n: number) {
    this.#inFlight = n;
    this.#pump();
  }

  /** Calls waiting for a group. */
  get waiting(): number {
    return this.#waiting.length;
  }

  constructor(readonly sql: Sql) {}

  admit(call: GroupCall, alone: Alone): Promise<GroupRow | undefined> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ call, day: dayOf(call.now), alone, resolve, reject });
      this.#pump();
    });
  }

  #pump(): void {
    while (this.#running < this.#inFlight && this.#waiting.length > 0) {
      // One group is one day (and so one month): the charge files the day's counts.
      const day = this.#waiting[0].day;
      const group: Waiting[] = [];
      const rest: Waiting[] = [];
      for (const w of this.#waiting) {
        (w.day === day && group.length < GROUP_MAX ? group : rest).push(w);
      }
      this.#waiting = rest;
      this.#running++;
      this.#send(group).finally(() => {
        this.#running--;
        this.#pump();
      });
    }
  }

  async #send(group: Waiting[]): Promise<void> {
    if (group.length === 1) {
      const [w] = group;
      await w.alone().then(w.resolve, w.reject);
      return;
    }
    let rows: Map<number, GroupRow & { alone: boolean }>;
    try {
      rows = await admitGroup(this.sql, group.map((w) => w.call));
      this.stats.groups++;
      this.stats.calls += group.length;
    } catch (error) {
      // A deadlock with a statement that locks counter rows in another order (none of the
      // service's does), or a claim whose account the quota then refused (admission_raced):
      // each call is admitted alone instead of failing.
      const code = (error as { code?: string }).code;
      if (code !== DEADLOCK && code !== ADMISSION_RACED) {
        for (const w of group) w.reject(error);
        return;
      }
      this.stats.deadlocks++;
      rows = new Map(group.map((_, i) => [i + 1, { alone: true } as GroupRow & { alone: true }]));
    }
    await Promise.all(group.map((w, i) => {
      const row = rows.get(i + 1);
      // Over the account's limit as a group: admitted alone, so that exactly the calls that fit
      // are charged.
      if (row?.alone) return w.alone().then(w.resolve, w.reject);
      w.resolve(row);
      return undefined;
    }));
  }
}

const groupsBySql = new WeakMap<Sql, AdmissionGroups>();

/** The groups of one pool (one per Sql, so that a group never mixes databases). */
export function admissionGroups(sql: Sql): AdmissionGroups {
  let groups = groupsBySql.get(sql);
  if (!groups) groupsBySql.set(sql, groups = new AdmissionGroups(sql));
  return groups;
}

/**
 * One statement for a group of API-key calls of one day: finds each key, charges each account
 * for its chargeable calls when they all fit under its limit (the counts per key and surface
 * filed in `today`, as the single statement does), and reads the data version. Returns a row per
 * found call, by its place in the group (from 1); a call whose account did not fit is marked
 * `alone`.
 *
 * A call with a fingerprint (repeats.ts) is a repeat, free, when its account's claim of it is in
 * the snapshot at the data version and within the window, or when it is not the first call of
 * its account and fingerprint in the group; the first is claimed (in the order of account and
 * fingerprint, before any counter row, as admission.ts's statement does) and charged. An account
 * is charged only when its new calls fit in the snapshot; when its counter, locked, then turns
 * out full, admission_raced() rolls the claims back with the statement (the group goes alone).
 */
async function admitGroup(
  sql: Sql,
  calls: GroupCall[],
): Promise<Map<number, GroupRow & { alone: boolean }>> {
  const now = calls[0].now;
  const period = periodOf(now);
  const since = new Date(now.getTime() - REPEAT_WINDOW_MS);
  const rows = await sql<(GroupRow & { n: number; alone: boolean })[]>`
    with r as (
      select * from unnest(${calls.map((c) => c.hash)}::text[],
        ${calls.map((c) => c.surface)}::text[], ${calls.map((c) => c.cost)}::int[],
        ${calls.map((c) => c.need)}::int[], ${calls.map((c) => c.fp ?? null)}::text[])
        with ordinality as r(hash, surface, cost, need, fp, n)
    ),
    v as (select version from data_version),
    k as (
      select r.n, r.cost, r.need, r.fp, c.*, c.key_id::text || ':' || r.surface as slot,
        ${planRank(sql, sql`c.plan`)} as rank, ${planLimit(sql, sql`c.plan`)} as lim
      from r cross join lateral (${apiKeyRows(sql, sql`r.hash`)}) c
    ),
    c0 as (
      select k.*, k.fp is not null and exists (select 1 from call_repeats x
          where x.account_id = k.account_id and x.fingerprint = k.fp
            and x.data_version = (select version from v) and x.at > ${since}) as fresh,
        k.fp is not null and k.n <> min(k.n) over (partition by k.account_id, k.fp) as later
      from k where cost > 0 and revoked_by is null and rank >= need
    ),
    -- The calls that would be charged: without a fingerprint, or the first of theirs, not fresh.
    new as (select * from c0 where not fresh and not later),
    room as (
      select account_id, count(*)::int + coalesce((select u.used from usage_counters u
          where u.account_id = new.account_id and u.period = ${period}), 0) <= min(lim) as fits
      from new group by account_id
    ),
    claim as (
      insert into call_repeats as x (account_id, fingerprint, data_version, at)
      select new.account_id, new.fp, (select version from v), ${now}
      from new join room using (account_id)
      where new.fp is not null and room.fits
      order by new.account_id, new.fp
      on conflict (account_id, fingerprint) do update
        set data_version = excluded.data_version, at = excluded.at
        where x.data_version <> excluded.data_version or x.at <= ${since}
      returning account_id, fingerprint
    ),
    c as (
      -- In an account that fits, every call of a fingerprint but its claimant is a repeat, and
      -- so is the claimant when a concurrent claim of it committed first (the claim conflicted).
      select c0.*, c0.fresh or (c0.fp is not null and coalesce(room.fits, false)
          and (c0.later or not exists (select 1 from claim x
            where x.account_id = c0.account_id and x.fingerprint = c0.fp))) as repeat
      from c0 left join room using (account_id)
    ),
    want as (
      select account_id, coalesce(sum(calls) filter (where not repeat), 0)::int as calls,
        coalesce(sum(calls) filter (where repeat), 0)::int as repeats, min(lim) as lim,
        coalesce(jsonb_object_agg(slot, calls) filter (where not repeat), '{}') as today
      from (select account_id, lim, slot, repeat, count(*)::int as calls from c
        group by account_id, lim, slot, repeat) s
      group by account_id
    ),
    charged as (
      -- An account whose new calls did not fit in the snapshot is not charged here: alone.
      insert into usage_counters as u (account_id, period, used, day, today, repeats)
      select want.account_id, ${period}, calls, ${dayOf(now)}, today, repeats
      from want left join room using (account_id)
      where calls <= lim and coalesce(room.fits, true)
      order by want.account_id
      on conflict (account_id, period) do update set ${chargeUpdate(sql)},
        repeats = u.repeats + excluded.repeats
        where excluded.used = 0
          or u.used + excluded.used <= (select w.lim from want w where w.account_id = u.account_id)
      returning account_id, used
    ),
    raced as (
      select case when exists (select 1 from claim x where not exists
        (select 1 from charged ch where ch.account_id = x.account_id))
        then admission_raced() end as hit
    )
    select k.n::int, k.key_id, k.prefix, k.revoked_by, k.last_used_at, k.account_id, k.plan,
      k.scope, true as found,
      c.n is not null and not c.repeat and ch.used is not null as charged,
      c.n is not null and c.repeat and ch.used is not null as repeat,
      c.n is not null and ch.used is null as alone,
      -- A call's count is the counter after the charged calls of its account before it.
      coalesce(
        case when c.n is not null then ch.used - (select count(*) from c c2
          where c2.account_id = k.account_id and c2.n > k.n and not c2.repeat)::int end,
        ch.used,
        (select used from usage_counters where account_id = k.account_id
          and period = ${period}),
        0) as used,
      (select version::float8 from v) as data_version,
      (select hit from raced) as raced
    from k left join c on c.n = k.n left join charged ch on ch.account_id = k.account_id`;
  return new Map(rows.map((row) => [row.n, row]));
}
