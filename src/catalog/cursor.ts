/**
 * Cursors of the paged lists: `next_cursor` of one page is the `cursor` of the next,
 * found by keyset (the sort keys of the page's last item) in constant time at any depth, where an
 * offset reads every row before the page.
 *
 * A cursor is opaque to clients: base64url of JSON `{"v":1,"k":[keys],"s":scope,"c":check}`.
 * `scope` is a digest of the list and its normalised filters and sort, so that a cursor given
 * with other filters is refused instead of silently continuing another list; `check` is a digest
 * of the rest, so that a damaged or edited cursor is refused too. No secret is needed: a cursor
 * only names a position in a list its holder may read from the start anyway (docs/DECISIONS.md).
 */
import { createHash } from "node:crypto";
import { InvalidCursorError, InvalidParameterError, PageTooDeepError } from "../platform/errors.ts";

/** The deepest item a `page` may reach (page * page_size); deeper lists continue by cursor. */
export const MAX_PAGE_DEPTH = 10_000;

/** A sort key: a number, or a text (a timestamp in microseconds, exact beyond 2^53). */
export type CursorKey = number | string;

const VERSION = 1;

function digest(text: string): string {
  return createHash("sha256").update(text).digest("base64url").slice(0, 22);
}

/** The scope of a list: its name and its normalised filters and sort, as a digest. */
export function cursorScope(list: string, filters: Record<string, unknown>): string {
  const entries = Object.entries(filters).filter(([, v]) => v !== undefined && v !== null)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return digest(`${list}:${JSON.stringify(entries)}`);
}

/** The cursor after an item with these sort keys, in the list of `scope`. */
export function encodeCursor(scope: string, keys: CursorKey[]): string {
  const body = { v: VERSION, k: keys, s: scope };
  const check = digest(`oi-cursor:${JSON.stringify(body)}`);
  return btoa(JSON.stringify({ ...body, c: check })).replaceAll("+", "-").replaceAll("/", "_")
    .replace(/=+$/, "");
}

function decodeBase64Url(text: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) throw new Error("not base64url");
  const padded = text.replaceAll("-", "+").replaceAll("_", "/");
  return new TextDecoder("utf-8", { fatal: true }).decode(
    Uint8Array.from(
      atob(padded + "=".repeat((4 - (padded.length % 4)) % 4)),
      (c) => c.charCodeAt(0),
    ),
  );
}

/**
 * The sort keys of `cursor`, checked: well formed and intact (else `malformed`), of the list of
 * `scope` (else `other_list`), with `shape` keys ("n" a number, "t" a timestamp in microseconds).
 */
export function decodeCursor(
  cursor: string,
  scope: string,
  shape: ("n" | "t" | "s")[],
): CursorKey[] {
  let parsed: { v?: unknown; k?: unknown; s?: unknown; c?: unknown };
  try {
    parsed = JSON.parse(decodeBase64Url(cursor));
  } catch {
    throw new InvalidCursorError("malformed");
  }
  if (typeof parsed !== "object" || parsed === null || parsed.v !== VERSION) {
    throw new InvalidCursorError("malformed");
  }
  const body = { v: parsed.v, k: parsed.k, s: parsed.s };
  if (parsed.c !== digest(`oi-cursor:${JSON.stringify(body)}`)) {
    throw new InvalidCursorError("malformed");
  }
  if (parsed.s !== scope) throw new InvalidCursorError("other_list");
  const keys = parsed.k;
  if (!Array.isArray(keys) || keys.length !== shape.length) {
    throw new InvalidCursorError("malformed");
  }
  keys.forEach((key, i) => {
    const ok = shape[i] === "n"
      ? typeof key === "number" && Number.isFinite(key)
      : shape[i] === "t"
      ? typeof key === "string" && /^-?\d{1,17}$/.test(key)
      : typeof key === "string" && key.length <= 300;
    if (!ok) throw new InvalidCursorError("malformed");
  });
  return keys as CursorKey[];
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
