-- Watches on themes (src/watches/theme_watches.ts): a watch may follow the status
-- changes of the themes of its query's category (every theme without one): every change
-- ('any') or only the changes to one status. The changes of an import are delivered once per
-- watch, by the same jobs (webhook events, e-mail digests: a job with change_ids) and the feed.

alter table watches add column theme_status text
  check (theme_status in ('any', 'emerging', 'rising', 'steady', 'peaked', 'declining'));

-- The status changes a job delivers (theme_status_changes ids); empty for a job of opportunities.
alter table watch_jobs add column change_ids bigint[] not null default '{}';

-- The status changes each watch was given, one row per watch and import (as watch_batches).
create table theme_watch_batches (
  id bigint generated always as identity primary key,
  watch_id integer not null references watches (id) on delete cascade,
  matched_at timestamptz not null,
  change_ids bigint[] not null check (cardinality(change_ids) > 0)
);

-- Used in: the Atom feed (a watch's newest status changes first).
create index theme_watch_batches_feed_idx on theme_watch_batches (watch_id, matched_at desc, id desc);

-- Used in: the changes of the current import (changed_at = now(), the transaction's start).
create index theme_status_changes_changed_idx on theme_status_changes (changed_at);
