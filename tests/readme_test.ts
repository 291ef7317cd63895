/**
 * The README and the pages of docs/ cannot drift: their fenced blocks are run or parsed here. The
 * README's block marked `<!-- readme-test: server -->` starts the service (on a free port, a fresh
 * data folder and the embedded database, as a first start); its output is compared with the block
 * marked `server-output`; every other `sh` block, of the README and then of each page in reading
 * order, then runs in bash against that server, with `localhost:8000` and the hosted address
 * pointed at it, the demo key in place of `oi_live_...` and curl failing on any HTTP error; every
 * `json` block must parse. A block that cannot run offline is marked
 * `<!-- readme-test: skip REASON -->`.
 */
import assert from "node:assert/strict";
import { DOC_PAGES } from "../src/web/docs_pages.ts";

const ROOT = new URL("../", import.meta.url);
/** The files whose blocks run: the README, then every documentation page. */
const FILES = ["README.md", ...DOC_PAGES.map((page) => `docs/${page.slug}.md`)];
const HOSTED = "https://oppintel.example.com";
// A guard against a hung command, so that a failure ends the test instead of hanging it.
const GUARD_MS = 180_000;

/** A fenced block of the README: its language, text, line and marker comment. */
export interface Block {
  lang: string;
  body: string;
  line: number;
  /** The `readme-test` comment just above it: "skip ...", "server", "server-output". */
  marker?: string;
}

/** The fenced blocks of a Markdown text (fences may be indented, as in list items). */
export function readBlocks(markdown: string): Block[] {
  const lines = markdown.split("\n");
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(\S*)\s*$/.exec(lines[i]);
    if (!open) continue;
    const indent = open[1].length;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^\s*```\s*$/.test(lines[i]); i++) {
      body.push(lines[i].slice(Math.min(indent, lines[i].search(/\S|$/))));
    }
    let j = start - 1;
    while (j >= 0 && lines[j].trim() === "") j--;
    const comment = j >= 0 ? /^\s*<!-- readme-test: (.+?) -->\s*$/.exec(lines[j]) : null;
    blocks.push({ lang: open[2], body: body.join("\n"), line: start + 1, marker: comment?.[1] });
  }
  return blocks;
}

/** The README's text of a shell block, pointed at the local server with the demo key. */
export function localised(text: string, base: string, key: string): string {
  return text.replaceAll("http://localhost:8000", base).replaceAll(HOSTED, base)
    .replaceAll("oi_live_your_key_here", key).replaceAll("oi_live_...", key);
}

/**
 * What a block's output comment (`# {"items": [...], "total": 4, ...}`) promises of the answer:
 * its top-level `total` and `match`, when it names them.
 */
export function promised(body: string): { total?: number; match?: string } {
  const comment = /^# (\{.*)$/m.exec(body)?.[1];
  if (!comment) return {};
  const total = /"total": (\d+)/.exec(comment)?.[1];
  const match = /"match": "(\w+)"/.exec(comment)?.[1];
  return {
    ...(total === undefined ? {} : { total: Number(total) }),
    ...(match === undefined ? {} : { match }),
  };
}

/** True when every line of `expected` (`...` standing for a key's characters) is in `actual`. */
export function outputMatches(expected: string, actual: string): string[] {
  const missing: string[] = [];
  let from = 0;
  const lines = actual.split("\n");
  for (const want of expected.split("\n").filter((l) => l.trim() !== "")) {
    const pattern = new RegExp(
      "^" + want.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replaceAll("\\.\\.\\.", "[A-Za-z0-9]+") +
        "$",
    );
    const at = lines.findIndex((l, n) => n >= from && pattern.test(l));
    if (at < 0) missing.push(want);
    else from = at + 1;
  }
  return missing;
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** The environment of the server and of the blocks: ours, without a database URL. */
function environment(extra: Record<string, string>): Record<string, string> {
  const env = Deno.env.toObject();
  for (const name of ["DATABASE_URL", "PORT", "DATA_DIR", "SEED_DEMO", "PUBLIC_BASE_URL"]) {
    delete env[name];
  }
  return { ...env, NO_COLOR: "1", ...extra };
}

/** Starts the server block in its own process group; resolves once it printed `until`. */
async function startServer(command: string, env: Record<string, string>, until: RegExp) {
  const child = new Deno.Command("setsid", {
    args: ["bash", "-c", command],
    cwd: ROOT.pathname,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let output = "";
  const { promise: started, resolve: ready } = Promise.withResolvers<void>();
  // Read standard error to the end, so that the server never blocks on a full pipe.
  const drained = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
      output += chunk;
      if (until.test(output)) ready();
    }
    ready();
  })();
  await started;
  return {
    output: () => output,
    async stop() {
      // The process group: bash, deno task and the server it runs.
      await new Deno.Command("kill", { args: ["-TERM", "--", `-${child.pid}`] }).output();
      await child.status;
      await drained;
    },
  };
}

async function runBlock(text: string, env: Record<string, string>) {
  // curl fails on an HTTP error, as a reader would notice one.
  const script = 'curl() { command curl --fail-with-body --silent --show-error "$@"; }\n' + text;
  const out = await new Deno.Command("bash", {
    args: ["-euo", "pipefail", "-c", script],
    cwd: ROOT.pathname,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(GUARD_MS),
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { success: out.success, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

Deno.test("readBlocks, localised and outputMatches", () => {
  const blocks = readBlocks(
    "a\n<!-- readme-test: skip no network -->\n\n```sh\nx\n```\n\n1. b\n   ```json\n   {}\n   ```\n",
  );
  assert.deepEqual(blocks, [
    { lang: "sh", body: "x", line: 4, marker: "skip no network" },
    { lang: "json", body: "{}", line: 9, marker: undefined },
  ]);
  assert.equal(
    localised(`curl -H "X-API-Key: oi_live_..." ${HOSTED}/mcp/ http://localhost:8000/x`, "B", "K"),
    'curl -H "X-API-Key: K" B/mcp/ B/x',
  );
  assert.deepEqual(outputMatches("a oi_live_...\nb", "x\na oi_live_Ab1\nb"), []);
  assert.deepEqual(outputMatches("a oi_live_...\nb", "b\na oi_live_Ab1"), ["b"]);
  assert.deepEqual(promised('curl x\n# {"items": [...], "total": 4, "match": "all"}'), {
    total: 4,
    match: "all",
  });
  assert.deepEqual(promised("curl x\n# List the tools"), {});
});

Deno.test("every block of the README and the docs not marked skip runs or parses", async (t) => {
  const files = await Promise.all(
    FILES.map(async (file) => ({
      file,
      blocks: readBlocks(await Deno.readTextFile(new URL(file, ROOT))),
    })),
  );
  const all = files.flatMap(({ file, blocks }) => blocks.map((block) => ({ file, ...block })));
  const readme = files[0].blocks;

  await t.step("every skip says why, and every marker is one the test knows", () => {
    for (const block of all.filter((b) => b.marker)) {
      assert.match(
        block.marker!,
        /^(skip \S.*|server|server-output)$/,
        `${block.file} line ${block.line}`,
      );
    }
    const starts = all.filter((b) => b.marker === "server" || b.marker === "server-output");
    assert.deepEqual(starts.map((b) => b.file), ["README.md", "README.md"], "only the README's");
  });

  await t.step("every JSON block parses; MCP client configs name a server", () => {
    const json = all.filter((b) => b.lang === "json" && !b.marker?.startsWith("skip"));
    assert.ok(json.length >= 4);
    for (const block of json) {
      let doc;
      try {
        doc = JSON.parse(block.body);
      } catch (error) {
        assert.fail(`${block.file} line ${block.line}: ${error}`);
      }
      for (const [name, server] of Object.entries(doc.mcpServers ?? {})) {
        const s = server as { url?: string; command?: string; args?: unknown };
        assert.ok(
          typeof s.url === "string" || (typeof s.command === "string" && Array.isArray(s.args)),
          `${block.file} line ${block.line}: ${name} has a url or a command with args`,
        );
      }
    }
  });

  const serverBlock = readme.find((b) => b.marker === "server");
  const outputBlock = readme.find((b) => b.marker === "server-output");
  assert.ok(serverBlock && outputBlock, "the README marks its server start and its output");
  const port = freePort();
  const base = `http://localhost:${port}`;
  const dataDir = await Deno.makeTempDir({ prefix: "oi-readme-" });
  const metricsToken = "readme-test-metrics-token";
  const server = await startServer(
    serverBlock.body,
    environment({ PORT: String(port), DATA_DIR: dataDir, METRICS_TOKEN: metricsToken }),
    /^Try: .*$/m,
  );
  try {
    const output = server.output();
    const key = /Demo API key[^:]*: (oi_live_[A-Za-z0-9]+)/.exec(output)?.[1];

    await t.step("the first start prints what the README shows", () => {
      assert.deepEqual(outputMatches(localised(outputBlock.body, base, "oi_live_..."), output), []);
      assert.ok(key, output);
    });

    const shell = all.filter((b) => b.lang === "sh" && !b.marker);
    assert.ok(shell.length >= 2, "the README and the docs have runnable shell blocks");
    for (const block of shell) {
      await t.step(`${block.file} line ${block.line}: ${block.body.split("\n")[0]}`, async () => {
        const env = environment({
          DATA_DIR: dataDir,
          METRICS_TOKEN: metricsToken,
          OPPINTEL_API_KEY: key!,
        });
        const result = await runBlock(localised(block.body, base, key!), env);
        assert.ok(result.success, `exit non-zero:\n${result.stdout}\n${result.stderr}`);
        // The answer the page shows is the one the demo data gives.
        const promise = promised(block.body);
        if (Object.keys(promise).length > 0) {
          const answer = JSON.parse(result.stdout);
          for (const [field, value] of Object.entries(promise)) {
            assert.equal(answer[field], value, `the page promises "${field}": ${value}`);
          }
        }
      });
    }
  } finally {
    await server.stop();
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
});
