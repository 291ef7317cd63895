-- Secrets the service makes for itself and shares between its instances through the database.
-- 'cursor': the HMAC key of list cursors when CURSOR_SECRET is not set (src/catalog/cursor.ts,
-- storedCursorSecret: made by the first instance that starts, read by every other).
create table service_secrets (
  name text primary key,
  secret text not null check (length(secret) >= 32),
  created_at timestamptz not null default now()
);
