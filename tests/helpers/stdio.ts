/**
 * The npm stdio package for tests: packed and installed as a user gets it, and driven by the MCP
 * SDK's clients (v1 and v2) or by raw JSON-RPC lines.
 */
import assert from "node:assert/strict";
import { Client as ClientV2 } from "@modelcontextprotocol/client";
import { StdioClientTransport as StdioClientTransportV2 } from "@modelcontextprotocol/client/stdio";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";

export const PACKAGE_DIR = new URL("../../npm-stdio/", import.meta.url).pathname;
export const STDIO_TOOLS = ["get_opportunity", "query_opportunities"];
// A guard so that a missing time-out fails the test instead of hanging it (the bin's is 15 s).
export const CALL_GUARD_MS = 30_000;

export async function run(cmd: string, args: string[], cwd: string): Promise<string> {
  const out = await new Deno.Command(cmd, { args, cwd, stdout: "piped", stderr: "piped" }).output();
  const text = new TextDecoder().decode(out.stdout);
  if (!out.success) {
    throw new Error(
      `"${cmd} ${args.join(" ")}" failed in "${cwd}":\n${text}\n` +
        new TextDecoder().decode(out.stderr),
    );
  }
  return text;
}

/** Packs npm-stdio/ and installs the tarball into a new folder; returns the installed bin. */
export async function packAndInstall(tmp: string): Promise<{ bin: string; installDir: string }> {
  try {
    await Deno.stat(`${PACKAGE_DIR}node_modules/.package-lock.json`);
  } catch {
    await run("npm", ["ci", "--no-audit", "--no-fund"], PACKAGE_DIR);
  }
  // Packs the committed dist/cli.js, as the service serves it (bundle_test.ts checks that it is what
  // the sources build now). Without --ignore-scripts, prepack would delete and rebuild dist/ while
  // other test files, run in parallel, read it.
  await run("npm", ["pack", "--ignore-scripts", "--pack-destination", tmp], PACKAGE_DIR);
  const tarballs = [...Deno.readDirSync(tmp)].filter((e) => e.name.endsWith(".tgz"));
  assert.equal(tarballs.length, 1, "npm pack makes one tarball");
  const installDir = `${tmp}/install`;
  Deno.mkdirSync(installDir);
  Deno.writeTextFileSync(
    `${installDir}/package.json`,
    JSON.stringify({ name: "stdio-install-test", version: "0.0.0", private: true }),
  );
  await run(
    "npm",
    ["install", "--no-audit", "--no-fund", `${tmp}/${tarballs[0].name}`],
    installDir,
  );
  return { bin: `${installDir}/node_modules/.bin/oppintel-mcp`, installDir };
}

/** An SDK client on the installed bin with these two variables. */
export async function stdioClient(bin: string, apiKey: string, baseUrl: string): Promise<Client> {
  const client = new Client({ name: "stdio-test", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: bin,
      env: { OPPINTEL_API_KEY: apiKey, OPPINTEL_BASE_URL: baseUrl },
      stderr: "pipe",
    }),
  );
  return client;
}

/** A v2 SDK client on the installed bin, pinned to 2026-07-28 or on its 2025 default. */
export async function stdioClientV2(
  bin: string,
  apiKey: string,
  baseUrl: string,
  modern: boolean,
): Promise<ClientV2> {
  const client = new ClientV2(
    { name: "stdio-test-v2", version: "1.0.0" },
    modern ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
  );
  await client.connect(
    new StdioClientTransportV2({
      command: bin,
      env: { OPPINTEL_API_KEY: apiKey, OPPINTEL_BASE_URL: baseUrl },
      stderr: "pipe",
    }),
  );
  return client;
}

/**
 * Writes `requests` as lines on a fresh bin's standard input, reads standard output until each
 * request with an id is answered, closes standard input and waits for a clean exit. Returns the
 * answers by id.
 */
export async function rawSession(
  bin: string,
  env: Record<string, string>,
  requests: Record<string, unknown>[],
): Promise<Map<unknown, Record<string, unknown>>> {
  const child = new Deno.Command(bin, { env, stdin: "piped", stdout: "piped", stderr: "null" })
    .spawn();
  const writer = child.stdin.getWriter();
  await writer.write(
    new TextEncoder().encode(requests.map((r) => JSON.stringify(r) + "\n").join("")),
  );
  const expected = requests.filter((r) => "id" in r).length;
  const byId = new Map<unknown, Record<string, unknown>>();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  while (byId.size < expected) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let nl;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const message = JSON.parse(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
      assert.equal(message.jsonrpc, "2.0");
      if (message.id !== undefined) byId.set(message.id, message);
    }
  }
  await writer.close();
  while (!(await reader.read()).done) { /* drain until the bin exits */ }
  assert.equal((await child.status).code, 0);
  return byId;
}

/** tools/call without the SDK's output-schema check, which error bodies cannot pass. */
export function callRaw(client: Client, name: string, args: Record<string, unknown>) {
  return client.request(
    { method: "tools/call", params: { name, arguments: args } },
    CallToolResultSchema,
    { timeout: CALL_GUARD_MS },
  );
}

/** The REST answer for `path` with `key`: status and JSON body. */
export async function rest(base: string, path: string, key: string) {
  const res = await fetch(base + path, { headers: { "X-API-Key": key } });
  return { status: res.status, body: await res.json() };
}

/** The structured content of a result, after checking that the text carries the same JSON. */
export function structured(result: { content: unknown; structuredContent?: unknown }): unknown {
  const content = result.content as { type: string; text: string }[];
  assert.equal(content.length, 1);
  assert.equal(content[0].type, "text");
  assert.deepEqual(JSON.parse(content[0].text), result.structuredContent);
  return result.structuredContent;
}

/** A port on which nothing listens. */
export function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}
