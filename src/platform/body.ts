/**
 * Request bodies read whole before routing, within a deadline and a size bound: a client that
 * sends its body slowly (or never finishes it) holds a connection and a handler, so it is cut off
 * with a JSON 408 instead of being waited for; a body above the bound is a 413. Only requests
 * that carry a body (POST /mcp and the account forms) are read; GETs pass untouched.
 */
import { PayloadTooLargeError, RequestTimeoutError } from "./errors.ts";

/** The default deadline for a whole request body, from the moment its headers are in. */
export const DEFAULT_BODY_TIMEOUT_MS = 10_000;
/** The largest body taken: MCP requests and forms are a few kilobytes. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * The bytes of `request`'s body, or null when it has none. Throws RequestTimeoutError (408) when
 * the body is not complete within `timeoutMs`, and PayloadTooLargeError (413) when it is longer
 * than `maxBytes`; either way the rest of the body is cancelled.
 */
export async function readBodyBytes(
  request: Request,
  timeoutMs: number,
  maxBytes: number = MAX_BODY_BYTES,
): Promise<Uint8Array<ArrayBuffer> | null> {
  if (request.body === null) return null;
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > maxBytes) {
    await request.body.cancel().catch(() => {});
    throw new PayloadTooLargeError(maxBytes);
  }
  const reader = request.body.getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), timeoutMs);
  });
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (true) {
      const next = await Promise.race([reader.read(), deadline]);
      if (next === "late") throw new RequestTimeoutError(Math.round(timeoutMs / 100) / 10);
      if (next.done) break;
      size += next.value.byteLength;
      if (size > maxBytes) throw new PayloadTooLargeError(maxBytes);
      chunks.push(next.value);
    }
  } catch (error) {
    await reader.cancel().catch(() => {});
    throw error;
  } finally {
    clearTimeout(timer);
  }
  // A request body's chunks are backed by plain ArrayBuffers.
  if (chunks.length === 1) return chunks[0] as Uint8Array<ArrayBuffer>;
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

/** `request` again with `body`, its bytes read by readBodyBytes (itself when it had none). */
export function withBody(request: Request, body: Uint8Array<ArrayBuffer> | null): Request {
  if (body === null) return request;
  return new Request(request.url, {
    method: request.method,
    headers: request.headers,
    body,
    signal: request.signal,
  });
}

/** `request` with its body read into memory within a deadline and a bound (readBodyBytes). */
export async function readBodyWithin(
  request: Request,
  timeoutMs: number,
  maxBytes: number = MAX_BODY_BYTES,
): Promise<Request> {
  return withBody(request, await readBodyBytes(request, timeoutMs, maxBytes));
}

/**
 * The bytes of `body`, or undefined when it is longer than `maxBytes`: never more than that is
 * buffered, with or without a Content-Length, and the rest is cancelled unread.
 */
export async function readUpTo(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
): Promise<Uint8Array | undefined> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body ?? []) {
    size += chunk.byteLength;
    // Leaving the loop cancels the rest of the body.
    if (size > maxBytes) return undefined;
    chunks.push(chunk);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
