/**
 * Grants, authorization codes and tokens of the OAuth authorization server (sql/0008_oauth.sql):
 * approval makes a grant and a single-use code bound to its PKCE challenge; the code becomes an
 * access token (1 hour) and a refresh token (30 days); a refresh rotates the refresh token.
 * Every secret is stored only as its SHA-256 digest. Each exchange runs in one transaction that
 * checks everything before it writes, so a refused step changes nothing, with the two refusals
 * the specifications make destructive: a code used twice, or a rotated refresh token used
 * again, revokes the whole grant (OAuth 2.1 sections 4.1.3 and 4.3.1).
 */
import type { Sql } from "../db/open.ts";
import type postgres from "postgres";
import { sha256Hex } from "../platform/crypto.ts";
import { isRowId } from "../db/rows.ts";
import {
  ACCESS_TOKEN_PREFIX,
  CODE_PREFIX,
  generateSecret,
  isWellFormedSecret,
  REFRESH_TOKEN_PREFIX,
} from "../accounts/keys.ts";
import { OAuthError } from "./clients.ts";
import { formatScope, parseScope, requestedScope, type Scope } from "../accounts/scopes.ts";

export const ACCESS_TOKEN_TTL_S = 3600;
export const REFRESH_TOKEN_TTL_S = 30 * 86_400;
export const CODE_TTL_S = 60;

/** What the token endpoint answers (RFC 6749 section 5.1). */
export interface TokenResponse {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
  /** What the access token may do (src/accounts/scopes.ts), space-separated. */
  scope: string;
}

/** A grant as "Connected apps" and the CLI list it. */
export interface GrantInfo {
  id: number;
  account_id: number;
  email: string;
  client_id: string;
  client_name: string;
  redirect_uri: string;
  /** What the person granted, space-separated (src/accounts/scopes.ts). */
  scope: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
  revoked_by: string | null;
}

const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/** True when `challenge` has the shape of an S256 challenge (base64url of 32 bytes). */
export function isS256Challenge(challenge: string): boolean {
  return CHALLENGE.test(challenge);
}

/** base64url(SHA-256(verifier)) === challenge (RFC 7636 section 4.6), for a well-formed verifier. */
async function pkceMatches(verifier: string, challenge: string): Promise<boolean> {
  if (!VERIFIER.test(verifier)) return false;
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)),
  );
  const encoded = btoa(String.fromCharCode(...digest)).replaceAll("+", "-").replaceAll("/", "_")
    .replace(/=+$/, "");
  return encoded === challenge;
}

function invalidGrant(description: string): OAuthError {
  return new OAuthError("invalid_grant", description);
}

/**
 * Records an approval: a grant of `client` for the account with the scopes the person granted,
 * and a code for it (returned raw, stored as a digest), in one transaction; the client counts as
 * used.
 */
export async function approveGrant(
  sql: Sql,
  options: {
    accountId: number;
    clientId: string;
    clientName: string;
    redirectUri: string;
    resource: string;
    codeChallenge: string;
    scopes: readonly Scope[];
  },
): Promise<string> {
  const code = generateSecret(CODE_PREFIX);
  const hash = await sha256Hex(code);
  await sql.begin(async (tx) => {
    const [grant]: [{ id: number }] = await tx`
      insert into oauth_grants (account_id, client_id, client_name, redirect_uri, resource, scope)
      values (${options.accountId}, ${options.clientId}, ${options.clientName},
        ${options.redirectUri}, ${options.resource}, ${formatScope(options.scopes)})
      returning id`;
    await tx`
      insert into oauth_codes (code_hash, grant_id, code_challenge, redirect_uri, expires_at)
      values (${hash}, ${grant.id}, ${options.codeChallenge}, ${options.redirectUri},
        now() + make_interval(secs => ${CODE_TTL_S}))`;
    await tx`update oauth_clients set last_used_at = now() where client_id = ${options.clientId}`;
  });
  return code;
}

type Tx = postgres.TransactionSql;

/**
 * Issues a new access and refresh token for a grant, carrying `scope` (at most the grant's),
 * inside the caller's transaction.
 */
async function issueTokens(tx: Tx, grantId: number, scope: string): Promise<TokenResponse> {
  const access = generateSecret(ACCESS_TOKEN_PREFIX);
  const refresh = generateSecret(REFRESH_TOKEN_PREFIX);
  await tx`
    insert into oauth_tokens (token_hash, grant_id, kind, expires_at, scope) values
      (${await sha256Hex(access)}, ${grantId}, 'access',
        now() + make_interval(secs => ${ACCESS_TOKEN_TTL_S}), ${scope}),
      (${await sha256Hex(refresh)}, ${grantId}, 'refresh',
        now() + make_interval(secs => ${REFRESH_TOKEN_TTL_S}), ${scope})`;
  await tx`update oauth_grants set last_used_at = now() where id = ${grantId}`;
  return {
    access_token: access,
    token_type: "Bearer",
    expires_in: ACCESS_TOKEN_TTL_S,
    refresh_token: refresh,
    scope,
  };
}

/** Revokes a grant (its tokens stop at once); true when it was live. */
async function revokeGrantIn(
  tx: Sql | Tx,
  grantId: number,
  by: string,
  accountId?: number,
): Promise<boolean> {
  const rows = await tx`
    update oauth_grants set revoked_at = now(), revoked_by = ${by}
    where id = ${grantId} and revoked_at is null
      ${accountId !== undefined ? tx`and account_id = ${accountId}` : tx``}
    returning id`;
  return rows.length > 0;
}

/** True when `given` is absent or names the grant's resource (with or without the last slash). */
export function sameResource(given: string | undefined, bound: string): boolean {
  if (given === undefined) return true;
  return given.replace(/\/$/, "") === bound.replace(/\/$/, "");
}

/**
 * The authorization_code grant: the code must be live, unused, of this client, for this
 * redirect URI and resource, and match the PKCE verifier. A code used a second time revokes the
 * grant, and so every token its first use issued.
 */
export async function exchangeCode(
  sql: Sql,
  options: {
    clientId: string;
    code: string;
    verifier: string;
    redirectUri?: string;
    resource?: string;
  },
): Promise<TokenResponse> {
  if (!isWellFormedSecret(options.code, CODE_PREFIX)) {
    throw invalidGrant("The authorization code is not valid");
  }
  const hash = await sha256Hex(options.code);
  const outcome = await sql.begin(async (tx) => {
    const [row]: [
      {
        grant_id: number;
        code_challenge: string;
        redirect_uri: string;
        used: boolean;
        expired: boolean;
        client_id: string;
        resource: string;
        scope: string;
        revoked: boolean;
      }?,
    ] = await tx`
      select c.grant_id, c.code_challenge, c.redirect_uri, c.used_at is not null as used,
        c.expires_at <= now() as expired, g.client_id, g.resource, g.scope,
        g.revoked_at is not null as revoked
      from oauth_codes c join oauth_grants g on g.id = c.grant_id
      where c.code_hash = ${hash}
      for update of c`;
    if (!row || row.client_id !== options.clientId) {
      return invalidGrant("The authorization code is not valid");
    }
    if (row.used) {
      await revokeGrantIn(tx, row.grant_id, "reuse");
      return invalidGrant("The authorization code was already used: its grant is revoked");
    }
    if (row.expired || row.revoked) return invalidGrant("The authorization code has expired");
    if (options.redirectUri !== undefined && options.redirectUri !== row.redirect_uri) {
      return invalidGrant("redirect_uri is not the one of the authorization request");
    }
    if (!(await pkceMatches(options.verifier, row.code_challenge))) {
      return invalidGrant("The code_verifier does not match the code_challenge");
    }
    if (!sameResource(options.resource, row.resource)) {
      return new OAuthError("invalid_target", "resource is not the one the user approved");
    }
    await tx`update oauth_codes set used_at = now() where code_hash = ${hash}`;
    return await issueTokens(tx, row.grant_id, row.scope);
  });
  if (outcome instanceof OAuthError) throw outcome;
  return outcome;
}

/**
 * The refresh_token grant with rotation: the refresh token is used up and a new pair issued.
 * A refresh token already rotated (a copy used by someone else, or a replay) revokes the grant.
 * `scope` may narrow the new tokens below what the person granted, never widen them (RFC 6749
 * section 6: absent means the grant's scope, more is invalid_scope).
 */
export async function refreshGrant(
  sql: Sql,
  options: { clientId: string; refreshToken: string; resource?: string; scope?: string },
): Promise<TokenResponse> {
  if (!isWellFormedSecret(options.refreshToken, REFRESH_TOKEN_PREFIX)) {
    throw invalidGrant("The refresh token is not valid");
  }
  const hash = await sha256Hex(options.refreshToken);
  const outcome = await sql.begin(async (tx) => {
    const [row]: [
      {
        grant_id: number;
        used: boolean;
        expired: boolean;
        client_id: string;
        resource: string;
        scope: string;
        revoked: boolean;
      }?,
    ] = await tx`
      select t.grant_id, t.used_at is not null as used, t.expires_at <= now() as expired,
        g.client_id, g.resource, g.scope, g.revoked_at is not null as revoked
      from oauth_tokens t join oauth_grants g on g.id = t.grant_id
      where t.token_hash = ${hash} and t.kind = 'refresh'
      for update of t`;
    if (!row || row.client_id !== options.clientId) {
      return invalidGrant("The refresh token is not valid");
    }
    if (row.revoked) return invalidGrant("The grant was revoked: sign in again");
    if (row.used) {
      await revokeGrantIn(tx, row.grant_id, "reuse");
      return invalidGrant("The refresh token was already used: its grant is revoked");
    }
    if (row.expired) return invalidGrant("The refresh token has expired: sign in again");
    if (!sameResource(options.resource, row.resource)) {
      return new OAuthError("invalid_target", "resource is not the one the user approved");
    }
    const granted = parseScope(row.scope);
    const asked = requestedScope(options.scope) ?? granted;
    const beyond = asked.filter((scope) => !granted.includes(scope));
    if (beyond.length > 0) {
      return new OAuthError(
        "invalid_scope",
        `The user did not grant "${beyond.join(" ")}": sign in again to ask for it`,
      );
    }
    await tx`update oauth_tokens set used_at = now() where token_hash = ${hash}`;
    await tx`update oauth_clients set last_used_at = now() where client_id = ${row.client_id}`;
    return await issueTokens(tx, row.grant_id, formatScope(asked));
  });
  if (outcome instanceof OAuthError) throw outcome;
  return outcome;
}

/**
 * RFC 7009 revocation by the client: a refresh token revokes its whole grant, an access token
 * only itself. A token that is unknown, malformed, or of another client changes nothing (the
 * endpoint answers 200 all the same).
 */
export async function revokeByToken(
  sql: Sql,
  options: { clientId: string; token: string },
): Promise<void> {
  const { token, clientId } = options;
  const isAccess = isWellFormedSecret(token, ACCESS_TOKEN_PREFIX);
  if (!isAccess && !isWellFormedSecret(token, REFRESH_TOKEN_PREFIX)) return;
  const hash = await sha256Hex(token);
  const [row]: [{ grant_id: number }?] = await sql`
    select t.grant_id from oauth_tokens t join oauth_grants g on g.id = t.grant_id
    where t.token_hash = ${hash} and g.client_id = ${clientId}`;
  if (!row) return;
  if (isAccess) {
    await sql`delete from oauth_tokens where token_hash = ${hash}`;
  } else {
    await revokeGrantIn(sql, row.grant_id, "client");
  }
}

/** The grants of an account (or of every account), newest first. */
export async function listGrants(
  sql: Sql,
  options: { id?: number; accountId?: number; email?: string; live?: boolean } = {},
): Promise<GrantInfo[]> {
  return await sql<GrantInfo[]>`
    select g.id, g.account_id, a.email, g.client_id, g.client_name, g.redirect_uri, g.scope,
      g.created_at, g.last_used_at, g.revoked_at, g.revoked_by
    from oauth_grants g join accounts a on a.id = g.account_id
    where true
      ${options.accountId !== undefined ? sql`and g.account_id = ${options.accountId}` : sql``}
      ${options.email !== undefined ? sql`and lower(a.email) = lower(${options.email})` : sql``}
      ${options.live ? sql`and g.revoked_at is null` : sql``}
      ${
    // One grant asked for by id is shown whatever happened; lists show the grants whose
    // code was exchanged (an approval that never reached its app has no token).
    options.id !== undefined
      ? sql`and g.id = ${options.id}`
      : sql`and exists (select 1 from oauth_tokens t where t.grant_id = g.id)`}
    order by g.created_at desc, g.id desc`;
}

/**
 * Revokes a grant as its owner (only a grant of `accountId`) or an administrator; its tokens
 * stop at once. Returns false when there was no such live grant.
 */
export async function revokeGrant(
  sql: Sql,
  options: { id: number; accountId?: number; by: "owner" | "admin" },
): Promise<boolean> {
  if (!isRowId(options.id)) return false;
  return await revokeGrantIn(sql, options.id, options.by, options.accountId);
}
