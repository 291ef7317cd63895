-- OAuth 2.1 sign-in for MCP clients (src/accounts/oauth_*.ts): the service is its own
-- authorization server. Every secret (authorization code, access token, refresh token) is
-- stored only as its SHA-256 hex digest, like API keys.

-- Clients: registered through /oauth/register (kind 'registered', a random client_id), or known
-- by a client ID metadata document (kind 'document', the document's https URL is the client_id;
-- the row is the document cache, good until cache_until).
create table oauth_clients (
  client_id text primary key,
  kind text not null check (kind in ('registered', 'document')),
  client_name text not null,
  client_uri text,
  redirect_uris text[] not null,
  created_at timestamptz not null default now(),
  -- A registration unused for 30 days is removed (the last authorization or token refresh).
  last_used_at timestamptz not null default now(),
  cache_until timestamptz
);

-- Used in: the removal of registrations unused for 30 days.
create index oauth_clients_unused_idx on oauth_clients (last_used_at) where kind = 'registered';

-- A grant: one approval of one client by one account, for one resource. Its tokens act for the
-- account; revoking it (owner, admin, or the reuse of a code or rotated refresh token) stops
-- them all at once. client_name and redirect_uri are copied so the listing outlives the client.
create table oauth_grants (
  id integer generated always as identity primary key,
  account_id integer not null references accounts (id) on delete cascade,
  client_id text not null,
  client_name text not null,
  redirect_uri text not null,
  resource text not null,
  scope text not null,
  created_at timestamptz not null default now(),
  last_used_at timestamptz,
  revoked_at timestamptz,
  revoked_by text check (revoked_by in ('owner', 'admin', 'reuse', 'client'))
);

-- Used in: "Connected apps" of the dashboard and `admin oauth list`.
create index oauth_grants_account_idx on oauth_grants (account_id);
-- Used in: keeping a client's registration while one of its grants lives.
create index oauth_grants_client_idx on oauth_grants (client_id);

-- Authorization codes: single use, 60 seconds, bound to the PKCE challenge and redirect URI.
create table oauth_codes (
  code_hash text primary key check (code_hash ~ '^[0-9a-f]{64}$'),
  grant_id integer not null references oauth_grants (id) on delete cascade,
  code_challenge text not null,
  redirect_uri text not null,
  expires_at timestamptz not null,
  used_at timestamptz
);

-- Used in: dropping a grant's codes with it.
create index oauth_codes_grant_idx on oauth_codes (grant_id);

-- Access tokens (1 hour) and refresh tokens (30 days; rotated: used_at marks a refresh token
-- already exchanged, whose reuse revokes the grant).
create table oauth_tokens (
  token_hash text primary key check (token_hash ~ '^[0-9a-f]{64}$'),
  grant_id integer not null references oauth_grants (id) on delete cascade,
  kind text not null check (kind in ('access', 'refresh')),
  expires_at timestamptz not null,
  used_at timestamptz
);

-- Used in: the revocation of a grant's tokens and the clean-up.
create index oauth_tokens_grant_idx on oauth_tokens (grant_id);
