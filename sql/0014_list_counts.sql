-- Counts that never scan: the exact total of a list without `q` is a sum over small
-- summary tables that the triggers below keep in step with every insert, update and delete of
-- opportunities, in the writing statement's own transaction (so a reader sees the counts of the
-- rows it sees). At 1,000,000 rows an unseen filter's count(*) took 522 ms (an index-only scan of
-- a quarter of the count index per worker); a sum over at most a few thousand rows takes well
-- under a millisecond.
--
-- Three granularities, because a sum is only cheap over few rows and each filter narrows a
-- different key (src/catalog/counts.ts chooses):
-- - opportunity_counts_by_platform: no channel and no category (the common lists); a few thousand
--   rows at most (platform x recommendation x score x online).
-- - opportunity_counts_by_theme: a category (its themes) without a channel; read by theme_id.
--   Themes, not categories, because an import may move a theme to another category: the
--   category is joined when counting.
-- - opportunity_counts: every filter column; read by channel_name (a channel is a narrow key).
-- Rows whose count fell to 0 stay (their number is bounded by the combinations that ever
-- existed) and add nothing to a sum.

create table opportunity_counts (
  channel_name text not null,
  theme_id integer not null,
  platform text not null,
  recommendation text not null,
  score smallint not null,
  is_online_deliverable boolean not null,
  n bigint not null
);
-- The key holds the channel's digest, not the channel: a channel and a platform may each take
-- 2,000 bytes (500 four-byte characters), and both in one index row would pass PostgreSQL's
-- 2,704-byte limit (the import of such a record would fail). A lookup by channel compares the
-- digest (the index) and the name (the row).
create unique index opportunity_counts_key on opportunity_counts
  (md5(channel_name), theme_id, platform, recommendation, score, is_online_deliverable);

create table opportunity_counts_by_theme (
  theme_id integer not null,
  platform text not null,
  recommendation text not null,
  score smallint not null,
  is_online_deliverable boolean not null,
  n bigint not null,
  primary key (theme_id, platform, recommendation, score, is_online_deliverable)
);

create table opportunity_counts_by_platform (
  platform text not null,
  recommendation text not null,
  score smallint not null,
  is_online_deliverable boolean not null,
  n bigint not null,
  primary key (platform, recommendation, score, is_online_deliverable)
);

-- The changes of one statement, netted by key (an update that leaves the filter columns alone
-- nets to nothing and writes nothing), added to the three tables in one statement. The keys are
-- sorted, so that two writers lock the rows they share in the same order. `source` is the
-- statement's transition rows with +1 (new) or -1 (old). The trigger function runs the statement
-- itself (EXECUTE sees only the transition tables of the function that runs it).
create function opportunity_counts_statement(source text) returns text language sql immutable
as $$
  select format($sql$
    with d as materialized (
      select channel_name, theme_id, platform, recommendation, score, is_online_deliverable,
        sum(delta)::bigint as n
      from (%s) c
      group by 1, 2, 3, 4, 5, 6 having sum(delta) <> 0
    ),
    by_platform as (
      insert into opportunity_counts_by_platform as t
        (platform, recommendation, score, is_online_deliverable, n)
      select platform, recommendation, score, is_online_deliverable, sum(n)::bigint
      from d group by 1, 2, 3, 4 order by 1, 2, 3, 4
      on conflict (platform, recommendation, score, is_online_deliverable)
      do update set n = t.n + excluded.n
    ),
    by_theme as (
      insert into opportunity_counts_by_theme as t
        (theme_id, platform, recommendation, score, is_online_deliverable, n)
      select theme_id, platform, recommendation, score, is_online_deliverable, sum(n)::bigint
      from d group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5
      on conflict (theme_id, platform, recommendation, score, is_online_deliverable)
      do update set n = t.n + excluded.n
    )
    insert into opportunity_counts as t
      (channel_name, theme_id, platform, recommendation, score, is_online_deliverable, n)
    select * from d order by 1, 2, 3, 4, 5, 6
    on conflict (md5(channel_name), theme_id, platform, recommendation, score,
      is_online_deliverable)
    do update set n = t.n + excluded.n
  $sql$, source)
$$;

create function opportunity_counts_changed() returns trigger language plpgsql as $$
declare
  cols constant text := 'channel_name, theme_id, platform, recommendation, score, ' ||
    'is_online_deliverable';
begin
  if TG_OP = 'INSERT' then
    execute opportunity_counts_statement(format('select %s, 1 as delta from new_rows', cols));
  elsif TG_OP = 'DELETE' then
    execute opportunity_counts_statement(format('select %s, -1 as delta from old_rows', cols));
  else
    execute opportunity_counts_statement(format(
      'select %s, 1 as delta from new_rows union all select %s, -1 from old_rows', cols, cols));
  end if;
  return null;
end $$;

create function opportunity_counts_truncated() returns trigger language plpgsql as $$
begin
  delete from opportunity_counts;
  delete from opportunity_counts_by_theme;
  delete from opportunity_counts_by_platform;
  return null;
end $$;

insert into opportunity_counts
  (channel_name, theme_id, platform, recommendation, score, is_online_deliverable, n)
select channel_name, theme_id, platform, recommendation, score, is_online_deliverable, count(*)
from opportunities group by 1, 2, 3, 4, 5, 6;

insert into opportunity_counts_by_theme
  (theme_id, platform, recommendation, score, is_online_deliverable, n)
select theme_id, platform, recommendation, score, is_online_deliverable, sum(n)::bigint
from opportunity_counts group by 1, 2, 3, 4, 5;

insert into opportunity_counts_by_platform
  (platform, recommendation, score, is_online_deliverable, n)
select platform, recommendation, score, is_online_deliverable, sum(n)::bigint
from opportunity_counts group by 1, 2, 3, 4;

create trigger opportunity_counts_insert after insert on opportunities
  referencing new table as new_rows
  for each statement execute function opportunity_counts_changed();
create trigger opportunity_counts_update after update on opportunities
  referencing old table as old_rows new table as new_rows
  for each statement execute function opportunity_counts_changed();
create trigger opportunity_counts_delete after delete on opportunities
  referencing old table as old_rows
  for each statement execute function opportunity_counts_changed();
create trigger opportunity_counts_truncate after truncate on opportunities
  for each statement execute function opportunity_counts_truncated();
