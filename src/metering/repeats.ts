/**
 * The same call twice is charged once (issue 49): what makes two calls the same. A call's
 * fingerprint is its operation's name and its parameters as the shared zod schemas parsed them
 * (defaults applied, so an absent parameter equals its default, and a REST query string and MCP
 * arguments that mean the same thing match), as JSON with sorted keys, without the parameters
 * that only change how the answer is presented, hashed with SHA-256. The admission statement
 * (admission.ts) claims the fingerprint with the data version when it charges the call; the same
 * fingerprint of the same account at that data version within REPEAT_WINDOW_MS is not charged.
 */
import type { Sql } from "../db/open.ts";

/** Parameters that change only the presentation of an answer, never what it says: not hashed. */
export const PRESENTATION_PARAMS: readonly string[] = ["detail", "fields"];

/** The SQLSTATE of admission_raced() (sql/0025_call_repeats.sql). */
export const ADMISSION_RACED = "OI049";

/** How long a charged call makes its repeats free. */
export const REPEAT_WINDOW_MS = 24 * 60 * 60 * 1000;

/** `value` as JSON with the keys of every object sorted and undefined members left out. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object" || value instanceof Date) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const member = (value as Record<string, unknown>)[key];
    if (member !== undefined) out[key] = sortKeys(member);
  }
  return out;
}

/**
 * The text a call's fingerprint is the hash of: `name` (the operation, or the connector tool)
 * and its parsed parameters, merged, presentation parameters left out.
 */
export function callText(name: string, parsed: readonly unknown[]): string {
  const params: Record<string, unknown> = {};
  for (const p of parsed) {
    if (p && typeof p === "object") Object.assign(params, p);
  }
  for (const name of PRESENTATION_PARAMS) delete params[name];
  return canonicalJson({ operation: name, params });
}

/** The SHA-256 of a call's text, as hex. */
export async function fingerprintOf(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Gives back the claim a charged call made (its answer failed, its unit was refunded). */
export async function forgetCall(
  sql: Sql,
  claim: { accountId: number; fingerprint: string; at: Date },
): Promise<void> {
  await sql`
    delete from call_repeats where account_id = ${claim.accountId}
      and fingerprint = ${claim.fingerprint} and at = ${claim.at}`;
}

/** Claims past the window: no longer repeats, deleted now and then (no scheduler needed). */
export async function forgetOldCalls(sql: Sql, now: Date = new Date()): Promise<void> {
  await sql`
    delete from call_repeats where at <= ${new Date(now.getTime() - REPEAT_WINDOW_MS)}`;
}
