// Bundles the server, the SDK, zod and the service's tool definitions (../src/mcp/tools.ts) into
// one file, dist/cli.js, so that `npx oppintel-mcp` starts fast and installs nothing else.
// dist/cli.js is committed: the service serves this package as a tarball built from it
// (src/web/downloads.ts), and tests/stdio/bundle_test.ts checks that it is what a build makes now
// (`node build.mjs OUTFILE` builds elsewhere, for that comparison).
import { readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const { version } = JSON.parse(readFileSync(join(here, "package.json"), "utf8"));

// tools.ts lives outside this package and imports "zod" as the service does; resolve it (and
// the SDK's zod imports) from this package's node_modules, so there is one zod, the locked one.
const zodFromHere = {
  name: "zod-from-package",
  setup(build) {
    build.onResolve({ filter: /^zod(\/.*)?$/ }, (args) => {
      if (args.pluginData === "zod-from-package") return undefined;
      return build.resolve(args.path, {
        kind: args.kind,
        resolveDir: here,
        pluginData: "zod-from-package",
      });
    });
  },
};

const outfile = process.argv[2] ?? join(here, "dist/cli.js");
if (!process.argv[2]) rmSync(join(here, "dist"), { recursive: true, force: true });
await esbuild.build({
  entryPoints: [join(here, "src/cli.ts")],
  outfile,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  minify: true,
  legalComments: "eof",
  banner: { js: "#!/usr/bin/env node" },
  define: { PACKAGE_VERSION: JSON.stringify(version) },
  plugins: [zodFromHere],
  logLevel: "warning",
});
