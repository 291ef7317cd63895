/**
 * OAuth clients: the errors of the authorization server (RFC 6749, 7591, 7009, 8707), the rules
 * for client metadata and redirect URIs shared by dynamic registration (RFC 7591) and client ID
 * metadata documents, and the clients' SQL (sql/0008_oauth.sql).
 */
import type { Sql } from "../db/open.ts";
import { isLoopbackHost } from "../platform/hosts.ts";

/** An OAuth error: the `error` code of its RFC, a description, and the HTTP status. */
export class OAuthError extends Error {
  override name = "OAuthError";
  constructor(
    readonly code: string,
    readonly description: string,
    readonly status = 400,
  ) {
    super(description);
  }

  /** The JSON error body of RFC 6749 section 5.2. */
  get body(): Record<string, string> {
    return { error: this.code, error_description: this.description };
  }
}

/** A client as the authorization server uses it. */
export interface OAuthClient {
  clientId: string;
  kind: "registered" | "document";
  clientName: string;
  clientUri: string | null;
  redirectUris: string[];
}

/** What registration and documents must describe; validated by `validateClientMetadata`. */
export interface ClientMetadata {
  clientName: string;
  clientUri: string | null;
  redirectUris: string[];
  grantTypes: string[];
  responseTypes: string[];
}

const MAX_REDIRECT_URIS = 10;
const MAX_URI_LENGTH = 2000;
const MAX_NAME_LENGTH = 100;
// A native app's private-use scheme is a reverse domain name the app's maker controls (RFC 8252
// section 7.1: com.example.app), so that it names that app, never a handler of the system or the
// browser (mailto:, ms-settings:, chrome://, javascript:, data:, file: ...).
const REVERSE_DOMAIN_SCHEME = /^[a-z][a-z0-9-]*(\.[a-z0-9-]+)+:$/;
// Private-use schemes without a period that widely used MCP clients register, allowed by name:
// Cursor signs in through cursor://anysphere.cursor-mcp/oauth/callback, and refusing it would
// lock its users out. Nothing else without a period is allowed.
const KNOWN_APP_SCHEMES = new Set(["cursor:"]);
// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
// What changes how a name reads without being seen: controls (C0, DEL, C1), format characters
// (bidirectional embeddings, overrides and isolates, zero-width space, byte order mark ...), line
// and paragraph separators, lone surrogates. "Good App\u202e\u2066evil" shows text in an order
// it was not written in, beside the trusted words of the consent page. ZWNJ and ZWJ are format
// characters too, but Persian and Indic scripts and emoji sequences need them, and they reorder
// nothing.
const HIDDEN_IN_NAME = /(?![\u200c\u200d])[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u;
const HIDDEN_IN_NAME_ALL = new RegExp(HIDDEN_IN_NAME.source, "gu");

/**
 * A client's name as a page may show it: without the characters registration now refuses, which
 * a name stored before may still hold. Pages isolate it too (`<bdi>`), so that even a
 * right-to-left name cannot reorder the text around it.
 */
export function displayClientName(name: string): string {
  return name.replace(HIDDEN_IN_NAME_ALL, "").trim() || "Unnamed client";
}

/**
 * Why a redirect URI is refused, or undefined when it is allowed: https; http only to a loopback
 * host (desktop clients, RFC 8252 section 7.3); a native app's reverse-domain private-use scheme
 * (section 7.1, `com.example.app:/callback`, and Cursor's `cursor://`); never a fragment or user
 * info.
 */
function redirectUriProblem(text: unknown): string | undefined {
  if (typeof text !== "string" || text.length === 0) return "must be a non-empty string";
  if (text.length > MAX_URI_LENGTH) return `must be at most ${MAX_URI_LENGTH} characters`;
  if (CONTROL.test(text) || /\s/.test(text)) return "must not contain spaces or control characters";
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "must be an absolute URI";
  }
  if (url.hash || text.includes("#")) return "must not contain a fragment";
  if (url.username || url.password) return "must not contain user information";
  const scheme = url.protocol;
  // A host name of letters, digits, dots and dashes (IDNs arrive as xn--), or an IP literal:
  // the URL parser lets ";" or "*" through, which must never reach a CSP or a page.
  if (url.hostname && !/^([a-z0-9-]+\.)*[a-z0-9-]+\.?$|^\[[0-9a-f:.]+\]$/i.test(url.hostname)) {
    return "must have a valid host name";
  }
  if (scheme === "https:") return url.hostname ? undefined : "must name a host";
  if (scheme === "http:") {
    return isLoopbackHost(url.hostname)
      ? undefined
      : "must use https (http only to a loopback address such as 127.0.0.1)";
  }
  if (REVERSE_DOMAIN_SCHEME.test(scheme) || KNOWN_APP_SCHEMES.has(scheme)) return undefined;
  return "must use https, http to a loopback address, or an app's own reverse-domain scheme " +
    "such as com.example.app:/callback";
}

/**
 * True when the rules of registration allow `uri` today: a client stored before a rule was
 * tightened is held to it at each authorization too.
 */
export function isAllowedRedirectUri(uri: string): boolean {
  return redirectUriProblem(uri) === undefined;
}

/**
 * True when `given` is one of the client's redirect URIs: exactly, or, for a loopback http URI,
 * with any port (RFC 8252 section 7.3: the port is chosen when the app starts).
 */
export function matchesRedirectUri(registered: readonly string[], given: string): boolean {
  if (registered.includes(given)) return true;
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" || !isLoopbackHost(url.hostname)) return false;
  return registered.some((r) => {
    const known = new URL(r);
    if (known.protocol !== "http:" || known.hostname !== url.hostname) return false;
    known.port = url.port;
    return known.href === url.href;
  });
}

function stringArray(value: unknown, field: string, fallback: string[]): string[] {
  if (value === undefined) return fallback;
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) {
    throw new OAuthError("invalid_client_metadata", `${field} must be an array of strings`);
  }
  return value as string[];
}

/**
 * Validates client metadata (a registration request or a metadata document) for a public
 * client of this server; throws OAuthError invalid_redirect_uri or invalid_client_metadata.
 */
export function validateClientMetadata(input: unknown): ClientMetadata {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new OAuthError("invalid_client_metadata", "The metadata must be a JSON object");
  }
  const m = input as Record<string, unknown>;
  const uris = m.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0) {
    throw new OAuthError("invalid_redirect_uri", "redirect_uris must be a non-empty array");
  }
  if (uris.length > MAX_REDIRECT_URIS) {
    throw new OAuthError("invalid_redirect_uri", `At most ${MAX_REDIRECT_URIS} redirect_uris`);
  }
  for (const uri of uris) {
    const problem = redirectUriProblem(uri);
    if (problem) {
      throw new OAuthError(
        "invalid_redirect_uri",
        `Redirect URI ${JSON.stringify(uri)} ${problem}`,
      );
    }
  }
  const method = m.token_endpoint_auth_method;
  if (method !== undefined && method !== "none") {
    throw new OAuthError(
      "invalid_client_metadata",
      'Only public clients are supported: token_endpoint_auth_method must be "none"',
    );
  }
  const grantTypes = stringArray(m.grant_types, "grant_types", [
    "authorization_code",
    "refresh_token",
  ]);
  if (
    !grantTypes.includes("authorization_code") ||
    grantTypes.some((g) => g !== "authorization_code" && g !== "refresh_token")
  ) {
    throw new OAuthError(
      "invalid_client_metadata",
      'grant_types must include "authorization_code" and may add only "refresh_token"',
    );
  }
  const responseTypes = stringArray(m.response_types, "response_types", ["code"]);
  if (responseTypes.length !== 1 || responseTypes[0] !== "code") {
    throw new OAuthError("invalid_client_metadata", 'response_types must be ["code"]');
  }
  const name = m.client_name;
  if (
    name !== undefined &&
    (typeof name !== "string" || name.trim().length === 0 || name.length > MAX_NAME_LENGTH ||
      HIDDEN_IN_NAME.test(name))
  ) {
    throw new OAuthError(
      "invalid_client_metadata",
      `client_name must be a string of 1 to ${MAX_NAME_LENGTH} characters without control or ` +
        "format characters (such as bidirectional overrides)",
    );
  }
  let clientUri: string | null = null;
  if (m.client_uri !== undefined) {
    const uri = m.client_uri;
    if (
      typeof uri !== "string" || uri.length > MAX_URI_LENGTH || CONTROL.test(uri) ||
      !URL.canParse(uri) || new URL(uri).protocol !== "https:"
    ) {
      throw new OAuthError("invalid_client_metadata", "client_uri must be an https URL");
    }
    clientUri = uri;
  }
  return {
    clientName: typeof name === "string" ? name.trim() : "Unnamed client",
    clientUri,
    redirectUris: uris as string[],
    grantTypes,
    responseTypes,
  };
}

interface ClientRow {
  client_id: string;
  kind: "registered" | "document";
  client_name: string;
  client_uri: string | null;
  redirect_uris: string[];
}

function clientOf(row: ClientRow): OAuthClient {
  return {
    clientId: row.client_id,
    kind: row.kind,
    clientName: row.client_name,
    clientUri: row.client_uri,
    redirectUris: row.redirect_uris,
  };
}

/** How long a registration may go unused before it is removed. */
const UNUSED_DAYS = 30;

/**
 * Stores a registered client and removes the registrations unused for 30 days (no grant used
 * in that time either), in one transaction.
 */
export async function registerClient(
  sql: Sql,
  clientId: string,
  metadata: ClientMetadata,
): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`
      delete from oauth_clients c
      where c.kind = 'registered'
        and c.last_used_at < now() - make_interval(days => ${UNUSED_DAYS})
        and not exists (select 1 from oauth_grants g where g.client_id = c.client_id
          and g.revoked_at is null
          and g.last_used_at > now() - make_interval(days => ${UNUSED_DAYS}))`;
    await tx`
      insert into oauth_clients (client_id, kind, client_name, client_uri, redirect_uris)
      values (${clientId}, 'registered', ${metadata.clientName}, ${metadata.clientUri},
        ${metadata.redirectUris})`;
  });
}

/**
 * A known client: a registration (not yet expired), or a document still fresh in the cache
 * (`fresh` false returns a document whatever its age, for callers that refetch).
 */
export async function findClient(
  sql: Sql,
  clientId: string,
): Promise<(OAuthClient & { fresh: boolean }) | undefined> {
  const [row]: [(ClientRow & { fresh: boolean })?] = await sql`
    select client_id, kind, client_name, client_uri, redirect_uris,
      (kind = 'registered' or cache_until > now()) as fresh
    from oauth_clients
    where client_id = ${clientId} and (kind = 'document'
      or last_used_at > now() - make_interval(days => ${UNUSED_DAYS})
      or exists (select 1 from oauth_grants g where g.client_id = oauth_clients.client_id
        and g.revoked_at is null
        and g.last_used_at > now() - make_interval(days => ${UNUSED_DAYS})))`;
  return row ? { ...clientOf(row), fresh: row.fresh } : undefined;
}

/** Stores a fetched client ID metadata document, cached for `maxAgeSeconds`. */
export async function storeDocumentClient(
  sql: Sql,
  clientId: string,
  metadata: ClientMetadata,
  maxAgeSeconds: number,
): Promise<OAuthClient> {
  const [row]: [ClientRow] = await sql`
    insert into oauth_clients
      (client_id, kind, client_name, client_uri, redirect_uris, cache_until)
    values (${clientId}, 'document', ${metadata.clientName}, ${metadata.clientUri},
      ${metadata.redirectUris}, now() + make_interval(secs => ${maxAgeSeconds}::float8))
    on conflict (client_id) do update set client_name = excluded.client_name,
      client_uri = excluded.client_uri, redirect_uris = excluded.redirect_uris,
      cache_until = excluded.cache_until, last_used_at = now()
      where oauth_clients.kind = 'document'
    returning client_id, kind, client_name, client_uri, redirect_uris`;
  return clientOf(row);
}
