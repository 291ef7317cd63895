-- A narrow table for keyword search: the filter columns of a list query and the `search` vector
-- of each opportunity, kept in step with `opportunities` by the triggers below.
--
-- Why: the exact `total` of a common word (in 850,000 of 1,000,000 rows) must visit the heap page
-- of every matching row, and `opportunities` rows are 2 KB wide (1.5 GB at a million rows), so
-- that count took 2 to 3.5 s. Here a row is about 100 bytes: the vector is stored out of line,
-- and a bitmap scan of the GIN index never reads it (the index answers a query without phrases
-- exactly), so the same count reads about 120 MB and takes about 0.2 s.
--
-- How the vector is kept out of line: PostgreSQL moves values to the TOAST table only when a row
-- is longer than about 2 KB, and then until it fits `toast_tuple_target`. `toast_pad` makes every
-- row long enough to start that (2,100 characters that compress to about 35 bytes), and the target
-- of 128 bytes then moves the vector out. A plain column would keep the vector in the row.
--
-- Used in: countOpportunities with q, and listOpportunityPage with q when the matches are few
-- (see src/catalog/opportunities.ts).

set local maintenance_work_mem = '256MB';

create table opportunity_search (
  id integer primary key,
  -- Fixed-width columns first, so a row's filter columns are read without walking the others.
  theme_id integer not null,
  score smallint not null,
  is_online_deliverable boolean not null,
  created_at timestamptz not null,
  platform text not null,
  channel_name text not null,
  recommendation text not null,
  toast_pad text not null default repeat('-', 2100),
  search tsvector not null
) with (toast_tuple_target = 128, autovacuum_vacuum_scale_factor = 0.05);

insert into opportunity_search (
  id, theme_id, score, is_online_deliverable, created_at, platform, channel_name,
  recommendation, search)
select id, theme_id, score, is_online_deliverable, created_at, platform, channel_name,
  recommendation, search
from opportunities;

-- Statistics for the planner at once (autovacuum may be off, or late after a million rows).
analyze opportunity_search;

-- Used in: counts and pages with q (online rows, the default).
create index opportunity_search_online_idx on opportunity_search using gin (search)
  with (fastupdate = off) where is_online_deliverable;
-- Used in: counts and pages with q and online_only=false.
create index opportunity_search_idx on opportunity_search using gin (search)
  with (fastupdate = off);

-- Kept in step per statement (an import writes thousands of rows in one statement), from the
-- rows each statement inserted, updated or deleted.
create function opportunity_search_upsert() returns trigger language plpgsql as $$
begin
  insert into opportunity_search (
    id, theme_id, score, is_online_deliverable, created_at, platform, channel_name,
    recommendation, search)
  select id, theme_id, score, is_online_deliverable, created_at, platform, channel_name,
    recommendation, search
  from changed_rows
  on conflict (id) do update set
    theme_id = excluded.theme_id,
    score = excluded.score,
    is_online_deliverable = excluded.is_online_deliverable,
    created_at = excluded.created_at,
    platform = excluded.platform,
    channel_name = excluded.channel_name,
    recommendation = excluded.recommendation,
    search = excluded.search
  -- An update that changed none of these columns (updated_at alone, or an import of the same
  -- data) writes nothing here.
  where (opportunity_search.theme_id, opportunity_search.score,
      opportunity_search.is_online_deliverable, opportunity_search.created_at,
      opportunity_search.platform, opportunity_search.channel_name,
      opportunity_search.recommendation, opportunity_search.search)
    is distinct from (excluded.theme_id, excluded.score, excluded.is_online_deliverable,
      excluded.created_at, excluded.platform, excluded.channel_name, excluded.recommendation,
      excluded.search);
  return null;
end $$;

create function opportunity_search_delete() returns trigger language plpgsql as $$
begin
  delete from opportunity_search s using removed_rows r where s.id = r.id;
  return null;
end $$;

create trigger opportunity_search_insert after insert on opportunities
  referencing new table as changed_rows
  for each statement execute function opportunity_search_upsert();
create trigger opportunity_search_update after update on opportunities
  referencing new table as changed_rows
  for each statement execute function opportunity_search_upsert();
create trigger opportunity_search_delete after delete on opportunities
  referencing old table as removed_rows
  for each statement execute function opportunity_search_delete();
