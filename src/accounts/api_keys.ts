/**
 * API keys of an account: created (shown once, only their digest stored), listed and revoked, at
 * most MAX_ACTIVE_KEYS unrevoked at a time; a revoke is forgotten at once by this process's
 * recent callers (credentials.ts).
 */
import { textProblem } from "../platform/text.ts";
import { AccountError } from "../platform/errors.ts";
import type { Sql } from "../db/open.ts";
import { displayPrefix, generateApiKey, hashApiKey } from "./keys.ts";
import { forgetKey } from "./credentials.ts";
import { iso, isRowId } from "../db/rows.ts";

/** An account holds at most this many keys that are not revoked (docs/DECISIONS.md section 3). */
export const MAX_ACTIVE_KEYS = 5;
const MAX_NAME_LENGTH = 100;

/** A newly created key: the only time the raw key is ever shown. */
export interface CreatedApiKey {
  id: number;
  key: string;
  prefix: string;
  name: string;
  created_at: string;
}

/** A key as listed: never the raw key nor its hash. */
export interface ApiKeyInfo {
  id: number;
  prefix: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  revoked_by: "owner" | "admin" | null;
}

interface ApiKeyRow {
  id: number;
  prefix: string;
  name: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
  revoked_by: "owner" | "admin" | null;
}

function toInfo(row: ApiKeyRow): ApiKeyInfo {
  return {
    id: row.id,
    prefix: row.prefix,
    name: row.name,
    created_at: iso(row.created_at),
    last_used_at: iso(row.last_used_at),
    revoked_at: iso(row.revoked_at),
    revoked_by: row.revoked_by,
  };
}

/** What is wrong with a key name (too long, a control character), or undefined. */
export function keyNameProblem(name: string): string | undefined {
  if (name.length > MAX_NAME_LENGTH) return `A key name has at most ${MAX_NAME_LENGTH} characters`;
  const problem = textProblem(name);
  return problem ? `A key name ${problem}` : undefined;
}

/**
 * Creates a key for a verified account holding fewer than 5 keys that are not revoked. The
 * account row is locked for the check and the insert, so concurrent creations cannot pass the
 * limit together. Only the SHA-256 digest of the raw key is stored.
 */
export async function createApiKey(
  sql: Sql,
  options: { email: string; name?: string },
): Promise<CreatedApiKey> {
  const email = options.email.trim();
  const name = options.name?.trim() || "default";
  const problem = keyNameProblem(name);
  if (problem) throw new AccountError(problem);
  const key = generateApiKey();
  const hash = await hashApiKey(key);
  return await sql.begin(async (tx) => {
    const [account]: [{ id: number; email_verified_at: Date | null }?] = await tx`
      select id, email_verified_at from accounts where lower(email) = lower(${email}) for update`;
    if (!account) throw new AccountError(`Cannot find account "${email}"`);
    if (!account.email_verified_at) {
      throw new AccountError(
        `Account "${email}" has not verified its e-mail; verify it before creating a key`,
      );
    }
    const [{ active }] = await tx<{ active: number }[]>`
      select count(*)::int as active from api_keys
      where account_id = ${account.id} and revoked_at is null`;
    if (active >= MAX_ACTIVE_KEYS) {
      throw new AccountError(
        `Account "${email}" already holds ${active} keys that are not revoked (at most ` +
          `${MAX_ACTIVE_KEYS}); revoke one first`,
      );
    }
    const [row] = await tx<{ id: number; prefix: string; name: string; created_at: Date }[]>`
      insert into api_keys (account_id, key_hash, prefix, name)
      values (${account.id}, ${hash}, ${displayPrefix(key)}, ${name})
      returning id, prefix, name, created_at`;
    return { id: row.id, key, prefix: row.prefix, name: row.name, created_at: iso(row.created_at) };
  });
}

/** Every key of the account, oldest first, revoked ones included; refused for an unknown account. */
export async function listApiKeys(sql: Sql, email: string): Promise<ApiKeyInfo[]> {
  const [account]: [{ id: number }?] = await sql`
    select id from accounts where lower(email) = lower(${email.trim()})`;
  if (!account) throw new AccountError(`Cannot find account "${email.trim()}"`);
  const rows = await sql<ApiKeyRow[]>`
    select id, prefix, name, created_at, last_used_at, revoked_at, revoked_by
    from api_keys where account_id = ${account.id} order by id`;
  return rows.map(toInfo);
}

/** Revokes a key for good; refused when the key is unknown or already revoked. */
export async function revokeApiKey(
  sql: Sql,
  options: { id: number; by: "owner" | "admin" },
): Promise<ApiKeyInfo> {
  const { id, by } = options;
  if (!isRowId(id)) {
    throw new AccountError(`Cannot find API key ${id}`);
  }
  if (by !== "owner" && by !== "admin") {
    throw new AccountError(`Unknown revoker "${by}"; use owner or admin`);
  }
  const [row]: [ApiKeyRow?] = await sql`
    update api_keys set revoked_at = now(), revoked_by = ${by}
    where id = ${id} and revoked_at is null
    returning id, prefix, name, created_at, last_used_at, revoked_at, revoked_by`;
  forgetKey(id);
  if (row) return toInfo(row);
  const [existing]: [{ revoked_by: string }?] = await sql`
    select revoked_by from api_keys where id = ${id}`;
  if (!existing) throw new AccountError(`Cannot find API key ${id}`);
  throw new AccountError(`API key ${id} is already revoked (by ${existing.revoked_by})`);
}
