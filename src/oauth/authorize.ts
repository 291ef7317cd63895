/**
 * The authorization request (OAuth 2.1 section 4.1.1, RFC 8707): checked the same way when
 * /oauth/authorize receives it, when the consent page shows it and when the consent is posted.
 * Errors are answered as OAuth 2.1 section 4.1.2.1 says: a bad or unknown client or redirect URI
 * is shown to the person (never redirected: that would be an open redirector); every other
 * error goes back to the client's redirect URI with `error`, `state` and `iss`.
 */
import type { Sql } from "../db/open.ts";
import {
  isAllowedRedirectUri,
  matchesRedirectUri,
  type OAuthClient,
  OAuthError,
} from "./clients.ts";
import { type DocumentPolicy, resolveClient } from "./documents.ts";
import { isS256Challenge, sameResource } from "./flow.ts";
import { parseScope, type Scope } from "../accounts/scopes.ts";

/** A checked authorization request. */
export interface AuthorizationRequest {
  client: OAuthClient;
  redirectUri: string;
  state: string | undefined;
  codeChallenge: string;
  resource: string;
  /**
   * The scopes the app asks for (unknown ones dropped, `catalog` always): the most the person
   * can grant on the consent page; `watches` only when they tick it.
   */
  scopes: Scope[];
  /** The parameters as received, to carry through the sign-in and the consent form. */
  params: URLSearchParams;
}

/** The outcome of checking a request. */
export type AuthorizationCheck =
  | { kind: "ok"; request: AuthorizationRequest }
  /** Shown to the person, with this message (and `error` code); nothing is redirected. */
  | { kind: "show"; status: number; message: string; error?: string }
  /** Sent back to the client. */
  | { kind: "redirect"; location: string };

const PARAMS = [
  "response_type",
  "client_id",
  "redirect_uri",
  "state",
  "code_challenge",
  "code_challenge_method",
  "scope",
  "resource",
];
const MAX_STATE = 1000;

/** The MCP resource of this service: `{PUBLIC_BASE_URL}/mcp/`. */
export function mcpResource(publicBaseUrl: string): string {
  return `${publicBaseUrl}/mcp/`;
}

/** The client's redirect URI with the response parameters (and `iss`, RFC 9207) added. */
export function redirectWith(
  redirectUri: string,
  fields: Record<string, string | undefined>,
  issuer: string,
): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(fields)) {
    if (value !== undefined) url.searchParams.set(name, value);
  }
  url.searchParams.set("iss", issuer);
  return url.href;
}

/** Checks an authorization request's parameters (from the query or the consent form). */
export async function checkAuthorizationRequest(
  sql: Sql,
  input: URLSearchParams,
  options: { publicBaseUrl: string; documents?: DocumentPolicy },
): Promise<AuthorizationCheck> {
  const params = new URLSearchParams();
  for (const name of PARAMS) {
    const values = input.getAll(name);
    if (values.length > 1) {
      return { kind: "show", status: 400, message: `The parameter ${name} is given twice` };
    }
    // deno-lint-ignore no-control-regex
    if (values[0] !== undefined && /[\u0000]/.test(values[0])) {
      return { kind: "show", status: 400, message: `The parameter ${name} is not valid` };
    }
    if (values[0] !== undefined && values[0] !== "") params.set(name, values[0]);
  }
  const clientId = params.get("client_id");
  if (!clientId) return { kind: "show", status: 400, message: "The client_id is missing" };
  let client: OAuthClient;
  try {
    client = await resolveClient(sql, clientId, options.documents);
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    const status = error.status === 429 ? 429 : 400;
    if (error.code === "invalid_redirect_uri" || error.code === "invalid_client_metadata") {
      const message = `This app describes itself in a way we refuse: ${error.description}`;
      return { kind: "show", status, message, error: error.code };
    }
    return { kind: "show", status, message: `This app is not known: ${error.description}` };
  }
  const given = params.get("redirect_uri");
  let redirectUri: string;
  if (given === null) {
    if (client.redirectUris.length !== 1) {
      return { kind: "show", status: 400, message: "The redirect_uri is missing" };
    }
    redirectUri = client.redirectUris[0];
  } else if (matchesRedirectUri(client.redirectUris, given)) {
    redirectUri = given;
  } else {
    return {
      kind: "show",
      status: 400,
      message: "The redirect_uri is not one this app registered, so we will not send you there",
    };
  }
  if (!isAllowedRedirectUri(redirectUri)) {
    // Registered before the rules were tightened (mailto:, ms-settings: ...): never sent there.
    return {
      kind: "show",
      status: 400,
      error: "invalid_redirect_uri",
      message: "This app's redirect_uri is not an address we send you to",
    };
  }
  const state = params.get("state") ?? undefined;
  const issuer = options.publicBaseUrl;
  const fail = (error: string, description: string): AuthorizationCheck => ({
    kind: "redirect",
    location: redirectWith(redirectUri, {
      error,
      error_description: description,
      state: state && state.length <= MAX_STATE ? state : undefined,
    }, issuer),
  });
  if (state !== undefined && state.length > MAX_STATE) {
    return fail("invalid_request", `state must be at most ${MAX_STATE} characters`);
  }
  if (params.get("response_type") !== "code") {
    return fail("unsupported_response_type", 'response_type must be "code"');
  }
  const challenge = params.get("code_challenge");
  if (!challenge) return fail("invalid_request", "code_challenge is required (PKCE)");
  if (params.get("code_challenge_method") !== "S256") {
    return fail("invalid_request", 'code_challenge_method must be "S256"');
  }
  if (!isS256Challenge(challenge)) {
    return fail("invalid_request", "code_challenge must be the base64url SHA-256 of the verifier");
  }
  const ours = mcpResource(options.publicBaseUrl);
  if (!sameResource(params.get("resource") ?? undefined, ours)) {
    return fail("invalid_target", `resource must be this service's MCP endpoint, ${ours}`);
  }
  return {
    kind: "ok",
    request: {
      client,
      redirectUri,
      state,
      codeChallenge: challenge,
      resource: ours,
      scopes: parseScope(params.get("scope")),
      params,
    },
  };
}
