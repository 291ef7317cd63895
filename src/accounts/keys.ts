/**
 * API key format: `oi_live_` + 44 random base62 characters (262 bits from
 * crypto.getRandomValues) + a 6-character base62 CRC-32 of everything before it. The prefix lets
 * secret scanners find leaked keys; the checksum lets the server turn away a mistyped or
 * invented key without a database lookup. Only the SHA-256 hex digest is ever stored.
 */
import { sha256Hex } from "../platform/crypto.ts";

const KEY_PREFIX = "oi_live_";
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const RANDOM_LENGTH = 44;
const CHECKSUM_LENGTH = 6;

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(text: string): number {
  let crc = 0xffffffff;
  for (const byte of new TextEncoder().encode(text)) {
    crc = CRC_TABLE[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function checksum(body: string): string {
  let n = crc32(body);
  let out = "";
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

function randomBase62(length: number): string {
  let out = "";
  const buffer = new Uint8Array(length * 2);
  while (out.length < length) {
    crypto.getRandomValues(buffer);
    for (const b of buffer) {
      // 248 = 62 * 4: rejecting the rest keeps every character equally likely.
      if (b < 248 && out.length < length) out += BASE62[b % 62];
    }
  }
  return out;
}

/** Makes a new raw API key. */
export function generateApiKey(): string {
  return generateSecret(KEY_PREFIX);
}

/** True when `raw` has the key format and a matching checksum (no database needed). */
export function isWellFormedKey(raw: string): boolean {
  return isWellFormedSecret(raw, KEY_PREFIX);
}

/** The SHA-256 hex digest of the whole raw key: the only form in which keys are stored. */
export function hashApiKey(raw: string): Promise<string> {
  return sha256Hex(raw);
}

/** The short prefix shown when listing keys (the first 12 characters). */
export function displayPrefix(raw: string): string {
  return raw.slice(0, 12);
}

/** Prefixes of the OAuth secrets (src/oauth/flow.ts): access and refresh tokens, codes. */
export const ACCESS_TOKEN_PREFIX = "oi_at_";
export const REFRESH_TOKEN_PREFIX = "oi_rt_";
export const CODE_PREFIX = "oi_ac_";

/** Makes a new OAuth secret: `prefix` + 44 random base62 characters + a 6-character checksum. */
export function generateSecret(prefix: string): string {
  const body = prefix + randomBase62(RANDOM_LENGTH);
  return body + checksum(body);
}

/** True when `raw` is a well-formed secret of `prefix` (format and checksum, no database). */
export function isWellFormedSecret(raw: string, prefix: string): boolean {
  if (!raw.startsWith(prefix) || raw.length !== prefix.length + RANDOM_LENGTH + CHECKSUM_LENGTH) {
    return false;
  }
  const rest = raw.slice(prefix.length);
  if (!/^[0-9A-Za-z]+$/.test(rest)) return false;
  return checksum(raw.slice(0, -CHECKSUM_LENGTH)) === raw.slice(-CHECKSUM_LENGTH);
}

/** True when `raw` looks like an OAuth access token (its prefix), well-formed or not. */
export function isAccessTokenShaped(raw: string): boolean {
  return raw.startsWith(ACCESS_TOKEN_PREFIX);
}
