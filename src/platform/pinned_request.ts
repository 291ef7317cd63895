/**
 * One HTTP(S) request to a checked target (a webhook POST, or the GET of an OAuth client ID
 * metadata document), connected to the address the SSRF guard checked: node's
 * `http`/`https` clients (built into Deno) take a `lookup` function, which here answers the
 * checked address instead of asking DNS again, while the Host header and the TLS server name (and
 * so the certificate check) stay those of the URL. Deno's fetch cannot be given the address to
 * use, and a hand-written HTTP client would be protocol code of our own. No agent (a connection
 * per attempt, never reused), no redirect followed (node's clients never follow one), a time-out
 * over the whole exchange, and the answer's body read up to a cap and then dropped.
 */
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import type { OutboundTarget } from "./outbound_target.ts";

/** What the server answered: status, Location, headers, and the first `cap` bytes of the body. */
export interface HttpAnswer {
  status: number;
  location: string | null;
  headers: Headers;
  bytes: Uint8Array;
  /** True when the body went on past `cap` bytes (the rest was dropped unread). */
  overflow: boolean;
}

/** What a webhook receiver answered, its body as text. */
export interface PostAnswer {
  status: number;
  location: string | null;
  text: string;
}

/** The exchange took longer than its time-out. */
export class PostTimeoutError extends Error {
  override name = "PostTimeoutError";
}

/** A lookup that answers only the checked address, whatever name it is asked for. */
function pinnedLookup(address: string, family: number): LookupFunction {
  return ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as unknown as LookupFunction;
}

/** How one request is made. */
export interface SendOptions {
  method: "GET" | "POST";
  body?: string;
  headers: Record<string, string>;
  timeoutMs: number;
  /** Bytes of the answer's body kept at most. */
  cap: number;
  /** Extra trusted certificates (PEM), for tests with a server of their own. */
  ca?: string;
}

/** POSTs `body` to the target; rejects on connection errors and with PostTimeoutError. */
export async function postTo(
  target: OutboundTarget,
  body: string,
  options: Omit<SendOptions, "method" | "body">,
): Promise<PostAnswer> {
  const answer = await sendTo(target, { ...options, method: "POST", body });
  return {
    status: answer.status,
    location: answer.location,
    text: new TextDecoder().decode(answer.bytes),
  };
}

/**
 * One request to the target's checked address; rejects on connection errors and with
 * PostTimeoutError. Used for webhook deliveries and for OAuth client ID metadata documents.
 */
export function sendTo(target: OutboundTarget, options: SendOptions): Promise<HttpAnswer> {
  const { url } = target;
  const secure = url.protocol === "https:";
  const payload = options.body === undefined ? undefined : new TextEncoder().encode(options.body);
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (error: Error | undefined, answer?: HttpAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(answer!);
    };
    const request = (secure ? https : http).request(url, {
      method: options.method,
      agent: false,
      headers: payload
        ? { ...options.headers, "Content-Length": String(payload.byteLength) }
        : options.headers,
      ...(target.address ? { lookup: pinnedLookup(target.address, target.family ?? 4) } : {}),
      ...(secure && target.address ? { servername: url.hostname } : {}),
      ...(options.ca ? { ca: options.ca } : {}),
    }, (response) => {
      const chunks: Uint8Array[] = [];
      let size = 0;
      const done = () => {
        const bytes = new Uint8Array(Math.min(size, options.cap));
        let offset = 0;
        for (const chunk of chunks) {
          const part = chunk.subarray(0, bytes.length - offset);
          bytes.set(part, offset);
          offset += part.length;
        }
        const headers = new Headers();
        for (const [name, value] of Object.entries(response.headers)) {
          if (value === undefined) continue;
          for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
        }
        finish(undefined, {
          status: response.statusCode ?? 0,
          location: response.headers.location ?? null,
          headers,
          bytes,
          overflow: size > options.cap,
        });
        response.destroy();
      };
      response.on("data", (chunk: Uint8Array) => {
        if (size > options.cap) return;
        chunks.push(chunk);
        size += chunk.length;
        // Enough read: the rest is dropped unread.
        if (size > options.cap) done();
      });
      response.on("end", done);
      response.on("close", done);
      response.on("error", done);
    });
    const timer = setTimeout(() => {
      finish(new PostTimeoutError(`Timed out after ${options.timeoutMs} ms`));
      request.destroy();
    }, options.timeoutMs);
    request.on("error", (error: Error) => finish(error));
    request.end(payload);
  });
}
