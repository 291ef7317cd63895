/**
 * What needs no sign-in: a watch's private feed (found by the digest of its token) and the
 * one-click unsubscribe of its e-mail digest (found by the token of its mails).
 */
import type { Sql } from "../db/open.ts";
import { iso } from "../db/rows.ts";
import { listColumns, type ListRow, toListItem } from "../catalog/lists/opportunities.ts";
import type { OpportunityListItem } from "../catalog/schemas.ts";
import { sha256Hex } from "../platform/crypto.ts";
import { feedThemeChanges, type ThemeChange } from "./theme_watches.ts";

/** Entries of a feed at most. */
export const FEED_ENTRIES = 50;

/** A watch's feed: its newest matches first. */
export interface Feed {
  watch: { id: number; name: string; created_at: string };
  entries: (OpportunityListItem & { matched_at: string })[];
  /** The theme status changes of a watch that follows them, newest first. */
  themeChanges: ThemeChange[];
}

/**
 * The feed of the watch whose feed token is `token`, or undefined (a wrong token); `base` is the
 * public base URL of the entries' pages.
 */
export async function readFeed(
  sql: Sql,
  token: string,
  base: string,
): Promise<Feed | undefined> {
  if (!/^oi_feed_[A-Za-z0-9_-]{20,100}$/.test(token)) return undefined;
  const hash = await sha256Hex(token);
  const [watch] = await sql<{ id: number; name: string; created_at: Date }[]>`
    select id, name, created_at from watches where feed_token_hash = ${hash}`;
  if (!watch) return undefined;
  // The newest batches first; a batch's ids are stored highest first, so the head of each of
  // the last FEED_ENTRIES batches holds every entry the feed can show.
  const rows = await sql<(ListRow & { matched_at: Date })[]>`
    select ${listColumns(sql)}, m.matched_at
    from (
      select b.matched_at, b.id as batch_id, u.id, u.n
      from (
        select id, matched_at, opportunity_ids from watch_batches
        where watch_id = ${watch.id}
        order by matched_at desc, id desc
        limit ${FEED_ENTRIES}
      ) b
      cross join lateral unnest(b.opportunity_ids[1:${FEED_ENTRIES}]) with ordinality u(id, n)
    ) m
    join opportunities o on o.id = m.id
    order by m.matched_at desc, m.batch_id desc, m.n
    limit ${FEED_ENTRIES}`;
  return {
    watch: { id: watch.id, name: watch.name, created_at: iso(watch.created_at) },
    entries: rows.map((r) => ({ ...toListItem(r, base), matched_at: iso(r.matched_at) })),
    themeChanges: await feedThemeChanges(sql, watch.id, FEED_ENTRIES),
  };
}

/** The name of the watch whose mails carry `token`, or undefined. */
export async function watchOfEmailToken(
  sql: Sql,
  token: string,
): Promise<{ name: string; email: boolean } | undefined> {
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return undefined;
  const [row] = await sql<{ name: string; email: boolean }[]>`
    select name, email from watches where email_token = ${token}`;
  return row;
}

/** What an unsubscribe did: the watch's name, and whether it is paused for want of a delivery. */
export interface Unsubscribed {
  name: string;
  paused: boolean;
}

/**
 * Stops the e-mail digests of the watch whose mails carry `token` (undefined for no watch). Its
 * other deliveries are left as they are; a watch left with none (no webhook, no feed) is paused,
 * so that it is not left recording matches nobody receives, and the dashboard says why. The feed
 * counts as a delivery: its reader polls it and expects it to keep filling.
 */
export async function unsubscribe(sql: Sql, token: string): Promise<Unsubscribed | undefined> {
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return undefined;
  const [row] = await sql<(Unsubscribed & { id: number })[]>`
    update watches set email = false,
      paused = paused or (webhook_url is null and feed_token_hash is null),
      updated_at = now()
    where email_token = ${token} returning id, name, paused`;
  if (!row) return undefined;
  await sql`
    update watch_jobs set state = 'cancelled', finished_at = now()
    where watch_id = ${row.id} and kind = 'email' and state = 'pending'`;
  return { name: row.name, paused: row.paused };
}
