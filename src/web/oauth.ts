/**
 * The OAuth 2.1 authorization server's endpoints for MCP clients, and the protected resource
 * metadata of /mcp/ (RFC 9728, built with the MCP SDK's helpers):
 * - GET /.well-known/oauth-protected-resource[/mcp[/]]: the MCP resource and its server;
 * - GET /.well-known/oauth-authorization-server: RFC 8414 metadata;
 * - POST /oauth/register: dynamic client registration (RFC 7591), rate-limited per IP;
 * - GET /oauth/authorize: checks the request, then hands it to the consent page under /account
 *   (where the session cookie lives);
 * - POST /oauth/token: authorization_code (PKCE S256) and refresh_token grants;
 * - POST /oauth/revoke: RFC 7009.
 * Every URL in these answers is built from PUBLIC_BASE_URL, never from the request's Host.
 * Every refusal is the OAuth error its RFC names, as JSON, and writes nothing.
 */
import {
  buildOAuthProtectedResourceMetadata,
  getOAuthProtectedResourceMetadataUrl,
} from "@modelcontextprotocol/server";
import { hitRateLimit } from "../db/rate_limits.ts";
import { OAuthError, registerClient } from "../oauth/clients.ts";
import { isLoopbackHost } from "../platform/hosts.ts";
import { validateClientMetadata } from "../oauth/clients.ts";
import { type DocumentPolicy, knownClient } from "../oauth/documents.ts";
import { exchangeCode, refreshGrant, revokeByToken } from "../oauth/flow.ts";
import { SCOPES } from "../accounts/scopes.ts";
import { checkAuthorizationRequest, mcpResource } from "../oauth/authorize.ts";
import type { Sql } from "../db/open.ts";
import { corsHeaders, json, preflight } from "../platform/responses.ts";
import { randomToken } from "./security.ts";

/** What the OAuth endpoints need. */
export interface OAuthDeps {
  sql: Sql;
  publicBaseUrl: string;
  documents?: DocumentPolicy;
  /** Registrations one IP may make per hour (default 20). */
  registrationsPerHour?: number;
  /** Client ID metadata documents one IP may have fetched per hour (default 60). */
  documentFetchesPerHour?: number;
}

const MAX_REGISTRATION_BYTES = 16 * 1024;
const MAX_FORM_BYTES = 8 * 1024;
const NO_STORE = { "Cache-Control": "no-store", Pragma: "no-cache" };

/** True for the paths the OAuth endpoints answer. */
export function isOAuthPath(path: string): boolean {
  return path.startsWith("/oauth/") || path === "/.well-known/oauth-authorization-server" ||
    path === "/.well-known/oauth-protected-resource" ||
    path.startsWith("/.well-known/oauth-protected-resource/");
}

/** Why OAuth clients will refuse this base URL (http outside loopback), or undefined. */
export function insecureIssuerWarning(publicBaseUrl: string): string | undefined {
  const url = new URL(publicBaseUrl);
  if (url.protocol === "https:" || isLoopbackHost(url.hostname)) return undefined;
  return `PUBLIC_BASE_URL ${publicBaseUrl} is not https: API keys work, but MCP clients ` +
    "refuse to sign in with OAuth to an http server outside loopback";
}

/** The metadata documents of the service, from PUBLIC_BASE_URL only. */
export function oauthMetadata(publicBaseUrl: string) {
  const base = publicBaseUrl;
  const authorizationServer = {
    issuer: base,
    authorization_endpoint: `${base}/oauth/authorize`,
    token_endpoint: `${base}/oauth/token`,
    registration_endpoint: `${base}/oauth/register`,
    revocation_endpoint: `${base}/oauth/revoke`,
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none"],
    revocation_endpoint_auth_methods_supported: ["none"],
    scopes_supported: [...SCOPES],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${base}/docs`,
  };
  const resource = new URL(mcpResource(base));
  const protectedResource = {
    ...buildOAuthProtectedResourceMetadata({
      oauthMetadata: authorizationServer,
      resourceServerUrl: resource,
      serviceDocumentationUrl: new URL(`${base}/docs`),
      scopesSupported: [...SCOPES],
      resourceName: "Opportunity Intelligence",
      // OAuth 2.1 wants an https issuer, and MCP clients refuse any other outside loopback; a
      // plain http PUBLIC_BASE_URL still serves keys (main.ts warns at start), only sign-in fails.
      dangerouslyAllowInsecureIssuerUrl: resource.protocol === "http:",
    }),
    bearer_methods_supported: ["header"],
  };
  return {
    authorizationServer,
    protectedResource,
    protectedResourceUrl: getOAuthProtectedResourceMetadataUrl(resource),
  };
}

function oauthError(error: OAuthError): Response {
  return json(error.status, error.body, NO_STORE);
}

function methodNotAllowed(allow: string): Response {
  return json(405, {
    error: "invalid_request",
    error_description: `Use ${allow}`,
  }, { Allow: allow });
}

/** The form fields of a urlencoded body, each at most once; throws invalid_request. */
async function readOAuthForm(request: Request): Promise<Map<string, string>> {
  const type = request.headers.get("content-type") ?? "";
  if (!type.toLowerCase().startsWith("application/x-www-form-urlencoded")) {
    throw new OAuthError(
      "invalid_request",
      "The body must be application/x-www-form-urlencoded",
    );
  }
  const text = await request.text();
  if (text.length > MAX_FORM_BYTES) {
    throw new OAuthError("invalid_request", `The body must be at most ${MAX_FORM_BYTES} bytes`);
  }
  const fields = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(text)) {
    if (fields.has(name)) throw new OAuthError("invalid_request", `${name} is given twice`);
    // deno-lint-ignore no-control-regex
    if (/[\u0000-\u001f\u007f]/.test(value)) {
      throw new OAuthError("invalid_request", `${name} contains control characters`);
    }
    fields.set(name, value);
  }
  return fields;
}

/** The client_id of a token or revocation request: the form field or HTTP Basic's user name. */
function clientIdOf(request: Request, form: Map<string, string>): string {
  const basic = /^Basic\s+(\S+)$/i.exec(request.headers.get("authorization") ?? "")?.[1];
  let fromHeader: string | undefined;
  if (basic) {
    try {
      fromHeader = decodeURIComponent(atob(basic).split(":")[0]);
    } catch {
      throw new OAuthError("invalid_client", "The Authorization header is not valid", 401);
    }
  }
  const fromForm = form.get("client_id");
  if (fromHeader && fromForm && fromHeader !== fromForm) {
    throw new OAuthError("invalid_request", "Two different client_id values");
  }
  const clientId = fromForm ?? fromHeader;
  if (!clientId) throw new OAuthError("invalid_request", "client_id is required");
  return clientId;
}

function required(form: Map<string, string>, name: string): string {
  const value = form.get(name);
  if (!value) throw new OAuthError("invalid_request", `${name} is required`);
  return value;
}

/** Builds the handler of the OAuth paths; `ip` is the client's address for the rate limit. */
export function createOAuthEndpoints(deps: OAuthDeps) {
  const { sql, publicBaseUrl } = deps;
  const metadata = oauthMetadata(publicBaseUrl);

  async function register(request: Request, ip: string): Promise<Response> {
    const text = await request.text();
    if (text.length > MAX_REGISTRATION_BYTES) {
      throw new OAuthError("invalid_client_metadata", "The metadata is too large");
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new OAuthError("invalid_client_metadata", "The body must be a JSON object");
    }
    const client = validateClientMetadata(body);
    const allowed = await hitRateLimit(sql, {
      bucket: `oauth:register:${ip}`,
      limit: deps.registrationsPerHour ?? 20,
      windowSeconds: 3600,
    });
    if (!allowed) {
      return json(429, {
        error: "too_many_requests",
        error_description: "Too many registrations from this address; try again in an hour",
      }, { "Retry-After": "3600", ...NO_STORE });
    }
    const clientId = `oi_client_${randomToken()}`;
    await registerClient(sql, clientId, client);
    return json(201, {
      client_id: clientId,
      client_id_issued_at: Math.floor(Date.now() / 1000),
      client_name: client.clientName,
      ...(client.clientUri ? { client_uri: client.clientUri } : {}),
      redirect_uris: client.redirectUris,
      grant_types: client.grantTypes,
      response_types: client.responseTypes,
      token_endpoint_auth_method: "none",
    }, NO_STORE);
  }

  /** The document policy of a request from `ip`: its fetches count against the IP's limit. */
  function documentsFor(ip: string): DocumentPolicy {
    return {
      ...deps.documents,
      mayFetch: () =>
        hitRateLimit(sql, {
          bucket: `oauth:document:${ip}`,
          limit: deps.documentFetchesPerHour ?? 60,
          windowSeconds: 3600,
        }),
    };
  }

  // The token and revocation endpoints never fetch a client ID metadata document: the client
  // was resolved at /oauth/authorize, and the grant its code or token belongs to names it.
  async function token(request: Request): Promise<Response> {
    const form = await readOAuthForm(request);
    const grantType = required(form, "grant_type");
    if (grantType !== "authorization_code" && grantType !== "refresh_token") {
      throw new OAuthError("unsupported_grant_type", `grant_type "${grantType}" is not supported`);
    }
    const clientId = clientIdOf(request, form);
    const resource = form.get("resource");
    if (grantType === "authorization_code") {
      const code = required(form, "code");
      const verifier = required(form, "code_verifier");
      const client = await knownClient(sql, clientId);
      const tokens = await exchangeCode(sql, {
        clientId: client.clientId,
        code,
        verifier,
        redirectUri: form.get("redirect_uri"),
        resource,
      });
      return json(200, tokens, NO_STORE);
    }
    const refreshToken = required(form, "refresh_token");
    const client = await knownClient(sql, clientId);
    const tokens = await refreshGrant(sql, {
      clientId: client.clientId,
      refreshToken,
      resource,
      scope: form.get("scope"),
    });
    return json(200, tokens, NO_STORE);
  }

  async function revoke(request: Request): Promise<Response> {
    const form = await readOAuthForm(request);
    const token = required(form, "token");
    const client = await knownClient(sql, clientIdOf(request, form));
    await revokeByToken(sql, { clientId: client.clientId, token });
    // RFC 7009 section 2.2: 200 whether or not the token was valid.
    return new Response(null, { status: 200, headers: { ...corsHeaders(), ...NO_STORE } });
  }

  async function authorize(url: URL, ip: string): Promise<Response> {
    const check = await checkAuthorizationRequest(sql, url.searchParams, {
      publicBaseUrl,
      documents: documentsFor(ip),
    });
    if (check.kind === "redirect") {
      return new Response(null, { status: 302, headers: { Location: check.location } });
    }
    if (check.kind === "show") {
      return json(check.status, {
        error: check.error ?? "invalid_request",
        error_description: check.message,
      });
    }
    // The consent page lives under /account, where the session cookie is sent.
    return new Response(null, {
      status: 302,
      headers: { Location: `${publicBaseUrl}/account/authorize?${check.request.params}` },
    });
  }

  async function route(request: Request, url: URL, ip: string): Promise<Response> {
    const path = url.pathname;
    const isGet = request.method === "GET" || request.method === "HEAD";
    if (path.startsWith("/.well-known/")) {
      if (request.method === "OPTIONS") return preflight("GET, OPTIONS");
      if (!isGet) return methodNotAllowed("GET");
      const cache = { "Cache-Control": "public, max-age=300" };
      if (path === "/.well-known/oauth-authorization-server") {
        return json(200, metadata.authorizationServer, cache);
      }
      const suffix = path.slice("/.well-known/oauth-protected-resource".length);
      if (suffix === "" || suffix === "/mcp" || suffix === "/mcp/") {
        return json(200, metadata.protectedResource, cache);
      }
      return json(404, { error: "not_found", error_description: `Cannot find "${path}"` });
    }
    switch (path) {
      case "/oauth/authorize":
        if (!isGet) return methodNotAllowed("GET");
        return await authorize(url, ip);
      case "/oauth/register":
      case "/oauth/token":
      case "/oauth/revoke": {
        if (request.method === "OPTIONS") return preflight("POST, OPTIONS");
        if (request.method !== "POST") return methodNotAllowed("POST");
        if (path === "/oauth/register") return await register(request, ip);
        return path === "/oauth/token" ? await token(request) : await revoke(request);
      }
      default:
        return json(404, { error: "not_found", error_description: `Cannot find "${path}"` });
    }
  }

  /** Answers a request under /oauth/ or /.well-known/oauth-*. */
  return async function handle(request: Request, ip: string): Promise<Response> {
    const url = new URL(request.url);
    try {
      return await route(request, url, ip);
    } catch (error) {
      if (error instanceof OAuthError) return oauthError(error);
      throw error;
    }
  };
}
