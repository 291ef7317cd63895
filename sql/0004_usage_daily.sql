-- Who spent the quota: every charged call counted per account, key, surface and UTC day, in
-- the same statement as the charge of usage_counters (so the two always agree), and the
-- usage e-mails of each month with the account's choice to receive them.

create table usage_daily (
  account_id integer not null references accounts (id) on delete cascade,
  key_id integer not null references api_keys (id) on delete cascade,
  surface text not null check (surface in ('rest', 'mcp')),
  day date not null,
  calls integer not null default 0 check (calls >= 0),
  -- Used in: the charge (upsert of one row) and GET /api/v1/usage (an account's month).
  primary key (account_id, day, key_id, surface)
);

-- The 80% and 100% notices: one row per account, month and threshold, so each is sent once.
create table usage_notices (
  account_id integer not null references accounts (id) on delete cascade,
  period date not null check (extract(day from period) = 1),
  threshold integer not null check (threshold in (80, 100)),
  sent_at timestamptz not null default now(),
  primary key (account_id, period, threshold)
);

alter table accounts add column usage_emails boolean not null default true;
