/**
 * Client ID metadata documents (the MCP authorization specification's primary way to know a
 * client): the `client_id` is an https URL, and the document it serves describes the client.
 * Fetched with a size and time limit, never from a private, loopback or link-local address
 * (the outbound guard's list, src/platform/outbound_target.ts), never through a redirect, and cached in
 * the clients table for as long as its Cache-Control (or Expires) allows, at most a day.
 *
 * The development setting `allowLoopback` (OAUTH_CIMD_ALLOW_LOOPBACK) lets a document come from
 * a loopback address over http, for tests and local clients; the configuration refuses it unless
 * PUBLIC_BASE_URL is itself a loopback address.
 */
import type { Sql } from "../db/open.ts";
import {
  type OutboundTarget,
  resolveOutboundTarget,
  UnsafeUrlError,
} from "../platform/outbound_target.ts";
import { PostTimeoutError, sendTo } from "../platform/pinned_request.ts";
import { bareHost, isLoopbackHost } from "../platform/hosts.ts";
import {
  findClient,
  type OAuthClient,
  OAuthError,
  storeDocumentClient,
  validateClientMetadata,
} from "./clients.ts";

/** How documents are fetched. */
export interface DocumentPolicy {
  /** Allow http and loopback addresses (development and tests only). */
  allowLoopback?: boolean;
  /** Time limit of one fetch (default 5 s). */
  timeoutMs?: number;
  /** Size limit of a document (default 5 KiB, as the specification suggests). */
  maxBytes?: number;
  /** Resolves a host name (default: DNS A and AAAA). */
  resolve?: (host: string) => Promise<string[]>;
  /**
   * Asked before each fetch (a document not cached): false refuses it with 429. The OAuth
   * endpoints count fetches per client IP here, so that nobody makes the service fetch URLs
   * of their choosing without end.
   */
  mayFetch?: () => Promise<boolean>;
}

const DEFAULT_TIMEOUT_MS = 5_000;
const DEFAULT_MAX_BYTES = 5 * 1024;
const DEFAULT_MAX_AGE_S = 600;
const MAX_AGE_CAP_S = 86_400;

/** True when a client_id names a metadata document (an http(s) URL) rather than a registration. */
function isDocumentClientId(clientId: string): boolean {
  return clientId.startsWith("https://") || clientId.startsWith("http://");
}

function refuse(description: string): OAuthError {
  return new OAuthError("invalid_client", `Client ID metadata document: ${description}`, 401);
}

/**
 * Checks the URL and the addresses it resolves to; throws invalid_client. Returns the address to
 * connect to (the first one checked), so that no second DNS answer can move the fetch elsewhere.
 */
async function checkDocumentUrl(
  clientId: string,
  policy: DocumentPolicy,
): Promise<OutboundTarget> {
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    throw refuse("the client_id is not a URL");
  }
  const allowed = policy.allowLoopback === true && isLoopbackHost(url.hostname);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && allowed)) {
    throw refuse("the client_id must be an https URL");
  }
  if (url.pathname === "/" || url.hash || url.username || url.password) {
    throw refuse("the client_id must be an https URL with a path, without fragment or user");
  }
  if (url.href !== clientId) throw refuse("the client_id must be a normalized URL");
  // The webhooks' guard: every address the name resolves to must be public, and the fetch
  // connects to the first one checked.
  try {
    return await resolveOutboundTarget(clientId, {
      allow: allowed ? [bareHost(url.hostname)] : [],
      resolve: policy.resolve,
    });
  } catch (error) {
    if (error instanceof UnsafeUrlError) throw refuse(`the client_id ${error.message}`);
    throw error;
  }
}

/** Seconds the document may be cached, from Cache-Control or Expires (capped at a day). */
export function cacheSeconds(headers: Headers, now = Date.now()): number {
  const control = headers.get("cache-control")?.toLowerCase() ?? "";
  if (/(^|,)\s*(no-store|no-cache|private)\b/.test(control)) return 0;
  const maxAge = /(?:^|,)\s*max-age\s*=\s*"?(\d+)"?/.exec(control);
  if (maxAge) return Math.min(Number(maxAge[1]), MAX_AGE_CAP_S);
  const expires = headers.get("expires");
  if (expires) {
    const at = Date.parse(expires);
    return Number.isNaN(at) ? 0 : Math.max(0, Math.min((at - now) / 1000, MAX_AGE_CAP_S));
  }
  return DEFAULT_MAX_AGE_S;
}

/**
 * Fetches and validates a document; throws invalid_client when it cannot be had, or the
 * registration's error for what it says (nothing is stored on failure).
 */
async function fetchDocument(clientId: string, policy: DocumentPolicy) {
  const target = await checkDocumentUrl(clientId, policy);
  const { url } = target;
  const timeoutMs = policy.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const max = policy.maxBytes ?? DEFAULT_MAX_BYTES;
  let answer;
  try {
    answer = await sendTo(target, {
      method: "GET",
      headers: { Accept: "application/json", "User-Agent": "oppintel-oauth/1.0" },
      timeoutMs,
      cap: max,
    });
  } catch (error) {
    if (error instanceof PostTimeoutError) {
      throw refuse(`${url.href} did not answer within ${timeoutMs} ms`);
    }
    throw refuse(`${url.href} could not be fetched`);
  }
  if (answer.status !== 200) throw refuse(`${url.href} answered HTTP ${answer.status}`);
  const declared = Number(answer.headers.get("content-length") ?? "0");
  if (answer.overflow || declared > max) throw refuse(`the document is larger than ${max} bytes`);
  const { headers } = answer;
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(answer.bytes);
  } catch {
    throw refuse("the document is not JSON");
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    throw refuse("the document is not JSON");
  }
  if ((document as { client_id?: unknown })?.client_id !== clientId) {
    throw refuse("the document's client_id is not its own URL");
  }
  let metadata;
  try {
    metadata = validateClientMetadata(document);
  } catch (error) {
    // The document was fetched and is the client's own: what it says is refused as a
    // registration's would be (RFC 7591 invalid_redirect_uri or invalid_client_metadata).
    if (error instanceof OAuthError) {
      throw new OAuthError(error.code, `Client ID metadata document: ${error.description}`);
    }
    throw error;
  }
  return { metadata, maxAge: cacheSeconds(headers) };
}

/** Throws invalid_client for a client_id no client can have. */
function checkClientIdShape(clientId: string): void {
  // deno-lint-ignore no-control-regex
  if (clientId.length === 0 || clientId.length > 2000 || /[\u0000-\u001f\u007f]/.test(clientId)) {
    throw new OAuthError("invalid_client", "Unknown client_id", 401);
  }
}

/**
 * The client of a token or revocation request, as stored (a metadata document's row is used even
 * when its cache time is over: it was checked when the user approved it). Never fetches; throws
 * invalid_client for an unknown client, so that a registered client registers again.
 */
export async function knownClient(sql: Sql, clientId: string): Promise<OAuthClient> {
  checkClientIdShape(clientId);
  const known = await findClient(sql, clientId);
  if (known) return known;
  throw new OAuthError(
    "invalid_client",
    isDocumentClientId(clientId) ? "Unknown client_id" : "Unknown client_id: register again",
    401,
  );
}

/**
 * The client a client_id names: a registration, or a metadata document (from the cache while it
 * is fresh, else fetched again). Throws OAuthError invalid_client for an unknown client.
 */
export async function resolveClient(
  sql: Sql,
  clientId: string,
  policy: DocumentPolicy = {},
): Promise<OAuthClient> {
  checkClientIdShape(clientId);
  const known = await findClient(sql, clientId);
  if (known && known.fresh) return known;
  if (!isDocumentClientId(clientId)) {
    throw new OAuthError("invalid_client", "Unknown client_id: register again", 401);
  }
  if (policy.mayFetch && !(await policy.mayFetch())) {
    throw new OAuthError(
      "temporarily_unavailable",
      "Too many client ID metadata documents fetched for this address; try again within the hour",
      429,
    );
  }
  const { metadata, maxAge } = await fetchDocument(clientId, policy);
  return await storeDocumentClient(sql, clientId, metadata, maxAge);
}
