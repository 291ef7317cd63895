/**
 * HEAD requests, which src/app.ts answers as GET without the body (RFC 9110 9.3.2): the GET it
 * routes is remembered as a HEAD, so that an edge whose GET has a price that depends on what the
 * body sends (the export, src/rest/export.ts) can answer a HEAD's headers without charging it.
 */
const heads = new WeakSet<Request>();

/** The GET that answers a HEAD `request` (same URL, headers and signal), remembered as a HEAD. */
export function getOfHead(request: Request): Request {
  const get = new Request(request.url, { headers: request.headers, signal: request.signal });
  heads.add(get);
  return get;
}

/** True when `request` is the GET of a HEAD (getOfHead). */
export function isHead(request: Request): boolean {
  return heads.has(request);
}
