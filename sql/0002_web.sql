-- The account area of the web: e-mailed single-use tokens, browser sessions, and the counters
-- that rate-limit the mails. Every secret is stored only as its SHA-256 hex digest.

create table web_tokens (
  token_hash text primary key check (token_hash ~ '^[0-9a-f]{64}$'),
  account_id integer not null references accounts (id) on delete cascade,
  -- 'verify' proves the address (and signs in); 'signin' signs a verified account in.
  purpose text not null check (purpose in ('verify', 'signin')),
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  used_at timestamptz
);

-- Used in: issuing a token (older unused tokens of the account are dropped).
create index web_tokens_account_idx on web_tokens (account_id, purpose);
-- Used in: the clean-up of expired tokens.
create index web_tokens_expires_idx on web_tokens (expires_at);

create table web_sessions (
  token_hash text primary key check (token_hash ~ '^[0-9a-f]{64}$'),
  account_id integer not null references accounts (id) on delete cascade,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);

-- Used in: the clean-up of expired sessions.
create index web_sessions_expires_idx on web_sessions (expires_at);

-- One row per bucket (e.g. mails to one address, from one IP) per fixed window.
create table web_rate_limits (
  bucket text not null,
  window_start timestamptz not null,
  hits integer not null default 0 check (hits >= 0),
  primary key (bucket, window_start)
);

-- Used in: the clean-up of past windows.
create index web_rate_limits_window_idx on web_rate_limits (window_start);
