/**
 * Slow request bodies are cut off with a JSON 408, in-process and over a real
 * socket through Deno.serve. The bodies used never finish, so the outcome does not depend on how
 * fast the machine is: only the deadline can end the request.
 */
import assert from "node:assert/strict";
import { readBodyWithin } from "../../src/platform/body.ts";
import { PayloadTooLargeError, RequestTimeoutError } from "../../src/platform/errors.ts";
import { createApp } from "../../src/app.ts";
import { createContent } from "../../src/catalog/content.ts";
import { dbTest } from "../helpers/db.ts";
import { BASE, makeKey } from "../helpers/app.ts";

/** A body that sends `first` and then nothing, ever; `cancelled` resolves when it is dropped. */
function stalledBody(first: string) {
  let cancel!: () => void;
  const cancelled = new Promise<void>((resolve) => (cancel = resolve));
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(first));
    },
    cancel: () => cancel(),
  });
  return { stream, cancelled };
}

Deno.test("readBodyWithin reads a complete body and passes a GET untouched", async () => {
  const get = new Request(`${BASE}/x`);
  assert.equal(await readBodyWithin(get, 50), get);
  const post = new Request(`${BASE}/x`, { method: "POST", body: "a=1", headers: { "X-A": "b" } });
  const read = await readBodyWithin(post, 1000);
  assert.equal(await read.text(), "a=1");
  assert.equal(read.headers.get("x-a"), "b");
  assert.equal(read.method, "POST");
});

Deno.test("readBodyWithin refuses a body that stalls (408) and cancels it", async () => {
  const { stream, cancelled } = stalledBody('{"jsonrpc":');
  const request = new Request(`${BASE}/mcp`, { method: "POST", body: stream });
  const error = await readBodyWithin(request, 50).catch((e) => e);
  assert.ok(error instanceof RequestTimeoutError, String(error));
  assert.equal(error.status, 408);
  await cancelled;
});

Deno.test("readBodyWithin refuses a body above the bound (413)", async () => {
  const declared = new Request(`${BASE}/x`, {
    method: "POST",
    body: "x".repeat(20),
    headers: { "Content-Length": "20" },
  });
  assert.ok(
    (await readBodyWithin(declared, 1000, 10).catch((e) => e)) instanceof PayloadTooLargeError,
  );
  const chunked = new Request(`${BASE}/x`, {
    method: "POST",
    body: new Blob(["x".repeat(20)]).stream(),
  });
  assert.ok(
    (await readBodyWithin(chunked, 1000, 10).catch((e) => e)) instanceof PayloadTooLargeError,
  );
});

dbTest("POST /mcp with a stalled body answers a JSON 408 over a real socket", async (db) => {
  const { key } = await makeKey(db.sql, "pro");
  const content = createContent(db.sql, { publicBaseUrl: BASE });
  const logs: Record<string, unknown>[] = [];
  const app = createApp({
    sql: db.sql,
    content,
    log: (e) => logs.push(e),
    mcp: () => Promise.reject(new Error("the body never arrived, the handler must not run")),
    bodyTimeoutMs: 200,
  });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, app);
  try {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.addr.port });
    // Headers promise 100 bytes; 10 arrive and the rest never does.
    await conn.write(new TextEncoder().encode(
      "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
        `X-API-Key: ${key}\r\nContent-Length: 100\r\n\r\n{"jsonrpc"`,
    ));
    let answer = "";
    const buffer = new Uint8Array(4096);
    while (!answer.includes("}")) {
      const n = await conn.read(buffer);
      if (n === null) break;
      answer += new TextDecoder().decode(buffer.subarray(0, n));
    }
    conn.close();
    assert.match(answer, /^HTTP\/1\.1 408 /);
    assert.match(answer, /content-type: application\/json/i);
    assert.match(answer, /"error":"request_timeout"/);
    assert.equal(logs.at(-1)?.status, 408);
  } finally {
    await server.shutdown();
  }
});
