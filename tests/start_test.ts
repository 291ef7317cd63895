/**
 * `deno task start` installs what serving needs and nothing else. Before it runs a task, Deno
 * installs every package of the configuration's import map and lock file (Deno 2.9.6, in every
 * node_modules mode), so deno.json and deno.lock hold the served modules' packages only; the
 * tests, benchmarks and drills run with deno.dev.json (the same imports plus their tools, locked
 * in deno.dev.lock), which their tasks name.
 */
import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);
const readJson = (name: string) => JSON.parse(Deno.readTextFileSync(new URL(name, ROOT)));
const serving = readJson("deno.json");
const dev = readJson("deno.dev.json");
/** The package name of an import map target or a lock key: npm:/@scope/name@1.2.3/x -> @scope/name. */
const packageOf = (spec: string) => /^(?:npm:\/?)?((?:@[^/@]+\/)?[^/@]+)/.exec(spec)?.[1] ?? spec;

Deno.test("deno.dev.json has every import of deno.json, at the same version", () => {
  for (const [name, target] of Object.entries(serving.imports)) {
    assert.equal(dev.imports[name], target, name);
  }
  assert.equal(dev.lock, "deno.dev.lock");
});

Deno.test("deno.lock names no package that only tests, benchmarks or drills use", () => {
  const servingPackages = new Set(
    Object.values(serving.imports as Record<string, string>)
      .map(packageOf),
  );
  const toolsOnly = [
    ...Object.values(dev.imports as Record<string, string>).map(packageOf),
    "autocannon",
    "@modelcontextprotocol/inspector",
    "@modelcontextprotocol/conformance",
    "@modelcontextprotocol/sdk",
    "vite",
  ].filter((name) => !servingPackages.has(name));
  assert.ok(toolsOnly.includes("playwright-core") && toolsOnly.includes("html-validate"));
  const lock = readJson("deno.lock");
  const entries = Object.values(lock.npm ?? {}) as { dependencies?: string[] }[];
  // A tool's package may still be locked as what a served package depends on (the server's core).
  const dependedOn = new Set(entries.flatMap((e) => (e.dependencies ?? []).map(packageOf)));
  const locked = Object.keys(lock.npm ?? {}).map(packageOf);
  assert.ok(locked.includes("postgres"), "the serving packages are locked");
  assert.deepEqual(locked.filter((name) => toolsOnly.includes(name) && !dependedOn.has(name)), []);
});

Deno.test("deno.lock holds every package the served modules import", async () => {
  // Frozen: fails instead of adding to the lock when a served import is missing from it. Without
  // a node_modules folder: with it, Deno would rewrite the shared folder to the serving packages
  // alone and pull the test tools from under the tests running beside this one.
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "cache",
      "--frozen",
      "--node-modules-dir=none",
      "main.ts",
      "serve.ts",
      "src/cli/admin.ts",
    ],
    cwd: ROOT.pathname,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
});

Deno.test("the test, check, bench and drill tasks run with deno.dev.json", () => {
  for (const [name, command] of Object.entries(serving.tasks as Record<string, string>)) {
    const tool = name === "test" || name === "check" || /^(bench|drill)/.test(name);
    if (tool) assert.match(command, /deno (test|check|run) --config deno\.dev\.json /, name);
    else assert.doesNotMatch(command, /deno\.dev\.json/, name);
  }
});
