-- What an app signed in through OAuth may do (src/accounts/oauth_scopes.ts): `catalog` (read the
-- catalogue and the usage; every grant has it) and `watches` (manage the account's watches, see
-- their feed URLs and webhook secrets), which the person must tick on the consent page.
--
-- The grant keeps what the person granted; each token keeps what it carries, because a refresh may
-- ask for less than the grant (RFC 6749 section 6) and admission reads the scope from the token's
-- row, in the statement that already finds the token (src/accounts/admission.ts).
--
-- Grants made before this migration held the single scope `mcp`, shown on the consent page as
-- "read opportunity data and use your monthly quota": they become `catalog`, which is exactly that.
-- Their live tokens get `catalog` too (the column's default). Scopes are stored in one canonical
-- spelling, so the checks below list every value there is.

update oauth_grants set scope = 'catalog';

alter table oauth_grants
  alter column scope set default 'catalog',
  add constraint oauth_grants_scope_check check (scope in ('catalog', 'catalog watches'));

alter table oauth_tokens
  add column scope text not null default 'catalog'
    constraint oauth_tokens_scope_check check (scope in ('catalog', 'catalog watches'));
