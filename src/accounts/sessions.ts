/**
 * The web area's SQL: e-mailed tokens and sessions (sql/0002_web.sql), and their clean-up.
 * Tokens and sessions are looked up by the SHA-256 digest of a 256-bit random secret, so the
 * lookup itself leaks nothing worth timing.
 */
import type { Sql } from "../db/open.ts";
import type { Plan } from "../platform/plans.ts";

export type TokenPurpose = "verify" | "signin";

/** The signed-in account behind a session. */
export interface SessionAccount {
  id: number;
  email: string;
  plan: Plan;
}

/** Stores a new e-mailed token for the account, dropping its older unused ones of that purpose. */
export async function storeToken(
  sql: Sql,
  options: { hash: string; accountId: number; purpose: TokenPurpose; ttlSeconds: number },
): Promise<void> {
  const { hash, accountId, purpose, ttlSeconds } = options;
  await sql.begin(async (tx) => {
    await tx`
      delete from web_tokens
      where account_id = ${accountId} and purpose = ${purpose} and used_at is null`;
    await tx`
      insert into web_tokens (token_hash, account_id, purpose, expires_at)
      values (${hash}, ${accountId}, ${purpose}, now() + make_interval(secs => ${ttlSeconds}::float8))`;
  });
}

/** The purpose of a token that is still usable, without using it; undefined otherwise. */
export async function peekToken(sql: Sql, hash: string): Promise<TokenPurpose | undefined> {
  const [row]: [{ purpose: TokenPurpose }?] = await sql`
    select purpose from web_tokens
    where token_hash = ${hash} and used_at is null and expires_at > now()`;
  return row?.purpose;
}

/**
 * Uses a token once and signs its account in: in one transaction the token is marked used
 * (only while unused and unexpired), a `verify` token verifies the address, and a session is
 * stored. Returns the account id, or undefined when the token is unknown, used or expired, or
 * a `signin` token names an unverified account.
 */
export async function redeemToken(
  sql: Sql,
  options: { hash: string; sessionHash: string; sessionTtlSeconds: number },
): Promise<number | undefined> {
  return await sql.begin(async (tx) => {
    const [token]: [{ account_id: number; purpose: TokenPurpose }?] = await tx`
      update web_tokens set used_at = now()
      where token_hash = ${options.hash} and used_at is null and expires_at > now()
      returning account_id, purpose`;
    if (!token) return undefined;
    const [account]: [{ id: number }?] = token.purpose === "verify"
      ? await tx`
        update accounts set email_verified_at = coalesce(email_verified_at, now())
        where id = ${token.account_id} returning id`
      : await tx`
        select id from accounts
        where id = ${token.account_id} and email_verified_at is not null`;
    if (!account) return undefined;
    await tx`
      insert into web_sessions (token_hash, account_id, expires_at)
      values (${options.sessionHash}, ${account.id},
        now() + make_interval(secs => ${options.sessionTtlSeconds}::float8))`;
    return account.id;
  });
}

/** The account of a live session, or undefined. */
export async function findSession(sql: Sql, hash: string): Promise<SessionAccount | undefined> {
  const [row]: [SessionAccount?] = await sql`
    select a.id, a.email, a.plan
    from web_sessions s join accounts a on a.id = s.account_id
    where s.token_hash = ${hash} and s.expires_at > now()`;
  return row;
}

/** Ends a session. */
export async function deleteSession(sql: Sql, hash: string): Promise<void> {
  await sql`delete from web_sessions where token_hash = ${hash}`;
}

/** Deletes expired tokens, sessions, OAuth codes and tokens, and past rate-limit windows. */
export async function cleanUp(sql: Sql): Promise<void> {
  await sql`delete from web_tokens where expires_at < now() - interval '1 day'`;
  await sql`delete from web_sessions where expires_at < now()`;
  await sql`delete from web_rate_limits where window_start < now() - interval '1 day'`;
  // OAuth codes and tokens past their lifetime (a used refresh token is kept until it expires, so
  // that its reuse is recognised and revokes its grant).
  await sql`delete from oauth_codes where expires_at < now() - interval '1 day'`;
  await sql`delete from oauth_tokens where expires_at < now() - interval '1 day'`;
}
