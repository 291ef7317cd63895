/**
 * Keyless searches of the public catalogue (`/opportunities?q=`), limited per client address: a
 * search costs the database a ranked full-text match that the page cache rarely holds, and no
 * key pays for it. Past the limit, a 429 page that says when to come back (and `Retry-After`).
 */
import type { Sql } from "../../db/open.ts";
import { hitRateLimit } from "../../db/rate_limits.ts";
import { html, page } from "../html.ts";
import { securityHeaders } from "../security.ts";

/** Keyless searches a client address may make in a minute. */
export const SEARCHES_PER_MINUTE = 60;

/** True for a request of the catalogue that searches (a non-blank `q`). */
export function isCatalogueSearch(url: URL): boolean {
  return url.pathname.replace(/\/$/, "") === "/opportunities" &&
    (url.searchParams.get("q") ?? "").trim() !== "";
}

/** Counts one search of `ip`; the 429 page when its minute is full, else undefined. */
export async function limitSearch(
  sql: Sql,
  ip: string,
  perMinute = SEARCHES_PER_MINUTE,
): Promise<Response | undefined> {
  const windowSeconds = 60;
  const bucket = `catalogue:search:${ip}`;
  if (await hitRateLimit(sql, { bucket, limit: perMinute, windowSeconds })) return undefined;
  // Fixed windows start at multiples of windowSeconds (db/rate_limits.ts).
  const wait = Math.max(1, windowSeconds - Math.floor(Date.now() / 1000) % windowSeconds);
  const when = `${wait} ${wait === 1 ? "second" : "seconds"}`;
  const body = page({
    title: "Too many searches · Opportunity Intelligence",
    body: html`
      <h1>Too many searches</h1>
      <p>This address has searched the catalogue ${perMinute} times this minute.
      Try again in ${when}; browsing the <a href="/opportunities">catalogue</a>,
      its themes and categories goes on meanwhile. With an API key, searches count against your
      plan's quota instead (<a href="/account">an account</a>).</p>
    `,
  });
  return new Response(body, {
    status: 429,
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Retry-After": String(wait),
      ...securityHeaders("public"),
    },
  });
}
