// Bundles the server, the SDK, zod and the service's tool definitions (../src/mcp/tools.ts) into
// one file, dist/cli.js, so that `npx oppintel-mcp` starts fast and installs nothing else.
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

rmSync(join(here, "dist"), { recursive: true, force: true });
await esbuild.build({
  entryPoints: [join(here, "src/cli.ts")],
  outfile: join(here, "dist/cli.js"),
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
