/** Host names as the address checks and allow-lists compare them. */

/** A URL's host name lowercased, an IPv6 address without its brackets. */
export function bareHost(hostname: string): string {
  return hostname.toLowerCase().replace(/^\[(.*)\]$/, "$1");
}

/** True for localhost, 127.x.x.x and ::1 (with or without brackets). */
export function isLoopbackHost(hostname: string): boolean {
  const host = bareHost(hostname);
  return host === "localhost" || host === "::1" || /^127(\.\d{1,3}){3}$/.test(host);
}
