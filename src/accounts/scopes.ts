/**
 * What an app signed in through OAuth may do: the scopes of a grant (sql/0011_oauth_scopes.sql),
 * shared by the authorization request, the consent page, the token endpoint, admission and the
 * watch operations of both surfaces.
 * - `catalog`: read the catalogue and the usage, using the account's quota. Always granted.
 * - `watches`: list, create, change and delete watches and see their deliveries, feed URLs and
 *   webhook secrets. Granted only when the app asked for it AND the person ticked it on the
 *   consent page, because a watch writes to the account and hands out a private feed URL.
 * An API key is the account's own credential and has every scope.
 */
import { InsufficientScopeError } from "../platform/errors.ts";

/** The scopes this server knows, in the order they are written. */
export const SCOPES = ["catalog", "watches"] as const;
export type Scope = typeof SCOPES[number];

/** What every grant holds, and what a request without `scope` gets. */
export const DEFAULT_SCOPES: readonly Scope[] = ["catalog"];
/** What an API key holds. */
export const ALL_SCOPES: readonly Scope[] = SCOPES;

/**
 * The known scopes of a `scope` parameter (RFC 6749 section 3.3, space-separated), `catalog`
 * always among them. Unknown values are ignored rather than refused with invalid_scope: MCP
 * clients send what they find in discovery or remember from other servers (`mcp`, `openid`,
 * `offline_access`), and a sign-in that fails on a word nobody reads helps no one.
 */
export function parseScope(text: string | null | undefined): Scope[] {
  const words = new Set((text ?? "").split(" "));
  return SCOPES.filter((scope) => scope === "catalog" || words.has(scope));
}

/**
 * The scopes a `scope` parameter asks for, or undefined when it names none of ours (absent, or
 * only words of other servers): the caller then uses its default, the grant's scope on a refresh.
 */
export function requestedScope(text: string | null | undefined): Scope[] | undefined {
  const words = (text ?? "").split(" ");
  return SCOPES.some((scope) => words.includes(scope)) ? parseScope(text) : undefined;
}

/** The `scope` text of a set of scopes, in the server's order (as stored and answered). */
export function formatScope(scopes: readonly Scope[]): string {
  return SCOPES.filter((scope) => scope === "catalog" || scopes.includes(scope)).join(" ");
}

/** What a grant of these scopes may do, in a person's words (Connected apps). */
export function describeScope(scopes: readonly Scope[]): string {
  return scopes.includes("watches")
    ? "Read the catalogue and your usage, and manage your watches"
    : "Read the catalogue and your usage";
}

/** Throws InsufficientScopeError unless `caller` holds `scope`. */
export function requireScope(caller: { scopes: readonly Scope[] }, scope: Scope): void {
  if (!caller.scopes.includes(scope)) throw new InsufficientScopeError(scope);
}
