-- The month's usage records ride on the account's counter row (issue 18's 5% budget): the charge
-- already writes that row, so counting the call for its key, surface and UTC day there costs no
-- second table in the statement (a second table, even untouched, costs the hot statement about
-- as much as the counter's own upsert: bench/FINDINGS.md).
--
-- `today` holds the calls of the UTC day `day` as {"<key_id>:<surface>": calls}. The first charge
-- of another day appends it to `earlier` as {"day": ..., "calls": {...}} and starts `today`
-- afresh (a day can be filed twice when instances' clocks disagree around midnight: the report
-- adds the filings up). `earlier` is rewritten only then, so every other charge copies it
-- unchanged. usage_daily keeps the records written before this migration.
alter table usage_counters
  add column day date,
  add column today jsonb not null default '{}',
  add column earlier jsonb not null default '[]';

-- Every usage record, one row per (account, key, surface, day) and source: usage_daily, each
-- counter row's current day, and the days it filed. Read by the usage report (GET
-- /api/v1/usage, get_usage, the dashboard), which sums them.
create view usage_records as
  select account_id, key_id, surface, day, calls from usage_daily
  union all
  select u.account_id, split_part(t.key, ':', 1)::integer, split_part(t.key, ':', 2), u.day,
    t.value::integer
  from usage_counters u cross join lateral jsonb_each_text(u.today) t
  where u.day is not null
  union all
  select u.account_id, split_part(t.key, ':', 1)::integer, split_part(t.key, ':', 2),
    (f.value ->> 'day')::date, t.value::integer
  from usage_counters u cross join lateral jsonb_array_elements(u.earlier) f
    cross join lateral jsonb_each_text(f.value -> 'calls') t;
