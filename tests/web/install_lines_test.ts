/**
 * The one-line installs, tried as far as this machine can without the clients (Claude Code,
 * Cursor and VS Code are not installed here): the home page and docs/mcp.md show the lines
 * installLines makes; Claude Code's line, read back like a shell would, names a URL and a header
 * that answer tools/list; Cursor's deeplink decodes to the mcp.json entry the docs show; VS Code's
 * JSON parses as an http server at this service's /mcp/, whose 401 without a key carries the
 * challenge that starts a client's OAuth sign-in.
 */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { makeKey } from "../helpers/app.ts";
import { webTestApp } from "../helpers/web.ts";
import { escapeHtml } from "../../src/web/html.ts";
import { installLines, KEY_PLACEHOLDER } from "../../src/web/install_lines.ts";

const HOSTED = "https://oppintel.example.com";
const BASE = "http://oppintel.test";

/** The URL and the headers of a `claude mcp add --transport http NAME URL --header ...` line. */
function readClaudeLine(line: string): { name: string; url: string; headers: [string, string][] } {
  const words = [...line.replace(/\\\n\s*/g, " ").matchAll(/"([^"]*)"|(\S+)/g)]
    .map((m) => m[1] ?? m[2]);
  assert.deepEqual(words.slice(0, 5), ["claude", "mcp", "add", "--transport", "http"]);
  const [name, url, ...rest] = words.slice(5);
  const headers: [string, string][] = [];
  for (let i = 0; i < rest.length; i += 2) {
    assert.equal(rest[i], "--header");
    const [field, ...value] = rest[i + 1].split(":");
    headers.push([field.trim(), value.join(":").trim()]);
  }
  return { name, url, headers };
}

Deno.test("docs/mcp.md shows the lines installLines makes for the hosted address", async () => {
  const docs = await Deno.readTextFile(new URL("../../docs/mcp.md", import.meta.url));
  const lines = installLines(HOSTED);
  assert.ok(docs.includes(lines.claudeCode), "Claude Code");
  assert.ok(docs.includes(`[cursor-link]: ${lines.cursorLink}\n`), "the Cursor link");
  assert.ok(docs.includes(`[vscode-link]: ${lines.vscodeLink}\n`), "the VS Code link");
  assert.ok(docs.includes(lines.vscodeCommand), "code --add-mcp");
  const shown = /```json\n(\{ "mcpServers": \{ "oppintel": \{ "url": [^\n]+)\n```/.exec(docs);
  assert.ok(shown, "the Cursor entry is shown");
  assert.deepEqual(JSON.parse(shown[1]).mcpServers.oppintel, lines.cursorConfig);
  assert.ok(docs.includes(`npx -y ${lines.stdioTarball}`), "the stdio package's line");
  const configs = [...docs.matchAll(/```json\n(\{\n {2}"mcpServers"[^`]+)```/g)]
    .map((m) => JSON.parse(m[1]));
  assert.ok(
    configs.some((c) => JSON.stringify(c) === JSON.stringify(lines.stdioConfig)),
    "the stdio package's configuration",
  );
});

dbTest("the install lines of the home page, tried against the service", async (db, t) => {
  const app = webTestApp(db, { base: BASE });
  const lines = installLines(BASE);
  const home = await (await app.handler(new Request(`${BASE}/`))).text();

  await t.step("the home page shows them", () => {
    assert.ok(home.includes(escapeHtml(lines.claudeCode)), "Claude Code");
    assert.ok(home.includes(`href="${escapeHtml(lines.cursorLink)}"`), "Add to Cursor");
    assert.ok(home.includes(`href="${escapeHtml(lines.vscodeLink)}"`), "Add to VS Code");
    assert.ok(home.includes(escapeHtml(lines.vscodeCommand)), "code --add-mcp");
  });

  await t.step("Claude Code: its URL and header answer tools/list", async () => {
    const { key } = await makeKey(db.sql, "free");
    const line = readClaudeLine(lines.claudeCode.replace(KEY_PLACEHOLDER, key));
    assert.equal(line.name, "oppintel");
    assert.equal(line.url, `${BASE}/mcp/`);
    assert.deepEqual(line.headers, [["X-API-Key", key]]);
    const response = await app.handler(
      new Request(line.url, {
        method: "POST",
        headers: {
          ...Object.fromEntries(line.headers),
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      }),
    );
    assert.equal(response.status, 200);
    const names = (await response.json()).result.tools.map((tool: { name: string }) => tool.name);
    assert.ok(names.includes("search") && names.includes("fetch"));
  });

  await t.step("the stdio package: the home page's tarball is served here", async () => {
    assert.ok(home.includes(escapeHtml(`npx -y ${lines.stdioTarball}`)));
    const response = await app.handler(new Request(lines.stdioTarball));
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "application/gzip");
    await response.body?.cancel();
  });

  await t.step("Cursor: the deeplink decodes to the entry", () => {
    const link = new URL(lines.cursorLink);
    assert.equal(link.protocol, "cursor:");
    assert.equal(link.host, "anysphere.cursor-deeplink");
    assert.equal(link.pathname, "/mcp/install");
    assert.equal(link.searchParams.get("name"), "oppintel");
    const config = JSON.parse(atob(link.searchParams.get("config")!));
    assert.deepEqual(config, { url: `${BASE}/mcp/` });
  });

  await t.step("VS Code: the JSON parses and its URL starts an OAuth sign-in", async () => {
    const json = /^code --add-mcp '(.+)'$/.exec(lines.vscodeCommand)![1];
    const config = JSON.parse(json);
    assert.deepEqual(config, { name: "oppintel", type: "http", url: `${BASE}/mcp/` });
    assert.deepEqual(JSON.parse(decodeURIComponent(lines.vscodeLink.split("?")[1])), config);
    const response = await app.handler(
      new Request(config.url, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      }),
    );
    assert.equal(response.status, 401);
    assert.match(
      response.headers.get("www-authenticate") ?? "",
      new RegExp(`resource_metadata="${BASE}/\\.well-known/oauth-protected-resource/mcp/"`),
    );
    await response.body?.cancel();
  });
});
