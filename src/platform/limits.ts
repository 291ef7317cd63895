/**
 * Bounds on a request's head, checked before anything reads it: a URL longer than MAX_URL_BYTES
 * is a 414 and headers larger than MAX_HEADER_BYTES in all are a 431, each as a JSON error.
 * Deno's HTTP server refuses a head over 64 KiB by itself, with an empty 400 before any handler
 * runs; these bounds sit well below that, so that every oversized request the service sees gets
 * an answer a client can read.
 */
import { HeadersTooLargeError, UriTooLongError } from "./errors.ts";

/** The longest URL taken (a `q` is at most 100 characters; a filtered list needs under 1 KiB). */
export const MAX_URL_BYTES = 32 * 1024;
/** The largest header block taken, names and values together. */
export const MAX_HEADER_BYTES = 32 * 1024;

/** Throws 414 for a URL over MAX_URL_BYTES and 431 for headers over MAX_HEADER_BYTES. */
export function checkRequestHead(request: Request): void {
  // Deno hands the URL over percent-encoded, so its length is its length in bytes.
  if (request.url.length > MAX_URL_BYTES) throw new UriTooLongError(MAX_URL_BYTES);
  let size = 0;
  // As on the wire: "name: value\r\n".
  for (const [name, value] of request.headers) size += name.length + value.length + 4;
  if (size > MAX_HEADER_BYTES) throw new HeadersTooLargeError(MAX_HEADER_BYTES);
}
