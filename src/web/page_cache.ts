/**
 * Rendered public pages (articles, opportunity pages, feeds) and their cache: the service's
 * version cache (src/catalog/cache.ts), so a page lives while `data_version` stays the same, at
 * most a minute (scheduled articles appear soon after their time), and concurrent misses of one
 * page render it once. Every page carries an ETag of its bytes, so a reader's cache revalidates
 * with a 304.
 */
import { sha256Hex } from "../platform/crypto.ts";
import { VersionedCache } from "../catalog/cache.ts";
import { answerBytes, type MemoryBudget } from "../platform/memory.ts";

const PAGE_TTL_MS = 60_000;
const MAX_ENTRIES = 1000;

/** A rendered page, as cached. */
export interface Rendered {
  status: number;
  body: string;
  contentType: string;
  etag: string;
  /** Where a redirect (status 301) points, as a path. */
  location?: string;
}

/** The cache of rendered pages of one handler, its bytes drawn from `budget` as `pages`. */
export function createPageCache(budget?: MemoryBudget): VersionedCache {
  const memory = budget && {
    budget,
    part: "pages",
    // A rendered page by its body; anything else the cache holds (a search's rows) by its JSON.
    sizeOf: (value: unknown) => {
      const body = (value as Partial<Rendered> | undefined)?.body;
      return typeof body === "string" ? 256 + body.length * 2 : answerBytes(value);
    },
  };
  return new VersionedCache(MAX_ENTRIES, PAGE_TTL_MS, undefined, memory);
}

// Thrown inside a cached render for a path that names no page, so that 404s are not kept.
const NO_PAGE = Symbol("no page");

/** The cached page of `key`, rendered by `render` when needed; undefined when there is none. */
export async function cachedPage<T>(
  cache: VersionedCache,
  version: number,
  key: string,
  render: () => Promise<T | undefined>,
): Promise<T | undefined> {
  try {
    return await cache.get(version, key, async () => (await render()) ?? Promise.reject(NO_PAGE));
  } catch (error) {
    if (error === NO_PAGE) return undefined;
    throw error;
  }
}

/** The ETag of a body: a prefix of its SHA-256, quoted. */
export async function etagOf(body: string): Promise<string> {
  return `"${(await sha256Hex(body)).slice(0, 24)}"`;
}

/** A 200 page of `body`. */
export async function rendered(
  body: string,
  contentType = "text/html; charset=utf-8",
): Promise<Rendered> {
  return { status: 200, body, contentType, etag: await etagOf(body) };
}

/** A page that changes only with a deployment (the home page's frame, the docs), with its ETag. */
export async function staticPage(
  body: string,
  contentType = "text/html; charset=utf-8",
): Promise<Rendered> {
  const etag = `"${(await sha256Hex(body)).slice(0, 24)}"`;
  return { status: 200, body, contentType, etag };
}
