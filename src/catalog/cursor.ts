/**
 * Cursors of the paged lists: `next_cursor` of one page is the `cursor` of the next,
 * found by keyset (the sort keys of the page's last item) in constant time at any depth, where an
 * offset reads every row before the page.
 *
 * A cursor is opaque to clients: `<payload>.<mac>`, the payload base64url of JSON
 * `{"v":2,"k":[keys],"s":scope}` and the mac an HMAC-SHA256 of it with a server secret. `scope` is
 * a digest of the list and its normalised filters and sort, so that a cursor given with other
 * filters is refused instead of silently continuing another list. The mac means only the service
 * mints cursors; every key is checked by value too (its column's range, its domain), so that even
 * a cursor signed with a leaked secret reaches no statement with a value PostgreSQL would refuse.
 * Both checks come before any query and any charge: anything else is a 422 invalid_cursor.
 *
 * The secrets: CURSOR_SECRET (a list: the first signs, all verify, for rotation), else one made
 * once and kept in the database (sql/0018_cursor_secret.sql), so that every instance on a
 * database signs alike with no setting (useCursorSecrets, storedCursorSecret).
 */
import { createHash, createHmac } from "node:crypto";
import type { Sql } from "../db/open.ts";
import { timingSafeEqual } from "../platform/crypto.ts";
import { InvalidCursorError, InvalidParameterError, PageTooDeepError } from "../platform/errors.ts";
import { SLUG_PATTERN } from "./schemas.ts";

/** The deepest item a `page` may reach (page * page_size); deeper lists continue by cursor. */
export const MAX_PAGE_DEPTH = 10_000;

/** A sort key: a number, or a text (a timestamp in microseconds, exact beyond 2^53). */
export type CursorKey = number | string;

/**
 * What a key is, and so which values it may hold:
 * - `score`: an opportunity's score, an integer from 0 to 100 (its column's check);
 * - `sub`: one of its sub-scores, an integer from 0 to 10 (their columns' checks);
 * - `id`: a row id, an integer from 1 to 2^31 - 1 (PostgreSQL integer, identity from 1);
 * - `us`: a timestamp in microseconds since 1970 as canonical decimal text, under 10^17 either
 *   way (years 1200 BC to 5138 AD, inside PostgreSQL's timestamptz range);
 * - `rank`: a relevance (ts_rank_cd, a real): 0, or from 1e-37 (PostgreSQL refuses a real closer
 *   to 0) to 1e6 (cover density stays far below);
 * - `slug`: an article's slug, as its column's check (SLUG_PATTERN), at most 200 characters;
 * - `at`: a position in a ranked list, from 1 to MAX_PAGE_DEPTH (the depth page numbers reach).
 */
export type KeyKind = "score" | "sub" | "id" | "us" | "rank" | "slug" | "at";

const VERSION = 2;
/** Bytes of the HMAC a cursor carries (128 bits, as base64url 22 characters). */
const MAC_BYTES = 16;
const CURSOR_SHAPE = /^([A-Za-z0-9_-]{1,1500})\.([A-Za-z0-9_-]{22})$/;

/** The shortest secret accepted: 32 characters (`openssl rand -base64 32` gives 44). */
const MIN_SECRET_LENGTH = 32;

// One service per process: the secrets are set once at start (main.ts), like its configuration.
// Until then (the admin CLI, a test's handler), a secret of this process alone.
let secrets: readonly string[] = [crypto.randomUUID() + crypto.randomUUID()];

// Cursors whose mac was verified under the current secrets: a request reads its cursor two or
// three times (the check before the charge, then the query), and an HMAC costs tens of
// microseconds on a busy machine. Bounded; emptied whenever the secrets change.
const verified = new Set<string>();
const MAX_VERIFIED = 1000;

/** Signs cursors with `list[0]` and accepts those of any secret of `list` from now on. */
export function useCursorSecrets(list: readonly string[]): void {
  if (list.length === 0 || list.some((s) => s.length < MIN_SECRET_LENGTH)) {
    throw new Error(`Cursor secrets must be at least ${MIN_SECRET_LENGTH} characters`);
  }
  secrets = Object.freeze([...list]);
  verified.clear();
}

/**
 * The database's cursor secret, made by the first instance that asks (or by the next one after
 * its row is deleted, to rotate it): what every instance on the database signs with when
 * CURSOR_SECRET is not set. Instances starting at once agree: one insert wins, all read it.
 */
export async function storedCursorSecret(sql: Sql): Promise<string> {
  await sql`
    insert into service_secrets (name, secret)
    values ('cursor', replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''))
    on conflict (name) do nothing`;
  const [row] = await sql<{ secret: string }[]>`
    select secret from service_secrets where name = 'cursor'`;
  return row.secret;
}

function digest(text: string): string {
  return createHash("sha256").update(text).digest("base64url").slice(0, 22);
}

function mac(secret: string, payload: string): string {
  return createHmac("sha256", secret).update(`oi-cursor:${payload}`).digest()
    .subarray(0, MAC_BYTES).toString("base64url");
}

function base64url(text: string): string {
  return btoa(String.fromCharCode(...new TextEncoder().encode(text)))
    .replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function decodeBase64Url(text: string): string {
  const padded = text.replaceAll("-", "+").replaceAll("_", "/");
  return new TextDecoder("utf-8", { fatal: true }).decode(
    Uint8Array.from(
      atob(padded + "=".repeat((4 - (padded.length % 4)) % 4)),
      (c) => c.charCodeAt(0),
    ),
  );
}

/** The scope of a list: its name and its normalised filters and sort, as a digest. */
export function cursorScope(list: string, filters: Record<string, unknown>): string {
  const entries = Object.entries(filters).filter(([, v]) => v !== undefined && v !== null)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return digest(`${list}:${JSON.stringify(entries)}`);
}

/** The cursor after an item with these sort keys, in the list of `scope`. */
export function encodeCursor(scope: string, keys: CursorKey[]): string {
  const payload = base64url(JSON.stringify({ v: VERSION, k: keys, s: scope }));
  return `${payload}.${mac(secrets[0], payload)}`;
}

/**
 * The raw keys of `cursor`, checked: well formed and signed by one of the secrets (else
 * `malformed`), of the list of `scope` (else `other_list`). Their values are not checked yet:
 * see checkKeys.
 */
export function readCursor(cursor: string, scope: string): unknown[] {
  const parts = CURSOR_SHAPE.exec(cursor);
  if (!parts) throw new InvalidCursorError("malformed");
  const [, payload, given] = parts;
  if (!verified.has(cursor)) {
    // Every secret is tried, so the time taken says nothing about which one matched.
    const signed = secrets.map((s) => timingSafeEqual(mac(s, payload), given)).includes(true);
    if (!signed) throw new InvalidCursorError("malformed");
    if (verified.size >= MAX_VERIFIED) verified.clear();
    verified.add(cursor);
  }
  let parsed: { v?: unknown; k?: unknown; s?: unknown };
  try {
    parsed = JSON.parse(decodeBase64Url(payload));
  } catch {
    throw new InvalidCursorError("malformed");
  }
  if (typeof parsed !== "object" || parsed === null || parsed.v !== VERSION) {
    throw new InvalidCursorError("malformed");
  }
  if (!Array.isArray(parsed.k) || typeof parsed.s !== "string") {
    throw new InvalidCursorError("malformed");
  }
  if (parsed.s !== scope) throw new InvalidCursorError("other_list");
  return parsed.k;
}

const INT4_MAX = 2 ** 31 - 1;

function isInteger(key: unknown, min: number, max: number): key is number {
  return typeof key === "number" && Number.isInteger(key) && !Object.is(key, -0) &&
    key >= min && key <= max;
}

/** Whether `key` is a value a key of `kind` may hold (KeyKind). */
function keyFits(kind: KeyKind, key: unknown): boolean {
  switch (kind) {
    case "score":
      return isInteger(key, 0, 100);
    case "sub":
      return isInteger(key, 0, 10);
    case "id":
      return isInteger(key, 1, INT4_MAX);
    case "at":
      return isInteger(key, 1, MAX_PAGE_DEPTH);
    case "us":
      return typeof key === "string" && /^(0|-?[1-9]\d{0,16})$/.test(key);
    case "rank":
      return typeof key === "number" && !Object.is(key, -0) &&
        (key === 0 || (key >= 1e-37 && key <= 1e6));
    case "slug":
      return typeof key === "string" && key.length <= 200 && SLUG_PATTERN.test(key);
  }
}

/** `keys` as keys of `kinds`: as many, each a value its kind may hold; else `malformed`. */
export function checkKeys(keys: unknown[], kinds: readonly KeyKind[]): CursorKey[] {
  if (keys.length !== kinds.length || !kinds.every((kind, i) => keyFits(kind, keys[i]))) {
    throw new InvalidCursorError("malformed");
  }
  return keys as CursorKey[];
}

/** The sort keys of `cursor` in the list of `scope`, checked (readCursor, then checkKeys). */
export function decodeCursor(
  cursor: string,
  scope: string,
  kinds: readonly KeyKind[],
): CursorKey[] {
  return checkKeys(readCursor(cursor, scope), kinds);
}

/**
 * Checks the paging of a list query before anything is charged: `cursor` and a `page` other than
 * 1 do not go together, and without a cursor a page may not end deeper than MAX_PAGE_DEPTH.
 */
export function checkPaging(query: { cursor?: string; page: number; page_size: number }): void {
  if (query.cursor !== undefined) {
    if (query.page !== 1) {
      throw new InvalidParameterError([
        { param: "page", message: "cannot be combined with cursor (a cursor names its page)" },
      ]);
    }
    return;
  }
  if (query.page * query.page_size > MAX_PAGE_DEPTH) {
    throw new PageTooDeepError(query.page, query.page_size, MAX_PAGE_DEPTH);
  }
}
