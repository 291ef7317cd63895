/**
 * The few cryptographic helpers the service needs, on the Web Crypto API: digests of secrets
 * (keys, tokens, sessions are stored only as these), comparisons that do not leak where two
 * secrets differ, and reading a bearer token.
 */
const encoder = new TextEncoder();

/** The SHA-256 digest of `text` (UTF-8) as 64 lowercase hex digits. */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Compares two strings in time that depends only on their lengths, not on where they differ. */
export function timingSafeEqual(a: string, b: string): boolean {
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < x.length; i++) diff |= x[i] ^ (y[i % (y.length || 1)] ?? 0);
  return diff === 0;
}

/** The token of an `Authorization: Bearer <token>` header, if the request has one. */
export function bearerToken(request: Request): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "")?.[1];
}
