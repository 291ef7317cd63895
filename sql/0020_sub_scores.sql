-- Filters and orders on the four sub-scores (min_pain_point_intensity, min_willingness_to_pay,
-- max_tech_difficulty, min_sustainability; sort=pain_point_intensity|willingness_to_pay|
-- tech_difficulty|sustainability), counted and paged like the other filters
-- (docs/architecture.md, "Lists at a million rows"; src/catalog/sub_scores.ts).

-- Watches keep the sub-score filters of their query beside the others (src/watches/matching.ts).
alter table watches
  add column min_pain_point_intensity smallint,
  add column min_willingness_to_pay smallint,
  add column max_tech_difficulty smallint,
  add column min_sustainability smallint;

-- The values an import's updates had before it, sub-scores included, for the watches' "new
-- match" rule (sql/0009_watch_batches.sql; the temporary table is made by the import).
create or replace function watch_changes_updated() returns trigger language plpgsql as $$
begin
  if to_regclass('pg_temp.watch_changes') is null then
    return null;
  end if;
  insert into pg_temp.watch_changes (id, existed, theme_id, score, platform, channel_name,
    recommendation, is_online_deliverable, search, pain_point_intensity,
    willingness_to_pay_score, tech_difficulty, sustainability_score)
  select id, true, theme_id, score, platform, channel_name, recommendation,
    is_online_deliverable, search, pain_point_intensity, willingness_to_pay_score,
    tech_difficulty, sustainability_score
  from previous_rows
  on conflict (id) do nothing;
  return null;
end $$;

-- The exact count of a list with a sub-score filter (and no channel, category or theme), per
-- score for the page's score band: the rows of the platform summary split by the four
-- sub-scores. At 1,000,000 demo rows it holds about 217,000 rows (the sub-scores follow one
-- latent quality and the score follows them), against 1,179 for the platform summary. Its key
-- leads with the online flag and the sub-scores, so that a sum reads only the part of the index
-- its first sub-score bound leaves (an index-only scan: n is in the index).
create table opportunity_counts_by_scores (
  is_online_deliverable boolean not null,
  pain_point_intensity smallint not null,
  willingness_to_pay_score smallint not null,
  tech_difficulty smallint not null,
  sustainability_score smallint not null,
  score smallint not null,
  recommendation text not null,
  platform text not null,
  n bigint not null
);
create unique index opportunity_counts_by_scores_key on opportunity_counts_by_scores
  (is_online_deliverable, pain_point_intensity, willingness_to_pay_score, tech_difficulty,
    sustainability_score, score, recommendation, platform) include (n);

insert into opportunity_counts_by_scores
  (is_online_deliverable, pain_point_intensity, willingness_to_pay_score, tech_difficulty,
    sustainability_score, score, recommendation, platform, n)
select is_online_deliverable, pain_point_intensity, willingness_to_pay_score, tech_difficulty,
  sustainability_score, score, recommendation, platform, count(*)
from opportunities group by 1, 2, 3, 4, 5, 6, 7, 8 order by 1, 2, 3, 4, 5, 6, 7, 8;

-- The statement of sql/0014_list_counts.sql, with the sub-scores in its netted changes and a
-- fourth summary kept from them.
create or replace function opportunity_counts_statement(source text) returns text
language sql immutable as $$
  select format($sql$
    with d as materialized (
      select channel_name, theme_id, platform, recommendation, score, is_online_deliverable,
        pain_point_intensity, willingness_to_pay_score, tech_difficulty, sustainability_score,
        sum(delta)::bigint as n
      from (%s) c
      group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 having sum(delta) <> 0
    ),
    by_platform as (
      insert into opportunity_counts_by_platform as t
        (platform, recommendation, score, is_online_deliverable, n)
      select platform, recommendation, score, is_online_deliverable, sum(n)::bigint
      from d group by 1, 2, 3, 4 having sum(n) <> 0 order by 1, 2, 3, 4
      on conflict (platform, recommendation, score, is_online_deliverable)
      do update set n = t.n + excluded.n
    ),
    by_theme as (
      insert into opportunity_counts_by_theme as t
        (theme_id, platform, recommendation, score, is_online_deliverable, n)
      select theme_id, platform, recommendation, score, is_online_deliverable, sum(n)::bigint
      from d group by 1, 2, 3, 4, 5 having sum(n) <> 0 order by 1, 2, 3, 4, 5
      on conflict (theme_id, platform, recommendation, score, is_online_deliverable)
      do update set n = t.n + excluded.n
    ),
    by_scores as (
      insert into opportunity_counts_by_scores as t
        (is_online_deliverable, pain_point_intensity, willingness_to_pay_score, tech_difficulty,
          sustainability_score, score, recommendation, platform, n)
      select is_online_deliverable, pain_point_intensity, willingness_to_pay_score,
        tech_difficulty, sustainability_score, score, recommendation, platform, sum(n)::bigint
      from d group by 1, 2, 3, 4, 5, 6, 7, 8 having sum(n) <> 0 order by 1, 2, 3, 4, 5, 6, 7, 8
      on conflict (is_online_deliverable, pain_point_intensity, willingness_to_pay_score,
        tech_difficulty, sustainability_score, score, recommendation, platform)
      do update set n = t.n + excluded.n
    )
    insert into opportunity_counts as t
      (channel_name, theme_id, platform, recommendation, score, is_online_deliverable, n)
    select channel_name, theme_id, platform, recommendation, score, is_online_deliverable,
      sum(n)::bigint
    from d group by 1, 2, 3, 4, 5, 6 having sum(n) <> 0 order by 1, 2, 3, 4, 5, 6
    on conflict (md5(channel_name), theme_id, platform, recommendation, score,
      is_online_deliverable)
    do update set n = t.n + excluded.n
  $sql$, source)
$$;

create or replace function opportunity_counts_changed() returns trigger language plpgsql as $$
declare
  cols constant text := 'channel_name, theme_id, platform, recommendation, score, ' ||
    'is_online_deliverable, pain_point_intensity, willingness_to_pay_score, tech_difficulty, ' ||
    'sustainability_score';
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

create or replace function opportunity_counts_truncated() returns trigger language plpgsql as $$
begin
  delete from opportunity_counts;
  delete from opportunity_counts_by_theme;
  delete from opportunity_counts_by_platform;
  delete from opportunity_counts_by_scores;
  return null;
end $$;

-- The sort indexes of sql/0019_list_covering.sql carry the sub-scores too, so that a sub-score
-- filter is checked in the index (an index-only scan) like the other filters, not by reading
-- the table row of every entry walked.

-- Used in: lists with the default online_only=true, in the score order.
drop index opportunities_online_sort_idx;
create index opportunities_online_sort_idx on opportunities (score desc, created_at desc, id desc)
  include (recommendation, platform, theme_id, pain_point_intensity, willingness_to_pay_score,
    tech_difficulty, sustainability_score) where is_online_deliverable;

-- Used in: lists with online_only=false, in the score order.
drop index opportunities_sort_idx;
create index opportunities_sort_idx on opportunities (score desc, created_at desc, id desc)
  include (recommendation, platform, theme_id, is_online_deliverable, pain_point_intensity,
    willingness_to_pay_score, tech_difficulty, sustainability_score);

-- Used in: lists filtered by recommendation, in the score order.
drop index opportunities_recommendation_idx;
create index opportunities_recommendation_idx on opportunities
  (recommendation, score desc, created_at desc, id desc)
  include (platform, theme_id, is_online_deliverable, pain_point_intensity,
    willingness_to_pay_score, tech_difficulty, sustainability_score);

-- Used in: lists in the newest order.
drop index opportunities_online_newest_idx;
create index opportunities_online_newest_idx on opportunities (created_at desc, id desc)
  include (score, recommendation, platform, theme_id, pain_point_intensity,
    willingness_to_pay_score, tech_difficulty, sustainability_score) where is_online_deliverable;
drop index opportunities_newest_idx;
create index opportunities_newest_idx on opportunities (created_at desc, id desc)
  include (score, recommendation, platform, theme_id, is_online_deliverable,
    pain_point_intensity, willingness_to_pay_score, tech_difficulty, sustainability_score);

-- Used in: counts and pages of a category or theme with a sub-score bound: the category's rows
-- are counted in the index (an index-only scan; at 1,000,000 rows 65-120 ms against 210-250 ms
-- reading the table for the sub-score).
drop index opportunities_theme_idx;
create index opportunities_theme_idx on opportunities (theme_id, score desc, created_at desc, id desc)
  include (is_online_deliverable, recommendation, platform, pain_point_intensity,
    willingness_to_pay_score, tech_difficulty, sustainability_score);

-- Used in: lists in a sub-score order (src/catalog/sub_scores.ts): the sub-score, then the score
-- order, every key descending (the difficulty negated: easiest first), carrying the filters.
create index opportunities_pain_sort_idx on opportunities
  (pain_point_intensity desc, score desc, created_at desc, id desc)
  include (recommendation, platform, theme_id, is_online_deliverable, willingness_to_pay_score,
    tech_difficulty, sustainability_score);
create index opportunities_wtp_sort_idx on opportunities
  (willingness_to_pay_score desc, score desc, created_at desc, id desc)
  include (recommendation, platform, theme_id, is_online_deliverable, pain_point_intensity,
    tech_difficulty, sustainability_score);
create index opportunities_easy_sort_idx on opportunities
  ((-tech_difficulty) desc, score desc, created_at desc, id desc)
  include (recommendation, platform, theme_id, is_online_deliverable, pain_point_intensity,
    willingness_to_pay_score, tech_difficulty, sustainability_score);
create index opportunities_sustainability_sort_idx on opportunities
  (sustainability_score desc, score desc, created_at desc, id desc)
  include (recommendation, platform, theme_id, is_online_deliverable, pain_point_intensity,
    willingness_to_pay_score, tech_difficulty);

analyze opportunities, opportunity_counts_by_scores;
