/**
 * The sitemap at scale: on an existing database (read only: nothing is migrated or written), asks
 * the sitemap handler for /sitemap.xml, then streams every part it lists, counting URLs and bytes,
 * and samples the process's memory while it runs, to show that a million opportunities are served
 * in parts of at most 50,000 URLs without building one document in memory.
 *
 *   deno task bench:sitemap --database NAME [--parts all|N]
 */
import { parseArgs } from "node:util";
import { openDatabase } from "../src/db/open.ts";
import { readConfig } from "../src/platform/config.ts";
import { createSitemap, SITEMAP_MAX_URLS } from "../src/web/public/sitemap.ts";
import { exitWithHelpIfAsked } from "./harness/args.ts";

exitWithHelpIfAsked(`
Usage: deno task bench:sitemap --database NAME [--parts all|N]

Streams the sitemap of an existing database (read only) part by part, counting URLs and bytes
and sampling the process's memory.

Flags:
  --database NAME   The database to read (required)
  --parts all|N     Every part (default) or the first N
`);
const { values } = parseArgs({
  args: Deno.args,
  options: { database: { type: "string" }, parts: { type: "string", default: "all" } },
});
if (!values.database) {
  console.error("--database NAME is required (see --help)");
  Deno.exit(2);
}
const base = "https://oppintel.example";
const config = readConfig({
  DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${values.database}`,
  PUBLIC_BASE_URL: base,
});
const db = await openDatabase(config, { max: 2 });
const sitemap = createSitemap({
  sql: db.sql,
  context: { publicBaseUrl: base },
  staticPaths: ["/"],
});

let peak = 0;
const sampler = setInterval(() => peak = Math.max(peak, Deno.memoryUsage().rss), 20);
const mb = (bytes: number) => `${(bytes / 1048576).toFixed(0)} MB`;

async function fetchPart(path: string) {
  const started = performance.now();
  const response = await sitemap(new Request(base + path), path);
  if (!response || response.status !== 200) throw new Error(`${path}: ${response?.status}`);
  let bytes = 0;
  let urls = 0;
  let tail = "";
  const decoder = new TextDecoder();
  for await (const chunk of response.body!) {
    bytes += chunk.byteLength;
    const text = tail + decoder.decode(chunk, { stream: true });
    urls += text.split("<loc>").length - 1;
    tail = text.slice(-5);
  }
  return { ms: performance.now() - started, bytes, urls, text: tail };
}

try {
  const rss = Deno.memoryUsage().rss;
  const started = performance.now();
  const index = await sitemap(new Request(`${base}/sitemap.xml`), "/sitemap.xml");
  const indexText = await index!.text();
  const parts = [...indexText.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => new URL(m[1]).pathname);
  console.log(
    `/sitemap.xml: ${parts.length} parts in ${(performance.now() - started).toFixed(0)} ms ` +
      `(limit ${SITEMAP_MAX_URLS} URLs a file)`,
  );
  const chosen = values.parts === "all" ? parts : parts.slice(0, Number(values.parts));
  let total = 0;
  let slowest = 0;
  let biggest = 0;
  for (const part of chosen) {
    const { ms, bytes, urls } = await fetchPart(part);
    total += urls;
    slowest = Math.max(slowest, ms);
    biggest = Math.max(biggest, bytes);
    if (urls > SITEMAP_MAX_URLS) throw new Error(`${part}: ${urls} URLs`);
    console.log(`${part}: ${urls} URLs, ${mb(bytes)}, ${ms.toFixed(0)} ms`);
  }
  console.log(
    `${chosen.length} parts, ${total} URLs; slowest part ${slowest.toFixed(0)} ms, largest ` +
      `${mb(biggest)}; RSS ${mb(rss)} before, peak ${mb(peak)}`,
  );
} finally {
  clearInterval(sampler);
  await db.close();
}
