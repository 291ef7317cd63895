/**
 * The link of an evidence quote as answers show it: the public thread the quote was taken from,
 * never a page about a person. An import may carry any http(s) URL (src/ingest/records.ts), so
 * the check is on read, like the quotes' scrubbing: a URL that names a user (a profile, a user's
 * own post list), carries credentials, or is not http(s) is answered as null, and a fragment is
 * dropped (it can point at one reply, whose author the thread itself does not single out).
 */

// Path segments that introduce a person on the platforms the catalogue reads: Reddit `/u/name`
// and `/user/name`, Stack Exchange `/users/42`, Indie Hackers and others `/member(s)/...`,
// `/profile/...`, `/people/...`, `/author/...`.
const PERSON_SEGMENTS = new Set([
  "u",
  "user",
  "users",
  "member",
  "members",
  "profile",
  "profiles",
  "people",
  "author",
]);

// Hosts where a first path segment alone is a person (x.com/name, github.com/name).
const HANDLE_HOSTS = new Set([
  "twitter.com",
  "x.com",
  "github.com",
  "instagram.com",
  "facebook.com",
  "tiktok.com",
  "threads.net",
  "linkedin.com",
  "bsky.app",
]);

function hostOf(url: URL): string {
  return url.hostname.toLowerCase().replace(/^(www|old|new|m|mobile)\./, "");
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment).toLowerCase();
  } catch {
    return segment.toLowerCase();
  }
}

/** The public thread URL of a stored evidence link, or null when it is none (see above). */
export function threadUrl(raw: string | null | undefined): string | null {
  if (!raw) return null;
  const url = URL.parse(raw);
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:")) return null;
  if (url.username || url.password) return null;
  const segments = url.pathname.split("/").filter((s) => s !== "").map(decodeSegment);
  if (segments.some((s) => PERSON_SEGMENTS.has(s) || s.startsWith("@"))) return null;
  const host = hostOf(url);
  if (HANDLE_HOSTS.has(host) && (segments.length <= 1 || segments[0] === "in")) return null;
  // Hacker News: news.ycombinator.com/user?id=name (also submitted?id=, threads?id=).
  if (host.endsWith("ycombinator.com") && segments[0] !== "item") return null;
  url.hash = "";
  return url.href;
}
