/**
 * Watches on themes: a watch with a `theme_status` follows the status changes of its query's
 * theme, or of the themes of its category (every theme without either), all of them ('any') or
 * only the changes to one status ("tell me when a theme of Finance turns rising"). The changes an import recorded
 * (theme_status_changes, src/ingest/trends.ts) are matched in its transaction, as the new
 * opportunities are (matching.ts): one batch per watch for its feed, one webhook event and one
 * e-mail digest, each a job of the same queue carrying `change_ids`. A change is recorded once,
 * by the import that made it, so it is delivered once per watch. A theme's first status (from
 * none) is not a change.
 */
import type { Sql } from "../db/open.ts";
import { overPlanLimit } from "./plan_limit.ts";
import { TREND_STATUSES } from "../catalog/trend_rule.ts";
import { type WatchMail, watchMail } from "./digest.ts";

/** What a watch may follow: every change, or the changes to one status. */
export const THEME_FOLLOWS = ["any", ...TREND_STATUSES] as const;
export type ThemeFollow = typeof THEME_FOLLOWS[number];

/** One status change, as events, digests and the feed show it. */
export interface ThemeChange {
  id: number;
  theme: { id: number; slug: string; name: string; category: string };
  from_status: string | null;
  to_status: string;
  changed_at: string;
}

/**
 * Records the status changes of the current transaction for every watch that follows them and
 * queues their deliveries; returns the (watch, change) pairs. Call it after the import's
 * recomputation, inside its transaction.
 */
export async function recordThemeChanges(sql: Sql): Promise<number> {
  const [{ n }] = await sql<{ n: number }[]>`
    with changes as (
      select s.id, s.to_status, c.slug as category, t.slug as theme
      from theme_status_changes s
      join themes t on t.id = s.theme_id
      join categories c on c.id = t.category_id
      where s.changed_at = now() and s.from_status is not null
    ),
    hits as (
      select w.id as watch_id, array_agg(x.id order by x.id) as change_ids
      from watches w
      join changes x on (w.category is null or w.category = x.category)
        and (w.query->>'theme' is null or w.query->>'theme' = x.theme)
        and (w.theme_status = 'any' or w.theme_status = x.to_status)
      where w.theme_status is not null and not w.paused and not ${overPlanLimit(sql, "w")}
        and w.created_at <= now()
      group by w.id
    ),
    batches as (
      insert into theme_watch_batches (watch_id, matched_at, change_ids)
      select watch_id, now(), change_ids from hits
      returning watch_id, change_ids
    ),
    webhooks as (
      insert into watch_jobs (watch_id, kind, change_ids, run_at)
      select b.watch_id, 'webhook', b.change_ids, now()
      from batches b
      join watches w on w.id = b.watch_id
      join accounts a on a.id = w.account_id
      where w.webhook_url is not null and w.webhook_disabled_at is null and a.plan <> 'free'
    ),
    mails as (
      insert into watch_jobs (watch_id, kind, change_ids, run_at)
      select b.watch_id, 'email', b.change_ids, now()
      from batches b
      join watches w on w.id = b.watch_id
      join accounts a on a.id = w.account_id
      where w.email and a.email_verified_at is not null
    )
    select coalesce((select sum(cardinality(change_ids)) from batches), 0)::int as n`;
  return n;
}

interface ChangeRow {
  id: string;
  theme_id: number;
  slug: string;
  name: string;
  category: string;
  from_status: string | null;
  to_status: string;
  changed_at: Date;
}

function toChange(r: ChangeRow): ThemeChange {
  return {
    id: Number(r.id),
    theme: { id: r.theme_id, slug: r.slug, name: r.name, category: r.category },
    from_status: r.from_status,
    to_status: r.to_status,
    changed_at: r.changed_at.toISOString(),
  };
}

/** The changes of `ids`, in order. */
export async function themeChangesOf(sql: Sql, ids: (number | string)[]): Promise<ThemeChange[]> {
  const rows = await sql<ChangeRow[]>`
    select s.id::text, t.id as theme_id, t.slug, t.name, c.slug as category, s.from_status,
      s.to_status, s.changed_at
    from theme_status_changes s
    join themes t on t.id = s.theme_id
    join categories c on c.id = t.category_id
    where s.id = any(${ids.map(String)}::bigint[])
    order by s.id`;
  return rows.map(toChange);
}

/** The newest status changes a watch was given, newest first (its feed). */
export async function feedThemeChanges(
  sql: Sql,
  watchId: number,
  limit: number,
): Promise<ThemeChange[]> {
  const rows = await sql<ChangeRow[]>`
    select s.id::text, t.id as theme_id, t.slug, t.name, c.slug as category, s.from_status,
      s.to_status, s.changed_at
    from (
      select distinct unnest(change_ids) as id from (
        select change_ids from theme_watch_batches where watch_id = ${watchId}
        order by matched_at desc, id desc limit ${limit}
      ) b
    ) u
    join theme_status_changes s on s.id = u.id
    join themes t on t.id = s.theme_id
    join categories c on c.id = t.category_id
    order by s.changed_at desc, s.id desc
    limit ${limit}`;
  return rows.map(toChange);
}

/** The digest of an import's status changes, with the same unsubscribe link as a digest. */
export function themeDigestMail(
  watch: { name: string; emailToken: string; to: string },
  changes: ThemeChange[],
  publicBaseUrl: string,
): WatchMail {
  const count = `${changes.length} theme status ${changes.length === 1 ? "change" : "changes"}`;
  return watchMail(watch, count, publicBaseUrl, [
    `${count} for your watch "${watch.name}" in the latest import:`,
    "",
    ...changes.flatMap((c) => [
      `- ${c.theme.name} (${c.theme.category}): ${c.from_status} -> ${c.to_status}`,
      `  ${publicBaseUrl}/account/trends#theme-${c.theme.id}`,
    ]),
  ]);
}
