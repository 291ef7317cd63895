/**
 * What an app signed in through OAuth may do (src/accounts/scopes.ts): without the
 * `watches` scope it reads the catalogue and the usage and nothing of the watches, on REST and
 * on both MCP eras (403 / isError insufficient_scope, uncharged, nothing written); with it, the
 * watches are its to manage. API keys keep every scope.
 */
import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { dbTest } from "../helpers/db.ts";
import { loadFixture, usedOf } from "../helpers/app.ts";
import { signUp, type WebTestApp, webTestApp } from "../helpers/web.ts";
import { Browser, connectApp, mcpBearer } from "../helpers/oauth.ts";
import { createApiKey } from "../../src/accounts/api_keys.ts";
import { TOOLS, WATCH_TOOLS } from "../../src/mcp/tools.ts";
import { openApiDocument } from "../../src/rest/openapi.ts";
import type { Sql } from "../../src/db/open.ts";

const CHALLENGE = 'Bearer error="insufficient_scope", scope="watches"';

/** A REST request with a bearer credential (token or key) and an optional JSON body. */
async function rest(
  app: WebTestApp,
  method: string,
  path: string,
  credential: string,
  body?: unknown,
) {
  const res = await app.handler(
    new Request(`${app.base}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${credential}`,
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  const text = await res.text();
  // The export answers JSON Lines: its first line stands for the answer.
  const json = res.headers.get("content-type")?.startsWith("application/x-ndjson")
    ? text.split("\n")[0]
    : text;
  return { res, body: json ? JSON.parse(json) : undefined };
}

/** A tools/call over the 2025-era stateless JSON transport. */
async function toolCall2025(app: WebTestApp, token: string, name: string, args: unknown) {
  const res = await mcpBearer(app, token, {
    id: 1,
    method: "tools/call",
    params: { name, arguments: args },
  });
  assert.equal(res.status, 200);
  return (await res.json()).result;
}

/** The handler on a real port, for the SDK clients; `url` is the MCP endpoint. */
function serve(app: WebTestApp) {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request) => app.handler(request),
  );
  return { url: `http://127.0.0.1:${server.addr.port}/mcp/`, close: () => server.shutdown() };
}

/** A 2026-07-28 client (no handshake) signed in with `token`. */
async function modernClient(url: string, token: string): Promise<Client> {
  const client = new Client({ name: "scope-test", version: "0.0.0" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

async function watchState(sql: Sql) {
  const [row] = await sql<{ n: number; feeds: string }[]>`
    select count(*)::int as n, coalesce(string_agg(feed_token_hash, ',' order by id), '') as feeds
    from watches`;
  return row;
}

/** An account signed in on `browser`, with one API key and one watch made with it. */
async function accountWithWatch(app: WebTestApp, browser: Browser, sql: Sql, email: string) {
  await signUp(browser, email);
  const { key } = await createApiKey(sql, { email, name: "own key" });
  const made = await rest(app, "POST", "/api/v1/watches", key, {
    name: "Made with the key",
    query: { q: "invoice" },
    deliveries: { feed: true },
  });
  assert.equal(made.res.status, 201, JSON.stringify(made.body));
  const [account] = await sql<{ id: number }[]>`
    select id from accounts where lower(email) = lower(${email})`;
  return { key, watchId: made.body.id as number, accountId: account.id };
}

dbTest("OAuth without the watches scope: no watch can be read or changed", async (db, t) => {
  const app = webTestApp(db);
  const browser = new Browser(app);
  const { key, watchId, accountId } = await accountWithWatch(
    app,
    browser,
    db.sql,
    "no-watches@example.com",
  );
  // The app asked for watches; the person left the box unticked.
  const { access, scope } = await connectApp(app, browser, "Reader", {
    scope: "catalog watches",
  });

  await t.step("the token response says what was granted: catalog", () => {
    assert.equal(scope, "catalog");
  });

  await t.step("REST: every watch route is 403 insufficient_scope, nothing written", async () => {
    const before = await watchState(db.sql);
    const used = await usedOf(db.sql, accountId);
    const routes: [string, string, unknown?][] = [
      ["GET", "/api/v1/watches"],
      ["POST", "/api/v1/watches", { name: "New", deliveries: { feed: true } }],
      ["GET", `/api/v1/watches/${watchId}`],
      ["PATCH", `/api/v1/watches/${watchId}`, { rotate_feed_token: true }],
      ["DELETE", `/api/v1/watches/${watchId}`],
      ["GET", `/api/v1/watches/${watchId}/deliveries`],
      ["POST", `/api/v1/watches/${watchId}/test`],
      // Even a malformed id or body: the scope comes before parameters.
      ["GET", "/api/v1/watches/abc"],
      ["POST", "/api/v1/watches", "{not json"],
    ];
    for (const [method, path, body] of routes) {
      const { res, body: answer } = await rest(app, method, path, access, body);
      const what = `${method} ${path}`;
      assert.equal(res.status, 403, what);
      assert.match(res.headers.get("content-type") ?? "", /^application\/json/, what);
      assert.equal(res.headers.get("www-authenticate"), CHALLENGE, what);
      assert.equal(answer.error, "insufficient_scope", what);
      assert.equal(answer.required_scope, "watches", what);
      assert.equal(typeof answer.message, "string", what);
      assert.equal(res.headers.get("x-quota-used"), String(used), what);
    }
    assert.deepEqual(await watchState(db.sql), before);
    assert.equal(await usedOf(db.sql, accountId), used, "nothing charged");
  });

  await t.step("the catalogue and the usage still answer", async () => {
    assert.equal((await rest(app, "GET", "/api/v1/overview", access)).res.status, 200);
    assert.equal((await rest(app, "GET", "/api/v1/usage", access)).res.status, 200);
  });

  await t.step("MCP 2025 era: each watch tool answers insufficient_scope", async () => {
    const before = await watchState(db.sql);
    const calls: [string, unknown][] = [
      ["create_watch", { name: "From a model", deliveries: { feed: true } }],
      ["list_watches", {}],
      ["delete_watch", { id: watchId }],
    ];
    for (const [name, args] of calls) {
      const result = await toolCall2025(app, access, name, args);
      assert.equal(result.isError, true, name);
      assert.equal(result.structuredContent.error, "insufficient_scope", name);
      assert.equal(result.structuredContent.required_scope, "watches", name);
      assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);
    }
    assert.deepEqual(await watchState(db.sql), before);
  });

  await t.step("MCP 2026-07-28: the same, and the tools stay listed", async () => {
    const served = serve(app);
    try {
      const client = await modernClient(served.url, access);
      const listed = (await client.listTools()).tools.map((tool) => tool.name);
      for (const tool of WATCH_TOOLS) assert.ok(listed.includes(tool.name), tool.name);
      const result = await client.callTool({
        name: "create_watch",
        arguments: { name: "From a model", deliveries: { feed: true } },
      });
      assert.equal(result.isError, true);
      const body = result.structuredContent as Record<string, unknown>;
      assert.equal(body.error, "insufficient_scope");
      assert.equal(body.required_scope, "watches");
      await client.close();
    } finally {
      await served.close();
    }
    assert.equal((await watchState(db.sql)).n, 1);
  });

  await t.step("the account's API key still manages its watches", async () => {
    const { res } = await rest(app, "DELETE", `/api/v1/watches/${watchId}`, key);
    assert.equal(res.status, 204);
  });
});

dbTest("OAuth with the watches scope ticked: the app manages the watches", async (db, t) => {
  const app = webTestApp(db);
  const browser = new Browser(app);
  const { watchId } = await accountWithWatch(app, browser, db.sql, "watches@example.com");
  const { access, scope } = await connectApp(app, browser, "Manager", {
    scope: "catalog watches",
    grantWatches: true,
  });
  assert.equal(scope, "catalog watches");

  await t.step("REST: list, rotate, delete", async () => {
    const list = await rest(app, "GET", "/api/v1/watches", access);
    assert.equal(list.res.status, 200);
    assert.deepEqual(list.body.items.map((w: { id: number }) => w.id), [watchId]);
    const rotated = await rest(app, "PATCH", `/api/v1/watches/${watchId}`, access, {
      rotate_feed_token: true,
    });
    assert.equal(rotated.res.status, 200);
    assert.match(rotated.body.feed_url, /token=oi_feed_/);
    assert.equal((await rest(app, "DELETE", `/api/v1/watches/${watchId}`, access)).res.status, 204);
  });

  await t.step("MCP, both eras: create_watch succeeds", async () => {
    const made = await toolCall2025(app, access, "create_watch", {
      name: "From a model",
      deliveries: { feed: true },
    });
    assert.notEqual(made.isError, true, JSON.stringify(made));
    const served = serve(app);
    try {
      const client = await modernClient(served.url, access);
      const listed = await client.callTool({ name: "list_watches", arguments: {} });
      assert.notEqual(listed.isError, true);
      assert.equal((listed.structuredContent as { items: unknown[] }).items.length, 1);
      await client.close();
    } finally {
      await served.close();
    }
  });
});

dbTest("every scope against every endpoint and tool: only the watches need `watches`", async (
  db,
  t,
) => {
  await loadFixture(db.sql);
  const app = webTestApp(db);
  const browser = new Browser(app);
  const { key, watchId } = await accountWithWatch(app, browser, db.sql, "sweep@example.com");
  await db.sql`update accounts set plan = 'business' where lower(email) = 'sweep@example.com'`;
  const catalog = await connectApp(app, browser, "Reader");
  const full = await connectApp(app, browser, "Manager", {
    scope: "catalog watches",
    grantWatches: true,
  });
  const credentials: [string, string, boolean][] = [
    ["an API key", key, true],
    ["a catalog token", catalog.access, false],
    ["a catalog watches token", full.access, true],
  ];
  const paths = openApiDocument().paths as Record<string, Record<string, unknown>>;
  for (const [who, credential, mayWatch] of credentials) {
    await t.step(`REST with ${who}`, async () => {
      for (const [template, item] of Object.entries(paths)) {
        const path = template.replace("{id}", template.includes("watches") ? `${watchId}` : "1")
          .replace("{slug}", "x");
        for (const method of Object.keys(item).filter((m) => m !== "parameters")) {
          // Only reads and a harmless write: the sweep must not delete the watch it needs.
          if (method === "delete") continue;
          const body = template.endsWith("/watches") && method === "post"
            ? { name: "swept", deliveries: { feed: true } }
            : method === "post" || method === "patch"
            ? { name: "swept" }
            : undefined;
          const { res, body: answer } = await rest(
            app,
            method.toUpperCase(),
            path,
            credential,
            body,
          );
          const label = `${who} ${method.toUpperCase()} ${path}: ${res.status}`;
          const refused = answer?.error === "insufficient_scope";
          assert.equal(refused, template.includes("/watches") && !mayWatch, label);
          assert.ok(res.status < 500, label);
        }
      }
    });
    await t.step(`MCP tools with ${who}`, async () => {
      for (const tool of [...TOOLS, ...WATCH_TOOLS]) {
        const args = tool.name === "delete_watch"
          ? { id: 2_000_000_000 }
          : tool.name === "create_watch"
          ? { name: "swept", deliveries: { feed: true } }
          : { id: 1, slug: "x" };
        const result = await toolCall2025(app, credential, tool.name, args);
        const error = (result.structuredContent as { error?: string } | undefined)?.error;
        const isWatchTool = WATCH_TOOLS.some((w) => w.name === tool.name);
        assert.equal(
          error === "insufficient_scope",
          isWatchTool && !mayWatch,
          `${who} ${tool.name}: ${JSON.stringify(result).slice(0, 200)}`,
        );
      }
    });
  }
});
