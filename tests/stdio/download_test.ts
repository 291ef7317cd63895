/**
 * The stdio package as the service serves it (src/web/downloads.ts), installed the way the docs
 * say, against the service running on a real port: `npx -y {base}/downloads/oppintel-mcp.tgz`
 * (Node.js 20's npx, with an empty npm cache) and, since Deno cannot install a tarball from a URL,
 * `deno run --allow-net --allow-env {base}/downloads/oppintel-mcp.js`. Both must answer the two
 * tools as the REST API does. The served package defaults to the service it came from (not to
 * http://localhost:8000, where whatever listens would get the key in clear): started without
 * OPPINTEL_BASE_URL it still calls this service. Needs Node.js, npm and network access to nothing
 * but the service.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { buildHandler } from "../../main.ts";
import { readConfig } from "../../src/platform/config.ts";
import { loadFixture, makeKey } from "../helpers/app.ts";
import { withTestDb } from "../helpers/db.ts";
import { PACKAGE_DIR, rest, STDIO_TOOLS, structured } from "../helpers/stdio.ts";

/** The files of a tar archive (regular files only), by name. */
function untar(tar: Uint8Array): Map<string, Uint8Array> {
  const files = new Map<string, Uint8Array>();
  const text = (from: number, length: number) =>
    new TextDecoder().decode(tar.subarray(from, from + length)).replace(/\0.*$/s, "");
  for (let at = 0; at + 512 <= tar.length && tar[at] !== 0;) {
    const size = parseInt(text(at + 124, 12), 8);
    files.set(text(at, 100), tar.slice(at + 512, at + 512 + size));
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

async function gunzip(bytes: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

Deno.test({
  name: "the service serves its stdio package: npx and deno run start it from the running service",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const tmp = await Deno.makeTempDir({ prefix: "oppintel_download_" });
    const clients: Client[] = [];
    try {
      await withTestDb("postgres", async (db) => {
        const ids = await loadFixture(db.sql);
        const pro = await makeKey(db.sql, "pro");
        const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
        const port = (listener.addr as Deno.NetAddr).port;
        listener.close();
        const base = `http://127.0.0.1:${port}`;
        const config = readConfig({ DATA_DIR: "memory://", PUBLIC_BASE_URL: base });
        const server = Deno.serve(
          { port, hostname: "127.0.0.1", onListen: () => {} },
          buildHandler(db.database, config, { log: () => {} }),
        );
        const { version } = JSON.parse(Deno.readTextFileSync(`${PACKAGE_DIR}package.json`));
        try {
          await t.step("both names answer the same tarball of the package's files", async () => {
            const stable = await fetch(`${base}/downloads/oppintel-mcp.tgz`);
            assert.equal(stable.status, 200);
            assert.equal(stable.headers.get("content-type"), "application/gzip");
            const bytes = new Uint8Array(await stable.arrayBuffer());
            const versioned = await fetch(`${base}/downloads/oppintel-mcp-${version}.tgz`);
            assert.equal(versioned.status, 200);
            assert.deepEqual(new Uint8Array(await versioned.arrayBuffer()), bytes);
            const files = untar(await gunzip(bytes));
            assert.deepEqual([...files.keys()].sort(), [
              "package/README.md",
              "package/dist/cli.js",
              "package/package.json",
            ]);
            for (const [name, content] of files) {
              const path = PACKAGE_DIR + name.slice("package/".length);
              const packaged = new TextDecoder().decode(Deno.readFileSync(path));
              // Only the default address differs: this service's, not localhost:8000.
              const expected = name.endsWith("cli.js")
                ? packaged.replace('"http://localhost:8000"', JSON.stringify(base))
                : packaged;
              assert.ok(new TextDecoder().decode(content) === expected, name);
            }
            const cli = new TextDecoder().decode(files.get("package/dist/cli.js"));
            assert.ok(cli.includes(`="${base}"`), "the default is the service's own address");
            assert.ok(!cli.includes("localhost:8000"), "never http://localhost:8000");
            const bundle = await (await fetch(`${base}/downloads/oppintel-mcp.js`)).text();
            assert.ok(bundle === cli, "the one-file bundle is the same program");
            // The system's tar reads it too (the format npm's own tar reader expects).
            Deno.writeFileSync(`${tmp}/p.tgz`, bytes);
            const listed = await new Deno.Command("tar", { args: ["-tzf", `${tmp}/p.tgz`] })
              .output();
            assert.ok(listed.success);
            assert.match(new TextDecoder().decode(listed.stdout), /^package\/dist\/cli\.js$/m);
            const unknown = await fetch(`${base}/downloads/oppintel-mcp-0.0.0.tgz`);
            assert.equal(unknown.status, 404);
            await unknown.body?.cancel();
          });

          const cases: [string, string, string[], Record<string, string>?][] = [
            ["npx -y {base}/downloads/oppintel-mcp.tgz", "npx", [
              "-y",
              `${base}/downloads/oppintel-mcp.tgz`,
            ]],
            ["deno run --allow-net --allow-env {base}/downloads/oppintel-mcp.js", "deno", [
              "run",
              "--allow-net",
              "--allow-env",
              `${base}/downloads/oppintel-mcp.js`,
            ]],
            ["without OPPINTEL_BASE_URL: the package calls the service it came from", "deno", [
              "run",
              "--allow-net",
              "--allow-env",
              `${base}/downloads/oppintel-mcp.js`,
            ], { OPPINTEL_BASE_URL: "" }],
          ];
          for (const [name, command, args, env] of cases) {
            await t.step(`${name} starts the stdio server`, async () => {
              const client = new Client({ name: "download-test", version: "1.0.0" });
              clients.push(client);
              await client.connect(
                new StdioClientTransport({
                  command,
                  args,
                  cwd: tmp,
                  env: {
                    PATH: Deno.env.get("PATH") ?? "",
                    HOME: tmp,
                    // Empty caches: the package must come from the service, now.
                    npm_config_cache: `${tmp}/npm-cache`,
                    npm_config_update_notifier: "false",
                    DENO_DIR: `${tmp}/deno-dir`,
                    NO_COLOR: "1",
                    OPPINTEL_API_KEY: pro.key,
                    OPPINTEL_BASE_URL: base,
                    ...env,
                  },
                  stderr: "pipe",
                }),
              );
              const { tools } = await client.listTools();
              assert.deepEqual(tools.map((x: Tool) => x.name).sort(), STDIO_TOOLS);
              const result = await client.callTool({
                name: "get_opportunity",
                arguments: { id: ids["opp-1"] },
              });
              const expected = await rest(base, `/api/v1/opportunities/${ids["opp-1"]}`, pro.key);
              assert.equal(expected.status, 200);
              assert.deepEqual(structured(result), expected.body);
              await client.close();
            });
          }
        } finally {
          for (const client of clients) await client.close().catch(() => {});
          await server.shutdown();
        }
      });
    } finally {
      await Deno.remove(tmp, { recursive: true }).catch(() => {});
    }
  },
});
