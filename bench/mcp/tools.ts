/**
 * `deno run -A bench/mcp/tools.ts --database-url URL`: how long every MCP tool takes to answer on a
 * large database (ChatGPT's app directory asks for answers under 3 s). The service runs in this
 * process on a loopback port with its production settings (statement time-out 2 s, pool of 10);
 * each case is one tools/call over HTTP (revision 2025-11-25, JSON) from a Business key made for
 * the run, timed from the request to the last byte: the first call (a cache miss) and then
 * `--repeat` more. The database must be migrated already and is written to (the key, its quota,
 * a watch made and deleted): point it at a copy, never at a database in service.
 */
import { buildHandler } from "../../main.ts";
import { readConfig } from "../../src/platform/config.ts";
import { openDatabase } from "../../src/db/open.ts";
import { createAccount } from "../../src/accounts/accounts.ts";
import { createApiKey } from "../../src/accounts/api_keys.ts";
import { isLoopbackHost } from "../../src/platform/hosts.ts";
import { arg, exitWithHelpIfAsked } from "../harness/args.ts";

exitWithHelpIfAsked(`
Usage: deno run -A bench/mcp/tools.ts --database-url URL [flags]

Every MCP tool answered by the service in this process on an existing, migrated PostgreSQL
database (a copy: the run adds an account, a key and a watch). Prints a Markdown section: per case
the first answer's time, the median and worst of the repeats, the size of its tools/call result
in bytes (text and structured content together) and its outcome;
FAIL when any answer takes 3 s or more or is not the expected kind.

Flags:
  --database-url URL   The database (default: DATABASE_URL)
  --repeat N           Calls after the first, per case (default 3)
  --write              Also put the section into bench/results/MCP_TOOLS.md (between its markers)
`);

const LIMIT_MS = 3000;
const RESULTS = new URL("../results/MCP_TOOLS.md", import.meta.url);

interface Case {
  name: string;
  args: Record<string, unknown>;
  /** The answer expected: a result, or the code of an expected error (not_found). */
  expect?: string;
}

interface Timed {
  ms: number;
  status: number;
  /** Bytes of the tools/call result as sent (text and structured content together). */
  bytes: number;
  outcome: string;
  body: Record<string, unknown>;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)] : NaN;
}

/** The tools bench on the command line (the flags read from Deno.args). */
export async function main(): Promise<void> {
  const url = arg("--database-url", Deno.env.get("DATABASE_URL") ?? "");
  if (!url) throw new Error("--database-url (or DATABASE_URL) is required");
  // Like every bench here: it writes to what it connects to, so only a database on this machine.
  if (!isLoopbackHost(new URL(url).hostname)) throw new Error("Only a loopback database host");
  const repeat = Number(arg("--repeat", "3"));
  const config = readConfig({
    DATABASE_URL: url,
    PUBLIC_BASE_URL: "http://127.0.0.1:1",
    SEED_DEMO: "false",
  });
  const db = await openDatabase(config, { serving: true });
  const email = `mcp-tools-${crypto.randomUUID().slice(0, 8)}@bench.local`;
  await createAccount(db.sql, { email, plan: "business", verified: true });
  const { key } = await createApiKey(db.sql, { email, name: "bench mcp_tools" });
  const handler = buildHandler(db, config, { log: () => {} });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request) => handler(request),
  );
  const endpoint = `http://127.0.0.1:${server.addr.port}/mcp/`;
  let id = 0;

  async function call(name: string, args: Record<string, unknown>): Promise<Timed> {
    const started = performance.now();
    const res = await fetch(endpoint, {
      method: "POST",
      headers: {
        "X-API-Key": key,
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-11-25",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: ++id,
        method: "tools/call",
        params: { name, arguments: args },
      }),
    });
    const text = await res.text();
    const ms = performance.now() - started;
    let body: Record<string, unknown> = {};
    let outcome = `HTTP ${res.status}`;
    let bytes = 0;
    if (res.status === 200) {
      const result = JSON.parse(text).result ?? {};
      body = result.structuredContent ?? {};
      outcome = result.isError ? String(body.error) : "ok";
      bytes = new TextEncoder().encode(JSON.stringify(result)).length;
    }
    return { ms, status: res.status, bytes, outcome, body };
  }

  try {
    const [{ rows }] = await db.sql<{ rows: number }[]>`
      select count(*)::int as rows from opportunities`;
    // Samples from the middle of the id range and the theme with the longest history (the
    // largest answer of get_theme_history).
    const [opp] = await db.sql<{ id: number }[]>`
      select id from opportunities
      where id >= (select (min(id) + max(id)) / 2 from opportunities) order by id limit 1`;
    const [theme] = await db.sql<{ id: number }[]>`
      select theme_id as id from theme_mentions group by 1 order by count(*) desc, 1 limit 1`;
    const [category] = await db.sql<{ slug: string }[]>`
      select c.slug from categories c join themes t on t.category_id = c.id
      group by c.slug order by count(*) desc limit 1`;
    const [post] = await db.sql<{ slug: string }[]>`
      select slug from blog_posts where published_at <= now() order by published_at desc limit 1`;
    const cases: Case[] = [
      { name: "get_overview", args: {} },
      { name: "get_opportunity", args: { id: opp.id } },
      { name: "get_opportunity", args: { id: 2_000_000_000 }, expect: "not_found" },
      { name: "list_blog_posts", args: {} },
      { name: "list_blog_posts", args: { q: "invoice" } },
      ...(post ? [{ name: "get_blog_post", args: { slug: post.slug } }] : []),
      { name: "query_opportunities", args: {} },
      { name: "query_opportunities", args: { q: "tool" } },
      { name: "query_opportunities", args: { q: "how do freelancers chase late invoices" } },
      { name: "query_opportunities", args: { q: "zxqvjk" } },
      {
        name: "query_opportunities",
        args: { platform: "reddit", min_score: 80, sort: "newest", page_size: 100 },
      },
      {
        name: "query_opportunities",
        args: { category: category?.slug ?? "none", recommendation: "Build" },
      },
      { name: "query_opportunities", args: { page: 100, page_size: 100 } },
      { name: "find_similar_opportunities", args: { id: opp.id } },
      {
        name: "match_idea",
        args: { text: "An app that helps freelance designers chase late invoices" },
      },
      { name: "list_trending_themes", args: {} },
      { name: "list_trending_themes", args: { window: "1y", limit: 50 } },
      { name: "list_trending_themes", args: { status: "rising", limit: 50 } },
      { name: "get_theme", args: { id: theme?.id ?? 1 } },
      { name: "get_theme_history", args: { id: theme?.id ?? 1 } },
      { name: "get_theme_history", args: { id: theme?.id ?? 1, interval: "month" } },
      { name: "get_usage", args: {} },
      { name: "search", args: { query: "invoice" } },
      { name: "fetch", args: { id: `opportunity:${opp.id}` } },
      ...(post ? [{ name: "fetch", args: { id: `article:${post.slug}` } }] : []),
    ];
    const lines: string[] = [];
    let failures = 0;
    const row = (c: Case, first: Timed, again: Timed[]) => {
      const expected = c.expect ?? "ok";
      const worst = Math.max(first.ms, ...again.map((t) => t.ms));
      const wrong = [first, ...again].find((t) => t.outcome !== expected);
      const pass = !wrong && worst < LIMIT_MS;
      if (!pass) failures++;
      lines.push(
        `| \`${c.name}\` | \`${JSON.stringify(c.args)}\` | ${first.ms.toFixed(1)} | ` +
          `${again.length ? median(again.map((t) => t.ms)).toFixed(1) : "-"} | ` +
          `${worst.toFixed(1)} | ${first.bytes.toLocaleString("en-US")} | ` +
          `${wrong ? wrong.outcome : expected} | ${pass ? "PASS" : "FAIL"} |`,
      );
    };
    for (const c of cases) {
      const first = await call(c.name, c.args);
      const again: Timed[] = [];
      for (let i = 0; i < repeat; i++) again.push(await call(c.name, c.args));
      row(c, first, again);
      // The deepest page by number leads on by cursor: the way past item 10,000.
      if (c.name === "query_opportunities" && c.args.page === 100 && first.body.next_cursor) {
        const deeper = { page_size: 100, cursor: first.body.next_cursor };
        const next = await call(c.name, deeper);
        const nextAgain: Timed[] = [];
        for (let i = 0; i < repeat; i++) nextAgain.push(await call(c.name, deeper));
        row(
          { name: c.name, args: { page_size: 100, cursor: "(item 10,001 on)" } },
          next,
          nextAgain,
        );
      }
    }
    // The watch tools write: each case once, in order.
    const created = await call("create_watch", {
      name: "bench",
      query: { q: "invoice" },
      deliveries: { feed: true },
    });
    row({ name: "create_watch", args: { query: { q: "invoice" } } }, created, []);
    row({ name: "list_watches", args: {} }, await call("list_watches", {}), []);
    row(
      { name: "delete_watch", args: { id: created.body.id } },
      await call("delete_watch", { id: created.body.id }),
      [],
    );
    await handler.settle();
    const load = Deno.loadavg().map((n) => n.toFixed(2)).join(", ");
    const section = [
      `Run ${new Date().toISOString().slice(0, 16)}Z on ${rows.toLocaleString("en-US")} ` +
      `opportunities (PostgreSQL ${db.kind === "postgres" ? "server" : db.kind}), ` +
      `${Deno.args.join(" ").replace(/postgres:\/\/\S+/, "URL")}; load average at the end ` +
      `${load}. Times in ms from the request to the last byte over loopback HTTP; the first call ` +
      `of a case is a cache miss, the ${repeat} after it may be cached.`,
      "",
      "| Tool | Arguments | First | Median again | Worst | Result (bytes) | Outcome | < 3 s |",
      "|---|---|---:|---:|---:|---:|---|---|",
      ...lines,
      "",
      failures === 0
        ? "Every answer under 3 s and of the expected kind."
        : `${failures} case(s) FAIL.`,
    ].join("\n");
    console.log(section);
    if (Deno.args.includes("--write")) await writeSection(section);
    if (failures > 0) Deno.exitCode = 1;
  } finally {
    await server.shutdown();
    await db.close();
  }
}

async function writeSection(section: string): Promise<void> {
  const [start, end] = ["<!-- run:start -->", "<!-- run:end -->"];
  const text = await Deno.readTextFile(RESULTS);
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`No ${start} ... ${end} markers in ${RESULTS}`);
  await Deno.writeTextFile(
    RESULTS,
    `${text.slice(0, from + start.length)}\n${section}\n${text.slice(to)}`,
  );
}
