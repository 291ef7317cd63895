-- Today's usage records ride on the account's counter row (issue 18's 5% budget): the charge
-- already writes that row, so counting the call for its key and surface there costs no second
-- row write. `today` holds the calls of the UTC day `day` as {"<key_id>:<surface>": calls}; the
-- first charge of a new day moves the previous day's counts into usage_daily in the same
-- statement. `rolled_over` exists only to carry those counts out of that statement (an upsert's
-- RETURNING sees the new row, not the old one): it is {"day": ..., "calls": {...}} on the row
-- written by the charge that rolled the day over, and null after any other charge.
alter table usage_counters
  add column day date,
  add column today jsonb not null default '{}',
  add column rolled_over jsonb;

-- Every usage record: the finished days of usage_daily and each counter row's current day.
-- Read by the usage report (GET /api/v1/usage, get_usage, the dashboard).
create view usage_records as
  select account_id, key_id, surface, day, calls from usage_daily
  union all
  select u.account_id, split_part(t.key, ':', 1)::integer, split_part(t.key, ':', 2), u.day,
    t.value::integer
  from usage_counters u cross join lateral jsonb_each_text(u.today) t
  where u.day is not null;
