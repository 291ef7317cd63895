/**
 * Security helpers of the web area: random tokens stored only as digests, constant-time
 * comparison, cookies, CSRF tokens and the security headers every page carries.
 */
import { sha256Hex, timingSafeEqual } from "../platform/crypto.ts";

/** A new random secret: 32 bytes from the system's cryptographic source, base64url. */
export function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return base64url(bytes);
}

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_")
    .replace(/=+$/, "");
}

/** The SHA-256 hex digest of a token: the only form in which tokens and sessions are stored. */
export function hashToken(token: string): Promise<string> {
  return sha256Hex(token);
}

/**
 * The CSRF token of a form, derived from the cookie it must travel with (the session, or the
 * anonymous CSRF cookie before sign-in). A site that cannot read the cookie cannot compute it,
 * and the digest reveals nothing of the cookie.
 */
export async function csrfTokenFor(secret: string): Promise<string> {
  return (await hashToken(`csrf:${secret}`)).slice(0, 43);
}

/** True when the form's token matches the cookie's, compared in constant time. */
export async function checkCsrf(
  secret: string | undefined,
  submitted: string | undefined,
): Promise<boolean> {
  if (!secret || !submitted) return false;
  return timingSafeEqual(await csrfTokenFor(secret), submitted);
}

/** The cookies of a request, by name (the first value of a repeated name wins). */
export function readCookies(request: Request): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq < 1) continue;
    const name = part.slice(0, eq).trim();
    if (!out.has(name)) out.set(name, part.slice(eq + 1).trim());
  }
  return out;
}

/** True for the loopback host names, where browsers accept cookies without `Secure`. */
export function isLocalhost(hostname: string): boolean {
  return hostname === "localhost" || hostname.endsWith(".localhost") ||
    hostname === "127.0.0.1" || hostname === "[::1]" || hostname === "::1";
}

/** A `Set-Cookie` value: HttpOnly, SameSite=Lax, limited to /account, Secure unless told not. */
export function cookie(
  name: string,
  value: string,
  options: { secure: boolean; maxAge: number },
): string {
  const parts = [
    `${name}=${value}`,
    "Path=/account",
    `Max-Age=${options.maxAge}`,
    "HttpOnly",
    "SameSite=Lax",
  ];
  if (options.secure) parts.push("Secure");
  return parts.join("; ");
}

// No inline script or style anywhere; images may come from article covers on other hosts.
function csp(formAction?: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' https: data:",
    formAction ? `form-action 'self' ${formAction}` : "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join("; ");
}

/**
 * Headers every page of the web area carries. `formAction` is one more origin or scheme the
 * page's forms may go to (the OAuth consent page's, redirected to the app).
 */
export function securityHeaders(
  kind: "public" | "private",
  options: { formAction?: string } = {},
): Record<string, string> {
  return {
    "Content-Security-Policy": csp(options.formAction),
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    // The account area's URLs can carry e-mailed tokens: never send them on as a referrer.
    "Referrer-Policy": kind === "private" ? "no-referrer" : "strict-origin-when-cross-origin",
    "Cross-Origin-Opener-Policy": "same-origin",
    ...(kind === "private" ? { "Cache-Control": "no-store" } : {}),
  };
}

/**
 * True when a state-changing request may come from another site. Browsers send
 * `Sec-Fetch-Site`; where they do not, an `Origin` that is not ours also counts.
 */
export function isCrossSite(request: Request, ownOrigins: string[]): boolean {
  const site = request.headers.get("sec-fetch-site");
  if (site) return site !== "same-origin" && site !== "none";
  const origin = request.headers.get("origin");
  return origin !== null && !ownOrigins.includes(origin);
}
