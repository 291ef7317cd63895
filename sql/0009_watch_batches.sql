-- Watches (issue 17): the new matches of an import are kept as ONE row per watch and import (an
-- array of opportunity ids) instead of one row per match, and are computed from the rows the
-- import changed alone, compared with their values before it.
--
-- Why: with a row per match (watch_matches) the matching wrote 1.5 million rows when 1,000 broad
-- watches met an import of 10,000 rows (133 s at 50,000 rows), and "not delivered before" was a
-- lookup in everything ever matched. Now an opportunity is new for a watch when it matches the
-- watch's query now and did not match it with its values before the import (a row the import
-- inserted had none), so the cost is bounded by (rows changed by the import) x (watches).
--
-- How the values before the import are known: the import creates the temporary table
-- watch_changes (src/watches/matching.ts) and the triggers below fill it from the statements'
-- transition tables: the id of every inserted row, and the filter columns of every updated row as
-- they were before its first update in the transaction. Without that table (any other writer,
-- or an import while no watch is active) the triggers do nothing.

create table watch_batches (
  id bigint generated always as identity primary key,
  watch_id integer not null references watches (id) on delete cascade,
  matched_at timestamptz not null,
  -- The new matches of one import, highest id first, so that the feed's newest entries are
  -- the head of each array.
  opportunity_ids integer[] not null check (cardinality(opportunity_ids) > 0)
);

-- Used in: the Atom feed (a watch's newest batches first).
create index watch_batches_feed_idx on watch_batches (watch_id, matched_at desc, id desc);

insert into watch_batches (watch_id, matched_at, opportunity_ids)
select watch_id, matched_at, array_agg(opportunity_id order by opportunity_id desc)
from watch_matches
group by watch_id, matched_at
order by matched_at, watch_id;

drop table watch_matches;

-- The matching no longer looks for the rows a transaction wrote by their updated_at.
drop index opportunities_updated_idx;

create function watch_changes_inserted() returns trigger language plpgsql as $$
begin
  if to_regclass('pg_temp.watch_changes') is null then
    return null;
  end if;
  insert into pg_temp.watch_changes (id, existed)
  select id, false from inserted_rows
  on conflict (id) do nothing;
  return null;
end $$;

create function watch_changes_updated() returns trigger language plpgsql as $$
begin
  if to_regclass('pg_temp.watch_changes') is null then
    return null;
  end if;
  -- The first image of a row in the transaction wins: its values before the import (or, for a
  -- row the import inserted, no values at all).
  insert into pg_temp.watch_changes (id, existed, theme_id, score, platform, channel_name,
    recommendation, is_online_deliverable, search)
  select id, true, theme_id, score, platform, channel_name, recommendation,
    is_online_deliverable, search
  from previous_rows
  on conflict (id) do nothing;
  return null;
end $$;

create trigger watch_changes_insert after insert on opportunities
  referencing new table as inserted_rows
  for each statement execute function watch_changes_inserted();
create trigger watch_changes_update after update on opportunities
  referencing old table as previous_rows
  for each statement execute function watch_changes_updated();
