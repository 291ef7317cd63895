/**
 * The new matches of every watch after an import or seed, computed inside the writing
 * transaction (so they commit with the data, or not at all) from the rows that transaction
 * changed, never from the whole table:
 * - `startChangeCapture` (at the start of the import) creates the temporary table
 *   watch_changes; triggers on opportunities (sql/0009_watch_batches.sql) record in it the id of
 *   every row the transaction inserts and the filter columns of every row it updates, as they
 *   were before its first update;
 * - `recordNewMatches` (at the end) joins each active watch with those rows on its filters, the
 *   same rules as the list query of GET /api/v1/opportunities (catalog/lists/opportunities.ts,
 *   listFilter; tests/watches hold the two to the same answers). A row is new for a watch when
 *   it matches now and did not match with its values before the import: an inserted row that
 *   matches, an existing row whose score rises into the watch's min_score (or whose title gains
 *   its word), never a matching row that merely changed. A watch starts from its creation: the
 *   rows that matched before are never candidates until they change;
 * - each watch with new matches gets ONE batch (watch_batches: the ids as one array), and its
 *   delivery jobs: one webhook event per 100 opportunities, one e-mail digest, in the same
 *   statement. The cost is bounded by (rows changed) x (watches), whatever was matched before.
 */
import type { Sql } from "../db/open.ts";
import { overPlanLimit } from "./plan_limit.ts";

/** Opportunities of one webhook event at most. */
export const EVENT_SIZE = 100;

/** What the matching of one import found. */
export interface MatchSummary {
  /** New (watch, opportunity) matches. */
  matches: number;
  /** Delivery jobs queued for them. */
  jobs: number;
}

/**
 * Starts recording the opportunities the current transaction inserts or updates, with their
 * values before it, when any watch is active (else nothing is recorded, and a watch created
 * during the import starts after it). Call it inside the import's transaction, before its
 * writes; returns whether it records.
 */
export async function startChangeCapture(sql: Sql): Promise<boolean> {
  const [{ active, started }] = await sql<{ active: boolean; started: boolean }[]>`
    select exists (select 1 from watches where not paused) as active,
      to_regclass('pg_temp.watch_changes') is not null as started`;
  if (!active || started) return started;
  await sql`
    create temporary table watch_changes (
      id integer primary key,
      existed boolean not null,
      theme_id integer,
      score smallint,
      platform text,
      channel_name text,
      recommendation text,
      is_online_deliverable boolean,
      search tsvector,
      pain_point_intensity smallint,
      willingness_to_pay_score smallint,
      tech_difficulty smallint,
      sustainability_score smallint
    ) on commit drop`;
  return true;
}

/** The columns of `changed` that hold a row's values now, and before the import. */
const NOW = {
  online: "is_online_deliverable",
  score: "score",
  platform: "platform",
  channel: "channel_name",
  recommendation: "recommendation",
  category: "category",
  theme: "theme",
  search: "search",
  pain: "pain_point_intensity",
  wtp: "willingness_to_pay_score",
  tech: "tech_difficulty",
  sustainability: "sustainability_score",
};
const BEFORE = {
  online: "old_online",
  score: "old_score",
  platform: "old_platform",
  channel: "old_channel",
  recommendation: "old_recommendation",
  category: "old_category",
  theme: "old_theme",
  search: "old_search",
  pain: "old_pain",
  wtp: "old_wtp",
  tech: "old_tech",
  sustainability: "old_sustainability",
};

/**
 * True when the changed row `x`, read from `columns`, matches watch `w`'s filters. The theme is
 * read from the stored query itself (as validated), which needs no column of its own.
 */
function watchMatches(sql: Sql, columns: typeof NOW) {
  const x = (column: string) => sql(`x.${column}`);
  return sql`(not w.online_only or ${x(columns.online)})
    and ${x(columns.score)} >= w.min_score
    and (w.platform is null or lower(${x(columns.platform)}) = lower(w.platform))
    and (w.channel is null or ${x(columns.channel)} = w.channel)
    and (w.recommendation is null or ${x(columns.recommendation)} = w.recommendation)
    and (w.category is null or ${x(columns.category)} = w.category)
    and (w.tsq is null or ${x(columns.search)} @@ w.tsq)
    and (w.min_pain_point_intensity is null or ${x(columns.pain)} >= w.min_pain_point_intensity)
    and (w.min_willingness_to_pay is null or ${x(columns.wtp)} >= w.min_willingness_to_pay)
    and (w.max_tech_difficulty is null or ${x(columns.tech)} <= w.max_tech_difficulty)
    and (w.min_sustainability is null or ${x(columns.sustainability)} >= w.min_sustainability)
    and (w.query->>'theme' is null or ${x(columns.theme)} = w.query->>'theme')`;
}

/**
 * Records the new matches of the rows changed since `startChangeCapture` and queues their
 * deliveries. Call it inside the import's transaction, after its writes.
 */
export async function recordNewMatches(sql: Sql): Promise<MatchSummary> {
  const [{ capturing }] = await sql<{ capturing: boolean }[]>`
    select to_regclass('pg_temp.watch_changes') is not null as capturing`;
  if (!capturing) return { matches: 0, jobs: 0 };
  // The changed rows are few (an import's worth); the watches at most a few thousand: every
  // pair is checked once, with the vectors held in memory rather than read again per watch.
  await sql`set local work_mem = '64MB'`;
  const [row] = await sql<MatchSummary[]>`
    with changed as materialized (
      select o.id, o.score, o.platform, o.channel_name, o.recommendation,
        o.is_online_deliverable, o.search, c.slug as category, t.slug as theme,
        x.existed, x.score as old_score, x.platform as old_platform,
        x.channel_name as old_channel, x.recommendation as old_recommendation,
        x.is_online_deliverable as old_online, x.search as old_search, oc.slug as old_category,
        o.pain_point_intensity, o.willingness_to_pay_score, o.tech_difficulty,
        o.sustainability_score, x.pain_point_intensity as old_pain,
        x.willingness_to_pay_score as old_wtp, x.tech_difficulty as old_tech,
        x.sustainability_score as old_sustainability,
        ot.slug as old_theme
      from pg_temp.watch_changes x
      join opportunities o on o.id = x.id
      join themes t on t.id = o.theme_id
      join categories c on c.id = t.category_id
      left join themes ot on ot.id = x.theme_id
      left join categories oc on oc.id = ot.category_id
    ),
    hits as (
      select w.id as watch_id, x.id as opportunity_id
      from watches w
      join changed x on ${watchMatches(sql, NOW)}
      where not w.paused and not ${overPlanLimit(sql, "w")} and w.created_at <= now()
        -- Not new when the row matched the same query with its values before the import.
        and not (x.existed and coalesce(${watchMatches(sql, BEFORE)}, false))
    ),
    batches as (
      insert into watch_batches (watch_id, matched_at, opportunity_ids)
      select watch_id, now(), array_agg(opportunity_id order by opportunity_id desc)
      from hits
      group by watch_id
      returning watch_id, opportunity_ids
    ),
    webhooks as (
      insert into watch_jobs (watch_id, kind, opportunity_ids, run_at)
      select b.watch_id, 'webhook',
        b.opportunity_ids[k * ${EVENT_SIZE} + 1 : (k + 1) * ${EVENT_SIZE}], now()
      from batches b
      join watches w on w.id = b.watch_id
      join accounts a on a.id = w.account_id
      cross join generate_series(0, (cardinality(b.opportunity_ids) - 1) / ${EVENT_SIZE}) k
      where w.webhook_url is not null and w.webhook_disabled_at is null and a.plan <> 'free'
      returning 1
    ),
    mails as (
      insert into watch_jobs (watch_id, kind, opportunity_ids, run_at)
      select b.watch_id, 'email', b.opportunity_ids, now()
      from batches b
      join watches w on w.id = b.watch_id
      join accounts a on a.id = w.account_id
      where w.email and a.email_verified_at is not null
      returning 1
    )
    select coalesce((select sum(cardinality(opportunity_ids)) from batches), 0)::int as matches,
      ((select count(*) from webhooks) + (select count(*) from mails))::int as jobs`;
  return row;
}
