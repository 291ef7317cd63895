/**
 * Accounts: a unique e-mail (compared case-insensitively), a plan and a verification; created,
 * found, verified and moved between plans here. The identity the other domains hang from.
 */
import { AccountError } from "../platform/errors.ts";
import type { Sql } from "../db/open.ts";
import { type Plan, PLANS } from "../platform/plans.ts";
import { iso } from "../db/rows.ts";
import { textProblem } from "../platform/text.ts";

/** A customer account: a unique e-mail (compared case-insensitively), a plan and a verification. */
export interface Account {
  id: number;
  email: string;
  plan: Plan;
  email_verified_at: string | null;
  created_at: string;
}

interface AccountRow {
  id: number;
  email: string;
  plan: Plan;
  email_verified_at: Date | null;
  created_at: Date;
}

// The same rule as the check constraint of accounts.email, so a bad address gets a clear message.
const EMAIL_PATTERN = /^[^@\s]+@[^@\s]+$/;

/** True when `email` has the shape the accounts table accepts. */
export function isEmail(email: string): boolean {
  // A control character or a lone surrogate could not even be looked up (PostgreSQL refuses NUL).
  return EMAIL_PATTERN.test(email.trim()) && textProblem(email) === undefined;
}

/** True when `plan` is one of free, pro or business. */
export function isPlan(plan: string): plan is Plan {
  return (PLANS as readonly string[]).includes(plan);
}

function toAccount(row: AccountRow): Account {
  return {
    id: row.id,
    email: row.email,
    plan: row.plan,
    email_verified_at: iso(row.email_verified_at),
    created_at: iso(row.created_at),
  };
}

function checkEmail(email: string): string {
  const trimmed = email.trim();
  if (!isEmail(trimmed)) throw new AccountError(`"${email}" is not an e-mail address`);
  return trimmed;
}

function checkPlan(plan: string): Plan {
  if (!isPlan(plan)) {
    throw new AccountError(`Unknown plan "${plan}"; use one of ${PLANS.join(", ")}`);
  }
  return plan;
}

/** Creates an account; refused when the e-mail is already taken (compared case-insensitively). */
export async function createAccount(
  sql: Sql,
  options: { email: string; plan?: Plan; verified?: boolean },
): Promise<Account> {
  const email = checkEmail(options.email);
  const plan = checkPlan(options.plan ?? "free");
  // `on conflict do nothing` instead of catching 23505, so that two concurrent creations of the
  // same address get the same clear refusal and no aborted transaction.
  const [row]: [AccountRow?] = await sql`
    insert into accounts (email, plan, email_verified_at)
    values (${email}, ${plan}, ${options.verified ? sql`now()` : null})
    on conflict ((lower(email))) do nothing
    returning id, email, plan, email_verified_at, created_at`;
  if (!row) throw new AccountError(`An account with e-mail "${email}" already exists`);
  return toAccount(row);
}

/** The account with this e-mail (compared case-insensitively), or undefined. */
export async function findAccountByEmail(sql: Sql, email: string): Promise<Account | undefined> {
  const [row]: [AccountRow?] = await sql`
    select id, email, plan, email_verified_at, created_at
    from accounts where lower(email) = lower(${email.trim()})`;
  return row ? toAccount(row) : undefined;
}

/** Marks the account's e-mail as verified; verifying twice keeps the first instant. */
export async function verifyAccount(sql: Sql, email: string): Promise<Account> {
  const [row]: [AccountRow?] = await sql`
    update accounts set email_verified_at = coalesce(email_verified_at, now())
    where lower(email) = lower(${email.trim()})
    returning id, email, plan, email_verified_at, created_at`;
  if (!row) throw new AccountError(`Cannot find account "${email.trim()}"`);
  return toAccount(row);
}

/** Changes the account's plan; the quota follows from the next call on. */
export async function setPlan(sql: Sql, email: string, plan: Plan): Promise<Account> {
  const checked = checkPlan(plan);
  const [row]: [AccountRow?] = await sql`
    update accounts set plan = ${checked}
    where lower(email) = lower(${email.trim()})
    returning id, email, plan, email_verified_at, created_at`;
  if (!row) throw new AccountError(`Cannot find account "${email.trim()}"`);
  return toAccount(row);
}
