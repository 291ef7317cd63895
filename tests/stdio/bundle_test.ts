/**
 * npm-stdio/dist/cli.js is committed, because the service serves the package built from it
 * (src/web/downloads.ts) and a deployment runs no build. It must be what the package's build makes
 * from the sources now (npm-stdio/src and the service's src/mcp/tools.ts): rebuild it with
 * `cd npm-stdio && npm ci && npm run build` after changing either, and commit it.
 */
import assert from "node:assert/strict";
import { PACKAGE_DIR, run } from "../helpers/stdio.ts";

Deno.test("npm-stdio/dist/cli.js is what npm-stdio's build makes from the sources now", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "oppintel_bundle_" });
  try {
    try {
      await Deno.stat(`${PACKAGE_DIR}node_modules/.package-lock.json`);
    } catch {
      await run("npm", ["ci", "--no-audit", "--no-fund"], PACKAGE_DIR);
    }
    await run("node", ["build.mjs", `${tmp}/cli.js`], PACKAGE_DIR);
    const fresh = Deno.readFileSync(`${tmp}/cli.js`);
    const committed = Deno.readFileSync(`${PACKAGE_DIR}dist/cli.js`);
    assert.ok(
      fresh.length === committed.length && fresh.every((b, i) => b === committed[i]),
      "npm-stdio/dist/cli.js is stale: run `npm run build` in npm-stdio/ and commit it",
    );
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
