/**
 * The new matches of every watch after an import or seed, computed inside the writing
 * transaction (so they commit with the data, or not at all) as one set-based statement:
 * - the candidates are the opportunities this transaction wrote (inserted or changed:
 *   `updated_at = now()`, the transaction's timestamp), found through their index;
 * - each active watch is joined with them on its filters, the same rules as the list query of
 *   GET /api/v1/opportunities (catalog/opportunities.ts, listFilter; tests/watches hold the two
 *   to the same answers);
 * - a match is new when the watch never matched that opportunity (watch_matches), so an
 *   opportunity whose score rises into a watch's min_score is new for it, and a watch starts
 *   from its creation: only rows written after it are ever candidates;
 * - the new matches become delivery jobs: one webhook event per 100 opportunities, one e-mail
 *   digest per watch, in the same statement.
 */
import type { Sql } from "../db/open.ts";

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
 * Records the new matches of the rows written by the current transaction and queues their
 * deliveries. Call it inside the import's transaction, after its writes.
 */
export async function recordNewMatches(sql: Sql): Promise<MatchSummary> {
  const [{ active }] = await sql<{ active: boolean }[]>`
    select exists (select 1 from watches where not paused) as active`;
  if (!active) return { matches: 0, jobs: 0 };
  const [row] = await sql<MatchSummary[]>`
    with candidates as materialized (
      select o.id, o.score, o.platform, o.channel_name, o.recommendation,
        o.is_online_deliverable, o.search, c.slug as category
      from opportunities o
      join themes t on t.id = o.theme_id
      join categories c on c.id = t.category_id
      where o.updated_at = now()
    ),
    hits as (
      select w.id as watch_id, x.id as opportunity_id
      from watches w
      join candidates x on (not w.online_only or x.is_online_deliverable)
        and x.score >= w.min_score
        and (w.platform is null or lower(x.platform) = lower(w.platform))
        and (w.channel is null or x.channel_name = w.channel)
        and (w.recommendation is null or x.recommendation = w.recommendation)
        and (w.category is null or x.category = w.category)
        and (w.tsq is null or x.search @@ w.tsq)
      where not w.paused
    ),
    fresh as (
      insert into watch_matches (watch_id, opportunity_id, matched_at)
      select watch_id, opportunity_id, now() from hits
      on conflict do nothing
      returning watch_id, opportunity_id
    ),
    numbered as (
      select watch_id, opportunity_id,
        (row_number() over (partition by watch_id order by opportunity_id) - 1) / ${EVENT_SIZE}
          as chunk
      from fresh
    ),
    webhooks as (
      insert into watch_jobs (watch_id, kind, opportunity_ids, run_at)
      select n.watch_id, 'webhook', array_agg(n.opportunity_id order by n.opportunity_id), now()
      from numbered n
      join watches w on w.id = n.watch_id
      join accounts a on a.id = w.account_id
      where w.webhook_url is not null and w.webhook_disabled_at is null and a.plan <> 'free'
      group by n.watch_id, n.chunk
      returning 1
    ),
    mails as (
      insert into watch_jobs (watch_id, kind, opportunity_ids, run_at)
      select f.watch_id, 'email', array_agg(f.opportunity_id order by f.opportunity_id), now()
      from fresh f
      join watches w on w.id = f.watch_id
      join accounts a on a.id = w.account_id
      where w.email and a.email_verified_at is not null
      group by f.watch_id
      returning 1
    )
    select (select count(*) from fresh)::int as matches,
      ((select count(*) from webhooks) + (select count(*) from mails))::int as jobs`;
  return row;
}
