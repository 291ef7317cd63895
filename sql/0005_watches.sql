-- Watches (issue 17): saved list queries that deliver their new matches after every import, by
-- signed webhook, e-mail digest and private Atom feed. A watch remembers which opportunities it
-- has matched (watch_matches), so that "new" means "matches now and never matched before";
-- deliveries are jobs of a queue in this database (watch_jobs, claimed with FOR UPDATE SKIP
-- LOCKED), and every attempt is logged (watch_attempts).

create table watches (
  id integer generated always as identity primary key,
  account_id integer not null references accounts (id) on delete cascade,
  -- The watch's place among the account's (1 to the plan's limit): unique, so that concurrent
  -- creations cannot pass the limit together without a transaction.
  slot smallint not null check (slot >= 1),
  name text not null check (name <> '' and length(name) <= 100),
  -- The list query as validated by the schema of GET /api/v1/opportunities (without page and
  -- page_size), returned as given; the columns below are its filters, for the matching.
  query jsonb not null,
  q text check (q <> ''),
  platform text,
  channel text,
  min_score smallint not null default 0 check (min_score between 0 and 100),
  recommendation text check (recommendation in ('Build', 'Validate', 'Skip')),
  category text,
  online_only boolean not null default true,
  -- The keyword query of q, computed once instead of once per candidate row.
  tsq tsquery generated always as (oi_search_query(q)) stored,
  -- Webhook delivery: the receiver and the Standard Webhooks signing secret (whsec_...), which
  -- the server needs to sign and so keeps as is; disabled after 3 days of failing.
  webhook_url text,
  webhook_secret text,
  webhook_disabled_at timestamptz,
  failing_since timestamptz,
  check ((webhook_url is null) = (webhook_secret is null)),
  -- E-mail digest to the account's address; the token of its no-sign-in unsubscribe link.
  email boolean not null default false,
  email_token text not null unique,
  -- Atom feed: SHA-256 hex digest of the feed token (the token is shown once); null: no feed.
  feed_token_hash text unique check (feed_token_hash ~ '^[0-9a-f]{64}$'),
  paused boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  -- Used in: the watches of an account (listing, the plan's limit).
  unique (account_id, slot)
);

-- Which opportunities each watch has matched, and when: the "not delivered before" of the
-- matching, and the entries of the feed.
create table watch_matches (
  watch_id integer not null references watches (id) on delete cascade,
  opportunity_id integer not null references opportunities (id) on delete cascade,
  matched_at timestamptz not null,
  primary key (watch_id, opportunity_id)
);

-- Used in: the Atom feed (a watch's newest matches first).
create index watch_matches_feed_idx on watch_matches (watch_id, matched_at desc, opportunity_id desc);
-- Used in: deleting an opportunity (the foreign key's cascade).
create index watch_matches_opportunity_idx on watch_matches (opportunity_id);

-- Used in: the new matches after an import (the rows its transaction wrote, updated_at = now()).
create index opportunities_updated_idx on opportunities (updated_at);

-- The delivery queue. A job is one webhook event (up to 100 opportunities), one e-mail digest
-- or one notice to the owner; a worker claims due jobs with FOR UPDATE SKIP LOCKED and leases
-- them until locked_until, so a job whose worker died is claimed again after its lease.
create table watch_jobs (
  id bigint generated always as identity primary key,
  watch_id integer not null references watches (id) on delete cascade,
  kind text not null check (kind in ('webhook', 'email', 'disabled_notice')),
  opportunity_ids integer[] not null default '{}',
  -- The event as first sent, so that every retry sends the same bytes under the same id.
  payload text,
  state text not null default 'pending' check (state in ('pending', 'done', 'dead', 'cancelled')),
  attempts integer not null default 0 check (attempts >= 0),
  run_at timestamptz not null,
  locked_until timestamptz,
  created_at timestamptz not null default now(),
  finished_at timestamptz
);

-- Used in: claiming due jobs (pending, oldest first).
create index watch_jobs_due_idx on watch_jobs (run_at, id) where state = 'pending';
-- Used in: cancelling the pending jobs of a watch, and deleting a watch.
create index watch_jobs_watch_idx on watch_jobs (watch_id) where state = 'pending';

-- Every delivery attempt (and test event), for GET /api/v1/watches/{id}/deliveries.
create table watch_attempts (
  id bigint generated always as identity primary key,
  watch_id integer not null references watches (id) on delete cascade,
  job_id bigint,
  kind text not null check (kind in ('webhook', 'email', 'disabled_notice', 'test')),
  attempt integer not null,
  attempted_at timestamptz not null,
  ok boolean not null,
  status_code integer,
  error text,
  duration_ms integer not null check (duration_ms >= 0)
);

-- Used in: the last 100 attempts of a watch, newest first.
create index watch_attempts_watch_idx on watch_attempts (watch_id, id desc);
