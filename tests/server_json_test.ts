/**
 * MCP Registry readiness: server.json (the registry entry for both the npm stdio package and the
 * hosted endpoint) validates against the registry's published JSON schema, vendored unchanged in
 * tests/fixtures/mcp-registry/, and agrees with npm-stdio/package.json, whose `mcpName` the
 * registry checks in the published tarball (so `npm pack` must carry it).
 */
import assert from "node:assert/strict";
import { Ajv } from "ajv";
import addFormats from "ajv-formats";
import { sha256Hex } from "../src/platform/crypto.ts";

const ROOT = new URL("../", import.meta.url);
const SCHEMA_FILE = new URL("tests/fixtures/mcp-registry/server.schema.json", ROOT);
/** The digest of the vendored file: an edit of the registry's schema fails here. */
const SCHEMA_SHA256 = "d4c163f299ece68b7432f4e44c4108f2fdb663d99dc088c8344142e5b0a4b520";

// deno-lint-ignore no-explicit-any
type Json = any;

async function readJson(url: URL): Promise<Json> {
  return JSON.parse(await Deno.readTextFile(url));
}

async function validator() {
  const schema = await readJson(SCHEMA_FILE);
  // strict off: the registry's schema uses the annotation keyword "example", unknown to Ajv.
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats.default(ajv);
  const validate = ajv.compile(schema);
  return (doc: Json) => {
    const ok = validate(doc);
    return ok ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
  };
}

Deno.test("the vendored registry schema is the 2025-12-11 release, unchanged", async () => {
  const text = await Deno.readTextFile(SCHEMA_FILE);
  assert.equal(await sha256Hex(text), SCHEMA_SHA256);
  const schema = JSON.parse(text);
  assert.equal(
    schema.$id,
    "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
  );
});

Deno.test("server.json validates against the registry's schema it names", async (t) => {
  const server = await readJson(new URL("server.json", ROOT));
  const errorsOf = await validator();

  await t.step("it names the vendored schema and passes it", async () => {
    assert.equal(server.$schema, (await readJson(SCHEMA_FILE)).$id);
    assert.deepEqual(errorsOf(server), []);
  });

  await t.step("the schema refuses broken entries (the check can fail)", () => {
    const broken: [string, (s: Json) => void][] = [
      ["no name", (s) => delete s.name],
      ["a name without a namespace", (s) => s.name = "opportunity-intelligence"],
      ["a description over 100 characters", (s) => s.description = "x".repeat(101)],
      ["the package version latest", (s) => s.packages[0].version = "latest"],
      ["a remote URL that is not http(s)", (s) => s.remotes[0].url = "ftp://oppintel.example.com"],
      ["a header without a name", (s) => delete s.remotes[0].headers[0].name],
      ["a package without a transport", (s) => delete s.packages[0].transport],
    ];
    for (const [what, breakIt] of broken) {
      const copy = structuredClone(server);
      breakIt(copy);
      assert.notDeepEqual(errorsOf(copy), [], what);
    }
  });
});

Deno.test("server.json describes the npm package and the hosted endpoint", async (t) => {
  const server = await readJson(new URL("server.json", ROOT));
  const pkg = await readJson(new URL("npm-stdio/package.json", ROOT));

  await t.step("the npm package: name, version, mcpName and repository agree", () => {
    assert.equal(server.name, pkg.mcpName, "the registry matches the name to mcpName");
    assert.equal(server.version, pkg.version);
    const [npm] = server.packages;
    assert.equal(server.packages.length, 1);
    assert.equal(npm.registryType, "npm");
    assert.equal(npm.identifier, pkg.name);
    assert.equal(npm.version, pkg.version);
    assert.deepEqual(npm.transport, { type: "stdio" });
    assert.equal(pkg.repository.url, `git+${server.repository.url}.git`);
    assert.equal(pkg.repository.directory, server.repository.subfolder);
  });

  await t.step("its variables are the ones the package reads, the key a secret", async () => {
    const config = await Deno.readTextFile(new URL("npm-stdio/src/config.ts", ROOT));
    const read = [...config.matchAll(/env\.([A-Z_]+)/g)].map((m) => m[1]);
    const declared = server.packages[0].environmentVariables;
    assert.deepEqual(declared.map((v: Json) => v.name).sort(), [...new Set(read)].sort());
    const key = declared.find((v: Json) => v.name === "OPPINTEL_API_KEY");
    assert.equal(key.isSecret, true);
    assert.equal(key.isRequired, true);
  });

  await t.step("the hosted remote: streamable-http with X-API-Key as a secret input", async () => {
    assert.equal(server.remotes.length, 1);
    const [remote] = server.remotes;
    assert.equal(remote.type, "streamable-http");
    const readme = await Deno.readTextFile(new URL("docs/mcp.md", ROOT));
    const hosted = /The MCP URL of this service is `([^`]+)`/.exec(readme)?.[1];
    assert.equal(remote.url, hosted, "the hosted MCP URL of docs/mcp.md");
    assert.deepEqual(remote.headers.map((h: Json) => h.name), ["X-API-Key"]);
    assert.equal(remote.headers[0].isSecret, true);
    assert.equal(remote.headers[0].isRequired, true);
    const base = server.packages[0].environmentVariables.find((v: Json) =>
      v.name === "OPPINTEL_BASE_URL"
    );
    assert.equal(`${base.default}/mcp/`, remote.url, "the package defaults to the same service");
  });
});

Deno.test("npm pack of the stdio package carries mcpName", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "oi-pack-" });
  try {
    // Scripts only build dist/ (tests/stdio/ packs with them); the registry reads package.json.
    const pack = await new Deno.Command("npm", {
      args: ["pack", "--ignore-scripts", "--json", "--pack-destination", tmp],
      cwd: new URL("npm-stdio/", ROOT).pathname,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(pack.success, new TextDecoder().decode(pack.stderr));
    const [{ filename }] = JSON.parse(new TextDecoder().decode(pack.stdout));
    const untar = await new Deno.Command("tar", {
      args: ["-xzf", `${tmp}/${filename}`, "-C", tmp, "package/package.json"],
    }).output();
    assert.ok(untar.success, new TextDecoder().decode(untar.stderr));
    const packed = JSON.parse(await Deno.readTextFile(`${tmp}/package/package.json`));
    const server = await readJson(new URL("server.json", ROOT));
    assert.equal(packed.mcpName, server.name);
    assert.equal(packed.version, server.packages[0].version);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
