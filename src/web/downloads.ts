/**
 * The stdio package, served by the service itself so that it installs in one line before (and
 * without) a release on the npm registry: `npx -y {base}/downloads/oppintel-mcp.tgz`.
 *
 * - `/downloads/oppintel-mcp.tgz` and `/downloads/oppintel-mcp-{version}.tgz`: the npm tarball,
 *   the same files `npm pack` puts in it (package.json, README.md, dist/cli.js under `package/`);
 * - `/downloads/oppintel-mcp.js`: its one-file bundle alone, for runtimes that run a module from
 *   a URL but cannot install a tarball from one (`deno run --allow-net --allow-env URL`).
 *
 * The files are imported as text, so they are part of the module graph (as the docs are): a
 * deployment serves the package of its own commit and writes nothing to disk. The tarball is made
 * in memory at its first request (130 KB; 96 ms measured on a busy 2-core machine) and kept.
 *
 * The served program's default address is the instance's own public address, not the package's
 * `http://localhost:8000` (where whatever listens would get the key in clear): a user who leaves
 * OPPINTEL_BASE_URL out calls the service the package came from.
 * dist/cli.js is the committed output of npm-stdio's build; tests/stdio/bundle_test.ts fails when
 * it is stale.
 */
import CLI_JS from "../../npm-stdio/dist/cli.js" with { type: "text" };
import PACKAGE_JSON from "../../npm-stdio/package.json" with { type: "text" };
import README from "../../npm-stdio/README.md" with { type: "text" };
import { securityHeaders } from "./security.ts";

/** The package's name and version, from its package.json. */
export const STDIO_PACKAGE: { name: string; version: string } = JSON.parse(PACKAGE_JSON);

const PREFIX = "/downloads/";
const STABLE = `${STDIO_PACKAGE.name}.tgz`;
const VERSIONED = `${STDIO_PACKAGE.name}-${STDIO_PACKAGE.version}.tgz`;
const BUNDLE = `${STDIO_PACKAGE.name}.js`;

/** True for a path under /downloads/ (answered here, 404 when unknown). */
export function isDownloadPath(path: string): boolean {
  return path.startsWith(PREFIX);
}

// npm's own tarballs carry this date on every entry, so that a pack does not depend on when.
const MTIME = Date.UTC(1985, 9, 26, 8, 15) / 1000;
const encoder = new TextEncoder();

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, "0") + "\0";
}

/** One ustar entry: a 512-byte header, then the content padded to a multiple of 512. */
function tarEntry(name: string, content: Uint8Array, mode: number): Uint8Array {
  const header = new Uint8Array(512);
  const put = (text: string, at: number) => header.set(encoder.encode(text), at);
  put(name, 0);
  put(octal(mode, 8), 100);
  put(octal(0, 8), 108);
  put(octal(0, 8), 116);
  put(octal(content.length, 12), 124);
  put(octal(MTIME, 12), 136);
  put("        ", 148); // the checksum counts its own field as spaces
  put("0", 156);
  put("ustar\u000000", 257);
  const sum = header.reduce((a, b) => a + b, 0);
  put(sum.toString(8).padStart(6, "0") + "\0 ", 148);
  const padded = new Uint8Array(512 + Math.ceil(content.length / 512) * 512);
  padded.set(header);
  padded.set(content, 512);
  return padded;
}

/** The gzipped tar of `files` (path under `package/` to text), as npm reads a tarball. */
export async function npmTarball(
  files: [string, string, number][],
): Promise<Uint8Array<ArrayBuffer>> {
  const entries = files.map(([path, text, mode]) =>
    tarEntry(`package/${path}`, encoder.encode(text), mode)
  );
  // Two zero blocks end the archive.
  const tar = new Blob([...entries, new Uint8Array(1024)] as BlobPart[]);
  const gzipped = tar.stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(gzipped).arrayBuffer());
}

interface Download {
  body: Uint8Array<ArrayBuffer>;
  type: string;
  etag: string;
}

/** The package's default address, as its bundle spells it (npm-stdio/src/config.ts). */
const PACKAGE_DEFAULT = '"http://localhost:8000"';

/** dist/cli.js with `base` as its default address. */
export function cliFor(base: string): string {
  if (!CLI_JS.includes(PACKAGE_DEFAULT)) {
    throw new Error(`npm-stdio/dist/cli.js no longer holds ${PACKAGE_DEFAULT}`);
  }
  return CLI_JS.replace(PACKAGE_DEFAULT, JSON.stringify(base));
}

const tarballs = new Map<string, Promise<Download>>();
const bundles = new Map<string, Promise<Download>>();

async function download(body: Uint8Array<ArrayBuffer>, type: string): Promise<Download> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", body as BufferSource));
  const hex = [...digest.slice(0, 12)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return { body, type, etag: `"${hex}"` };
}

/** The value of `key` in `map`, made by `make` once (one entry per public address: one or two). */
function once<T>(map: Map<string, Promise<T>>, key: string, make: () => Promise<T>): Promise<T> {
  let value = map.get(key);
  if (!value) map.set(key, value = make());
  return value;
}

function stdioTarball(base: string): Promise<Download> {
  return once(tarballs, base, async () =>
    download(
      await npmTarball([
        ["package.json", PACKAGE_JSON, 0o644],
        ["README.md", README, 0o644],
        ["dist/cli.js", cliFor(base), 0o755],
      ]),
      "application/gzip",
    ));
}

/**
 * The answer of a path under /downloads/, or undefined for an unknown one; `base` is the
 * instance's public address, the served program's default.
 */
export async function serveDownload(
  request: Request,
  path: string,
  base: string,
): Promise<Response | undefined> {
  const name = path.slice(PREFIX.length);
  const found = name === STABLE || name === VERSIONED
    ? await stdioTarball(base)
    : name === BUNDLE
    ? await once(
      bundles,
      base,
      () => download(encoder.encode(cliFor(base)), "text/javascript; charset=utf-8"),
    )
    : undefined;
  if (!found) return undefined;
  const headers = {
    "Content-Type": found.type,
    // The stable name follows the deployment; an hour is short enough for a new release.
    "Cache-Control": "public, max-age=3600",
    ETag: found.etag,
    "Access-Control-Allow-Origin": "*",
    ...securityHeaders("public"),
  };
  if (request.headers.get("if-none-match") === found.etag) {
    return new Response(null, { status: 304, headers });
  }
  return new Response(found.body, { headers });
}
