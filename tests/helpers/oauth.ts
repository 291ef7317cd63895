/**
 * OAuth test client pieces for the in-process tests: PKCE pairs, registration, the authorize →
 * consent → code round trip through the account area with the tiny Browser, and the token
 * endpoint.
 */
import assert from "node:assert/strict";
import { Browser, type WebTestApp } from "./web.ts";
import type { Sql } from "../../src/db/open.ts";

/** A PKCE verifier and its S256 challenge. */
export async function pkcePair(): Promise<{ verifier: string; challenge: string }> {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  const verifier = b64url(bytes);
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)),
  );
  return { verifier, challenge: b64url(digest) };
}

function b64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_")
    .replace(/=+$/, "");
}

export const REDIRECT = "http://127.0.0.1:7777/callback";

/** Registers a client (RFC 7591); returns the answer and its body. */
export async function register(
  app: WebTestApp,
  metadata: unknown,
  ip = "192.0.2.10",
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await app.handler(
    new Request(`${app.base}/oauth/register`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "x-test-ip": ip },
      body: typeof metadata === "string" ? metadata : JSON.stringify(metadata),
    }),
  );
  return { status: response.status, body: await response.json() };
}

/** Registers a good client with REDIRECT; returns its client_id. */
export async function registerClient(app: WebTestApp, name = "Test client"): Promise<string> {
  const { status, body } = await register(app, {
    client_name: name,
    redirect_uris: [REDIRECT],
    token_endpoint_auth_method: "none",
  });
  assert.equal(status, 201, JSON.stringify(body));
  return body.client_id as string;
}

/** The parameters of an authorization request of `clientId`. */
export function authorizeParams(
  clientId: string,
  challenge: string,
  extra: Record<string, string> = {},
): URLSearchParams {
  return new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "state-123",
    resource: "http://localhost:8000/mcp/",
    scope: "catalog",
    ...extra,
  });
}

/** The hidden fields of the consent form (decision excluded). */
export function consentFields(page: string): Record<string, string> {
  const form = /<form method="post" action="\/account\/authorize">([\s\S]*?)<\/form>/.exec(page);
  assert.ok(form, "no consent form on the page");
  const fields: Record<string, string> = {};
  for (const m of form[1].matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[m[1]] = m[2].replaceAll("&amp;", "&").replaceAll("&quot;", '"').replaceAll(
      "&#39;",
      "'",
    ).replaceAll("&lt;", "<").replaceAll("&gt;", ">");
  }
  return fields;
}

/**
 * Runs /oauth/authorize and the consent of a signed-in Browser; returns the redirect it ends
 * with (the client's redirect URI with code or error). `tick` adds form fields the person sets,
 * such as the `grant_watches` box.
 */
export async function authorize(
  browser: Browser,
  params: URLSearchParams,
  decision: "approve" | "deny" = "approve",
  tick: Record<string, string> = {},
): Promise<URL> {
  const start = await browser.request(`/oauth/authorize?${params}`);
  await start.body?.cancel();
  assert.equal(start.status, 302);
  const consentUrl = start.headers.get("location")!;
  assert.ok(consentUrl.startsWith(`${browser.app.base}/account/authorize?`), consentUrl);
  const consent = await browser.get(consentUrl);
  assert.equal(consent.response.status, 200, consent.text);
  const fields = consentFields(consent.text);
  const decided = await browser.post("/account/authorize", { ...fields, ...tick, decision });
  assert.equal(decided.response.status, 303, decided.text);
  return new URL(decided.response.headers.get("location")!);
}

/** POSTs a form to the token (or revocation) endpoint. */
export async function tokenRequest(
  app: WebTestApp,
  fields: Record<string, string>,
  path = "/oauth/token",
  ip = "192.0.2.10",
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const response = await app.handler(
    new Request(`${app.base}${path}`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", "x-test-ip": ip },
      body: new URLSearchParams(fields).toString(),
    }),
  );
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : {}, headers: response.headers };
}

/**
 * A complete sign-in: register, authorize, approve, exchange; returns tokens, ids and the token
 * response's scope. `scope` is the request's; `grantWatches` ticks the consent page's box.
 */
export async function connectApp(
  app: WebTestApp,
  browser: Browser,
  name = "Test client",
  options: { scope?: string; grantWatches?: boolean } = {},
) {
  const clientId = await registerClient(app, name);
  const { verifier, challenge } = await pkcePair();
  const params = authorizeParams(
    clientId,
    challenge,
    options.scope === undefined ? {} : { scope: options.scope },
  );
  const tick: Record<string, string> = options.grantWatches ? { grant_watches: "yes" } : {};
  const back = await authorize(browser, params, "approve", tick);
  const code = back.searchParams.get("code")!;
  assert.ok(code, back.href);
  const { status, body } = await tokenRequest(app, {
    grant_type: "authorization_code",
    code,
    code_verifier: verifier,
    client_id: clientId,
    redirect_uri: REDIRECT,
    resource: "http://localhost:8000/mcp/",
  });
  assert.equal(status, 200, JSON.stringify(body));
  return {
    clientId,
    code,
    verifier,
    access: body.access_token as string,
    refresh: body.refresh_token as string,
    scope: body.scope as string,
  };
}

/** POSTs a JSON-RPC message to /mcp/ with a bearer token. */
export function mcpBearer(
  app: WebTestApp,
  token: string | undefined,
  message: Record<string, unknown>,
): Promise<Response> {
  return app.handler(
    new Request(`${app.base}/mcp/`, {
      method: "POST",
      headers: {
        ...(token ? { Authorization: `Bearer ${token}` } : {}),
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-06-18",
      },
      body: JSON.stringify({ jsonrpc: "2.0", ...message }),
    }),
  );
}

export { Browser };

/** How many OAuth clients, grants, codes and tokens are stored. */
export async function oauthCounts(sql: Sql) {
  const [row] = await sql<{ clients: number; grants: number; codes: number; tokens: number }[]>`
    select (select count(*)::int from oauth_clients) as clients,
      (select count(*)::int from oauth_grants) as grants,
      (select count(*)::int from oauth_codes) as codes,
      (select count(*)::int from oauth_tokens) as tokens`;
  return row;
}

/** A tools/call of `name` without arguments, with an OAuth access token. */
export async function toolCall(app: WebTestApp, token: string, name: string) {
  const res = await mcpBearer(app, token, {
    id: 2,
    method: "tools/call",
    params: { name, arguments: {} },
  });
  return { res, body: await res.json() };
}

/** Asserts that an access token is refused with 401 invalid_token on MCP and on REST. */
export async function assertTokenRefused(app: WebTestApp, token: string) {
  const mcp = await mcpBearer(app, token, { id: 1, method: "tools/list", params: {} });
  assert.equal(mcp.status, 401);
  assert.match(mcp.headers.get("www-authenticate") ?? "", /^Bearer error="invalid_token"/);
  assert.equal((await mcp.json()).error.data.error, "invalid_token");
  const rest = await app.handler(
    new Request(`${app.base}/api/v1/overview`, { headers: { Authorization: `Bearer ${token}` } }),
  );
  assert.equal(rest.status, 401);
  assert.equal(rest.headers.get("www-authenticate"), 'Bearer error="invalid_token"');
  assert.match(rest.headers.get("access-control-expose-headers") ?? "", /WWW-Authenticate/);
  assert.equal((await rest.json()).error, "invalid_token");
}
