/**
 * HTTP/1.1 written by hand over a real socket, for what `fetch` and `new Request` refuse to send
 * (TRACE, TRACK, a body that never finishes, a 100 KB URL): the service as Deno.serve runs it.
 */

/** A served handler on a free loopback port. */
export interface RawServer {
  port: number;
  close(): Promise<void>;
}

/** Serves `handler` on 127.0.0.1 at a free port. */
export function serveRaw(
  handler: (request: Request, info: Deno.ServeHandlerInfo) => Promise<Response>,
): RawServer {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, handler);
  return { port: server.addr.port, close: () => server.shutdown() };
}

/** An answer as read off the socket. */
export interface RawAnswer {
  status: number;
  headers: Headers;
  body: string;
}

/**
 * Sends `head` (request line and headers, without the blank line) and `body` (all of it, or the
 * first bytes of a body that never finishes), then reads the answer until the server closes the
 * connection or `timeoutMs` passes (then throws: the server waited for something).
 */
export async function rawRequest(
  port: number,
  head: string,
  body = "",
  timeoutMs = 15_000,
): Promise<RawAnswer> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const timer = setTimeout(() => conn.close(), timeoutMs);
  const started = Date.now();
  const chunks: Uint8Array[] = [];
  try {
    await conn.write(new TextEncoder().encode(`${head}\r\n\r\n${body}`));
    const buffer = new Uint8Array(65_536);
    for (;;) {
      const n = await conn.read(buffer).catch(() => null);
      if (n === null) break;
      chunks.push(buffer.slice(0, n));
      if (complete(chunks)) break;
    }
  } finally {
    clearTimeout(timer);
    try {
      conn.close();
    } catch {
      // closed by the timer
    }
  }
  const text = new TextDecoder().decode(concat(chunks));
  if (text === "" && Date.now() - started >= timeoutMs) {
    throw new Error(`No answer within ${timeoutMs} ms to: ${head.split("\r\n")[0].slice(0, 80)}`);
  }
  return parse(text);
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.byteLength;
  }
  return out;
}

/** True once the head and a Content-Length body (or a chunked body's end) are in. */
function complete(chunks: Uint8Array[]): boolean {
  const text = new TextDecoder().decode(concat(chunks));
  const end = text.indexOf("\r\n\r\n");
  if (end < 0) return false;
  const head = text.slice(0, end);
  const length = /\r\ncontent-length: *(\d+)/i.exec(head)?.[1];
  if (/^HTTP\/1\.1 (1\d\d|204|304)/.test(head)) return true;
  if (length !== undefined) return text.length - end - 4 >= Number(length);
  return /\r\ntransfer-encoding: *chunked/i.test(head) && text.endsWith("0\r\n\r\n");
}

function parse(text: string): RawAnswer {
  const end = text.indexOf("\r\n\r\n");
  const [statusLine, ...lines] = (end < 0 ? text : text.slice(0, end)).split("\r\n");
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1] ?? 0);
  const headers = new Headers();
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  let body = end < 0 ? "" : text.slice(end + 4);
  if (headers.get("transfer-encoding") === "chunked") body = unchunk(body);
  return { status, headers, body };
}

function unchunk(body: string): string {
  let out = "";
  let rest = body;
  for (;;) {
    const line = rest.indexOf("\r\n");
    const size = parseInt(rest.slice(0, line), 16);
    if (!size) return out;
    out += rest.slice(line + 2, line + 2 + size);
    rest = rest.slice(line + 2 + size + 2);
  }
}
