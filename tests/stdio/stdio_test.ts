/**
 * The npm stdio package as a user gets it: `npm pack` in npm-stdio/, the tarball installed into
 * an empty folder, and the installed `oppintel-mcp` bin driven by MCP SDK clients against the
 * service served in-process on a real port: the v1 client (a 2025-era client) for most cases, the
 * v2 client on both eras (2026-07-28 pinned, and its 2025 default) and raw JSON-RPC lines. Needs Node.js and npm on PATH; runs `npm ci` in
 * npm-stdio/ itself when its node_modules is missing.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { buildHandler } from "../../main.ts";
import { readConfig } from "../../src/platform/config.ts";
import { loadFixture, makeKey, revokeKey, setUsed } from "../helpers/app.ts";
import { withTestDb } from "../helpers/db.ts";

import {
  callRaw,
  closedPort,
  packAndInstall,
  rawSession,
  rest,
  STDIO_TOOLS,
  stdioClient,
  stdioClientV2,
  structured,
} from "../helpers/stdio.ts";

Deno.test({
  name: "oppintel-mcp from its npm tarball answers like the REST API and the hosted tools",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const tmp = await Deno.makeTempDir({ prefix: "oppintel_stdio_" });
    // A listener that accepts connections and never answers, for the time-out case.
    const silent = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const held: Deno.Conn[] = [];
    const accepting = (async () => {
      for await (const conn of silent) held.push(conn);
    })().catch(() => {});
    const clients: Client[] = [];
    try {
      const { bin, installDir } = await packAndInstall(tmp);

      await t.step("the tarball holds the bundle only and installs no dependencies", () => {
        const files = [...Deno.readDirSync(`${installDir}/node_modules/oppintel-mcp`)]
          .map((e) => e.name).sort();
        assert.deepEqual(files, ["README.md", "dist", "package.json"]);
        assert.deepEqual(
          [...Deno.readDirSync(`${installDir}/node_modules/oppintel-mcp/dist`)]
            .map((e) => e.name),
          ["cli.js"],
        );
        // The bundle stays small (632 KiB on SDK 1.32, 436 KiB on SDK 2.4): a bundled module that
        // imports `{ z }` from zod instead of `* as z` pulls in all of zod and its locales (+340 KiB).
        const size = Deno.statSync(`${installDir}/node_modules/oppintel-mcp/dist/cli.js`).size;
        assert.ok(size < 512 * 1024, `dist/cli.js is ${Math.round(size / 1024)} KiB`);
        const installed = [...Deno.readDirSync(`${installDir}/node_modules`)]
          .map((e) => e.name).filter((n) => !n.startsWith(".")).sort();
        assert.deepEqual(installed, ["oppintel-mcp"]);
      });

      await t.step("a configuration problem exits 1 before any protocol traffic", async (t) => {
        const cases: [string, Record<string, string>, RegExp][] = [
          [
            "without OPPINTEL_API_KEY",
            { OPPINTEL_BASE_URL: "http://127.0.0.1:1" },
            /OPPINTEL_API_KEY/,
          ],
          ["with a bad OPPINTEL_BASE_URL", {
            OPPINTEL_API_KEY: "oi_live_x",
            OPPINTEL_BASE_URL: "localhost 8000",
          }, /OPPINTEL_BASE_URL/],
        ];
        for (const [name, env, message] of cases) {
          await t.step(name, async () => {
            const out = await new Deno.Command(bin, {
              clearEnv: true,
              env: { PATH: Deno.env.get("PATH") ?? "", ...env },
              stdin: "null",
              stdout: "piped",
              stderr: "piped",
            }).output();
            assert.equal(out.code, 1);
            assert.match(new TextDecoder().decode(out.stderr), message);
            assert.equal(out.stdout.length, 0);
          });
        }
      });

      await withTestDb("postgres", async (db) => {
        const ids = await loadFixture(db.sql);
        const pro = await makeKey(db.sql, "pro");
        const free = await makeKey(db.sql, "free");
        const revoked = await makeKey(db.sql, "pro");
        await revokeKey(db.sql, revoked.keyId);
        const spent = await makeKey(db.sql, "pro");
        await setUsed(db.sql, spent.accountId, 1000);
        const config = readConfig({ DATA_DIR: "memory://", PUBLIC_BASE_URL: "https://x.example" });
        const server = Deno.serve(
          { port: 0, hostname: "127.0.0.1", onListen: () => {} },
          buildHandler(db.database, config, { log: () => {} }),
        );
        const base = `http://127.0.0.1:${server.addr.port}`;
        try {
          // Started first and awaited last: the 15 s time-out runs while the other steps do.
          const silentPort = (silent.addr as Deno.NetAddr).port;
          const hanging = await stdioClient(bin, pro.key, `http://127.0.0.1:${silentPort}`);
          clients.push(hanging);
          const timedOut = callRaw(hanging, "get_opportunity", { id: ids["opp-1"] });
          timedOut.catch(() => {}); // awaited in the last step; no unhandled rejection meanwhile

          const client = await stdioClient(bin, pro.key, base);
          clients.push(client);

          await t.step("lists exactly the two tools, equal to the hosted listing", async () => {
            const { tools } = await client.listTools();
            assert.deepEqual(tools.map((x: Tool) => x.name).sort(), STDIO_TOOLS);
            const hosted = new Client({ name: "stdio-test-hosted", version: "1.0.0" });
            await hosted.connect(
              new StreamableHTTPClientTransport(new URL(`${base}/mcp/`), {
                requestInit: { headers: { "X-API-Key": pro.key } },
              }),
            );
            try {
              const hostedTools = (await hosted.listTools()).tools;
              for (const tool of tools) {
                const twin = hostedTools.find((x: Tool) => x.name === tool.name);
                assert.ok(twin, `hosted tools/list has "${tool.name}"`);
                assert.deepEqual(tool, twin);
              }
            } finally {
              await hosted.close();
            }
          });

          await t.step("query_opportunities answers what GET /opportunities answers", async () => {
            const cases: [Record<string, unknown>, string][] = [
              [{}, ""],
              [{ min_score: 60, page_size: 2, page: 2 }, "?min_score=60&page_size=2&page=2"],
              [
                { q: "invoice reminder", online_only: false },
                "?q=invoice+reminder&online_only=false",
              ],
              [
                { recommendation: "build", platform: "REDDIT" },
                "?recommendation=build&platform=REDDIT",
              ],
              [{ category: "developer-tools", channel: undefined }, "?category=developer-tools"],
            ];
            for (const [args, query] of cases) {
              // detail: "full" at REST's page size is the REST body; the default is compact.
              const result = await client.callTool({
                name: "query_opportunities",
                arguments: { page_size: 20, ...args, detail: "full" },
              });
              assert.equal(result.isError, undefined, JSON.stringify(result));
              const expected = await rest(base, `/api/v1/opportunities${query}`, pro.key);
              assert.equal(expected.status, 200);
              assert.ok(expected.body.items.length > 0, `"${query}" finds something`);
              assert.deepEqual(structured(result), expected.body);
            }
          });

          await t.step("the default answer and instructions are the hosted tool's", async () => {
            const hosted = new Client({ name: "stdio-test-hosted", version: "1.0.0" });
            await hosted.connect(
              new StreamableHTTPClientTransport(new URL(`${base}/mcp/`), {
                requestInit: { headers: { "X-API-Key": pro.key } },
              }),
            );
            try {
              assert.equal(client.getInstructions(), hosted.getInstructions());
              assert.match(client.getInstructions() ?? "", /Pro plan \(or Business\): query_/);
              for (const args of [{}, { q: "invoice reminder" }]) {
                const mine = await client.callTool({
                  name: "query_opportunities",
                  arguments: args,
                });
                const theirs = await hosted.callTool({
                  name: "query_opportunities",
                  arguments: args,
                });
                assert.deepEqual(structured(mine), structured(theirs));
                const items = (structured(mine) as { items: Record<string, unknown>[] }).items;
                assert.ok(items.length > 0 && !("monetization_model" in items[0]), "compact");
              }
            } finally {
              await hosted.close();
            }
          });

          await t.step("get_opportunity answers what GET /opportunities/{id} answers", async () => {
            for (const name of ["opp-1", "opp-4"]) {
              const result = await client.callTool({
                name: "get_opportunity",
                arguments: { id: ids[name], detail: "full" },
              });
              assert.equal(result.isError, undefined, JSON.stringify(result));
              const expected = await rest(base, `/api/v1/opportunities/${ids[name]}`, pro.key);
              assert.equal(expected.status, 200);
              assert.equal(expected.body.id, ids[name]);
              assert.deepEqual(structured(result), expected.body);
            }
          });

          await t.step("the v2 client on both eras: same tools, REST's bytes", async () => {
            const v1Tools = (await client.listTools()).tools;
            for (const modern of [true, false]) {
              const v2 = await stdioClientV2(bin, pro.key, base, modern);
              clients.push(v2 as unknown as Client);
              assert.equal(
                v2.getNegotiatedProtocolVersion(),
                modern ? "2026-07-28" : "2025-11-25",
              );
              assert.deepEqual((await v2.listTools()).tools, v1Tools);
              const cases: [string, Record<string, unknown>, string][] = [
                [
                  "get_opportunity",
                  { id: ids["opp-1"], detail: "full" },
                  `/api/v1/opportunities/${ids["opp-1"]}`,
                ],
                [
                  "query_opportunities",
                  { min_score: 60, detail: "full" },
                  "/api/v1/opportunities?min_score=60&page_size=10",
                ],
              ];
              for (const [name, args, path] of cases) {
                const result = await v2.callTool({ name, arguments: args });
                assert.notEqual(result.isError, true, JSON.stringify(result));
                const restText = await (await fetch(base + path, {
                  headers: { "X-API-Key": pro.key },
                })).text();
                assert.equal(JSON.stringify(structured(result)), restText);
                assert.equal((result.content as { text: string }[])[0].text, restText);
              }
            }
          });

          await t.step("REST errors come back as isError results with the REST body", async () => {
            const unknownId = Math.max(...Object.values(ids)) + 1000;
            const cases: {
              key: string;
              tool: string;
              args: Record<string, unknown>;
              path: string;
              status: number;
              code: string;
            }[] = [
              {
                key: pro.key,
                tool: "get_opportunity",
                args: { id: unknownId },
                path: `/api/v1/opportunities/${unknownId}`,
                status: 404,
                code: "not_found",
              },
              {
                key: pro.key,
                tool: "query_opportunities",
                args: { min_score: 101 },
                path: "/api/v1/opportunities?min_score=101",
                status: 422,
                code: "invalid_parameter",
              },
              {
                key: free.key,
                tool: "query_opportunities",
                args: {},
                path: "/api/v1/opportunities",
                status: 403,
                code: "plan_required",
              },
              {
                key: revoked.key,
                tool: "get_opportunity",
                args: { id: ids["opp-1"] },
                path: `/api/v1/opportunities/${ids["opp-1"]}`,
                status: 403,
                code: "key_revoked",
              },
              {
                key: "oi_live_" + "x".repeat(40),
                tool: "query_opportunities",
                args: {},
                path: "/api/v1/opportunities",
                status: 401,
                code: "invalid_api_key",
              },
              {
                key: spent.key,
                tool: "query_opportunities",
                args: {},
                path: "/api/v1/opportunities",
                status: 429,
                code: "quota_exceeded",
              },
            ];
            const byKey = new Map<string, Client>([[pro.key, client]]);
            for (const c of cases) {
              let keyClient = byKey.get(c.key);
              if (!keyClient) {
                keyClient = await stdioClient(bin, c.key, base);
                clients.push(keyClient);
                byKey.set(c.key, keyClient);
              }
              const result = await callRaw(keyClient, c.tool, c.args);
              assert.equal(result.isError, true, `${c.code}: ${JSON.stringify(result)}`);
              const expected = await rest(base, c.path, c.key);
              assert.equal(expected.status, c.status);
              assert.equal(expected.body.error, c.code);
              // Each answer has its own request id, which the package passes on as it is.
              const { request_id: passedOn, ...body } = structured(result) as Record<
                string,
                unknown
              >;
              const { request_id: restId, ...restBody } = expected.body;
              assert.match(String(passedOn), /^[0-9a-f-]{36}$/);
              assert.match(String(restId), /^[0-9a-f-]{36}$/);
              assert.deepEqual(body, restBody);
            }
          });

          await t.step("an unreachable service is an isError result, not a crash", async () => {
            const down = await stdioClient(bin, pro.key, `http://127.0.0.1:${closedPort()}`);
            clients.push(down);
            const result = await callRaw(down, "query_opportunities", {});
            assert.equal(result.isError, true);
            const body = structured(result) as { error: string; message: string };
            assert.equal(body.error, "service_unreachable");
            assert.match(body.message, /could not be reached/);
            // Still serving after the failure.
            assert.equal((await down.listTools()).tools.length, 2);
          });

          await t.step("stdout carries JSON-RPC 2.0 messages only", async () => {
            const child = new Deno.Command(bin, {
              env: { OPPINTEL_API_KEY: pro.key, OPPINTEL_BASE_URL: base },
              stdin: "piped",
              stdout: "piped",
              stderr: "null",
            }).spawn();
            const requests = [
              {
                jsonrpc: "2.0",
                id: 1,
                method: "initialize",
                params: {
                  protocolVersion: "2025-06-18",
                  capabilities: {},
                  clientInfo: { name: "raw", version: "1" },
                },
              },
              { jsonrpc: "2.0", method: "notifications/initialized" },
              { jsonrpc: "2.0", id: 2, method: "tools/list" },
              {
                jsonrpc: "2.0",
                id: 3,
                method: "tools/call",
                params: { name: "get_opportunity", arguments: { id: ids["opp-2"] } },
              },
              {
                jsonrpc: "2.0",
                id: 4,
                method: "tools/call",
                params: { name: "query_opportunities", arguments: { min_score: "high" } },
              },
              {
                jsonrpc: "2.0",
                id: 5,
                method: "tools/call",
                params: { name: "no_such_tool", arguments: {} },
              },
            ];
            const writer = child.stdin.getWriter();
            await writer.write(
              new TextEncoder().encode(requests.map((r) => JSON.stringify(r) + "\n").join("")),
            );
            const lines: string[] = [];
            const answered = new Set<unknown>();
            let buffer = "";
            const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
            while (answered.size < 5) {
              const { value, done } = await reader.read();
              if (done) break;
              buffer += value;
              let nl;
              while ((nl = buffer.indexOf("\n")) >= 0) {
                const line = buffer.slice(0, nl);
                buffer = buffer.slice(nl + 1);
                lines.push(line);
                try {
                  const id = JSON.parse(line).id;
                  if (id !== undefined) answered.add(id);
                } catch { /* checked below */ }
              }
            }
            // Closing stdin ends the session: the process must exit by itself, cleanly.
            await writer.close();
            for (;;) {
              const { value, done } = await reader.read();
              if (done) break;
              buffer += value;
            }
            lines.push(...buffer.split("\n").filter((l) => l !== ""));
            assert.equal((await child.status).code, 0);
            assert.ok(lines.length >= 5);
            const byId = new Map<unknown, Record<string, unknown>>();
            for (const line of lines) {
              const message = JSON.parse(line);
              assert.equal(message.jsonrpc, "2.0", line);
              assert.ok(
                ("id" in message && ("result" in message) !== ("error" in message)) ||
                  typeof message.method === "string",
                line,
              );
              byId.set(message.id, message);
            }
            assert.equal(
              (byId.get(2)?.result as { tools: unknown[] }).tools.length,
              2,
            );
            const found = byId.get(3)?.result as { structuredContent: { id: number } };
            assert.equal(found.structuredContent.id, ids["opp-2"]);
            const bad = byId.get(4)?.result as { isError: boolean; structuredContent: unknown };
            assert.equal(bad.isError, true);
            // The same body as REST's, each with its own request id.
            const { request_id: _, ...badBody } = bad.structuredContent as Record<string, unknown>;
            const { request_id: __, ...restBad } =
              (await rest(base, "/api/v1/opportunities?min_score=high", pro.key)).body;
            assert.deepEqual(badBody, restBad);
            assert.equal((byId.get(5)?.error as { code: number }).code, -32602);
          });

          await t.step(
            "raw 2026-07-28 lines: discover, cached tools/list, tools/call",
            async () => {
              const meta = {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
                "io.modelcontextprotocol/clientCapabilities": {},
              };
              const answers = await rawSession(
                bin,
                { OPPINTEL_API_KEY: pro.key, OPPINTEL_BASE_URL: base },
                [
                  { jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: meta } },
                  { jsonrpc: "2.0", id: 2, method: "tools/list", params: { _meta: meta } },
                  {
                    jsonrpc: "2.0",
                    id: 3,
                    method: "tools/call",
                    params: {
                      name: "get_opportunity",
                      arguments: { id: ids["opp-2"] },
                      _meta: meta,
                    },
                  },
                  {
                    jsonrpc: "2.0",
                    id: 4,
                    method: "tools/call",
                    params: {
                      name: "get_opportunity",
                      arguments: { id: ids["opp-2"] },
                      _meta: { ...meta, "io.modelcontextprotocol/protocolVersion": "2099-01-01" },
                    },
                  },
                  // Once the connection is 2026-07-28, a handshake is refused, naming the versions.
                  {
                    jsonrpc: "2.0",
                    id: 5,
                    method: "initialize",
                    params: {
                      protocolVersion: "2025-06-18",
                      capabilities: {},
                      clientInfo: { name: "raw", version: "1" },
                    },
                  },
                ],
              );
              const discover = answers.get(1)?.result as { supportedVersions: string[] };
              assert.ok(discover.supportedVersions.includes("2026-07-28"));
              const list = answers.get(2)?.result as { tools: unknown[]; ttlMs: number };
              assert.equal(list.tools.length, 2);
              assert.equal(list.ttlMs, 3_600_000);
              const found = answers.get(3)?.result as { content: { text: string }[] };
              const restText = await (await fetch(`${base}/api/v1/opportunities/${ids["opp-2"]}`, {
                headers: { "X-API-Key": pro.key },
              })).text();
              assert.equal(found.content[0].text, restText);
              assert.equal((answers.get(4)?.error as { code: number }).code, -32022);
              assert.equal((answers.get(5)?.error as { code: number }).code, -32022);
            },
          );

          await t.step(
            "a service that does not answer is an isError after the time-out",
            async () => {
              const result = await timedOut;
              assert.equal(result.isError, true);
              const body = structured(result) as { error: string; message: string };
              assert.equal(body.error, "service_unreachable");
              assert.match(body.message, /no answer within 15 s/);
            },
          );
        } finally {
          for (const c of clients) await c.close().catch(() => {});
          await server.shutdown();
        }
      });
    } finally {
      silent.close();
      for (const conn of held) {
        try {
          conn.close();
        } catch { /* already closed */ }
      }
      await accepting;
      await Deno.remove(tmp, { recursive: true });
    }
  },
});
