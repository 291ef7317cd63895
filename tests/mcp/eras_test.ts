/**
 * Both protocol eras on the hosted endpoint: revision 2026-07-28 driven by the v2
 * client pinned to it (and in "auto" mode), the 2025 revisions driven by the v2 client's default
 * and by the v1 client (kept as a test dependency to stand for today's 2025 clients). The
 * service's handler is served on 127.0.0.1, so every request passes the real routing, key check
 * and SDK exactly as in production.
 */
import assert from "node:assert/strict";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  type CallToolResult,
  Client,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { dbTest } from "../helpers/db.ts";
import { loadFixture, makeKey, setUsed, type TestApp, testApp, usedOf } from "../helpers/app.ts";
import { LIST_CACHE_HINT, TOOLS, WATCH_TOOLS } from "../../src/mcp/tools.ts";

const MODERN = "2026-07-28";

/** The service's handler on a real port; `url` is the MCP endpoint. */
function serve(app: TestApp): { url: string; close(): Promise<void> } {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request) => app.handler(request),
  );
  return { url: `http://127.0.0.1:${server.addr.port}/mcp/`, close: () => server.shutdown() };
}

type ClientKind = "v1" | "v2 default" | "v2 pinned 2026-07-28" | "v2 auto";
const CLIENT_KINDS: ClientKind[] = ["v1", "v2 default", "v2 pinned 2026-07-28", "v2 auto"];

/** What a connected client sent and last received, whichever SDK it is. */
interface Connected {
  kind: ClientKind;
  /** The JSON-RPC method of every POST the client sent, in order. */
  sent: { method: string; body: Record<string, unknown>; headers: Headers }[];
  lastHeaders(): Headers;
  listTools(): Promise<{ tools: Record<string, unknown>[] }>;
  callTool(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

async function connect(
  kind: ClientKind,
  url: string,
  headers: Record<string, string>,
): Promise<Connected> {
  const sent: Connected["sent"] = [];
  let last = new Headers();
  const recording = async (input: string | URL | Request, init?: RequestInit) => {
    if (init?.method === "POST" && typeof init.body === "string") {
      const body = JSON.parse(init.body);
      sent.push({ method: body.method, body, headers: new Headers(init.headers) });
    }
    const response = await fetch(input, init);
    last = response.headers;
    return response;
  };
  const info = { name: `eras-test ${kind}`, version: "0.0.0" };
  if (kind === "v1") {
    const client = new ClientV1(info);
    await client.connect(
      new TransportV1(new URL(url), { requestInit: { headers }, fetch: recording }),
    );
    return {
      kind,
      sent,
      lastHeaders: () => last,
      listTools: () => client.listTools() as Promise<{ tools: Record<string, unknown>[] }>,
      callTool: async (name, args) =>
        await client.callTool({ name, arguments: args }) as CallToolResult,
      close: () => client.close(),
    };
  }
  const mode = kind === "v2 pinned 2026-07-28"
    ? { pin: MODERN }
    : kind === "v2 auto"
    ? "auto" as const
    : "legacy" as const;
  const client = new Client(info, { versionNegotiation: { mode } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers }, fetch: recording }),
  );
  return {
    kind,
    sent,
    lastHeaders: () => last,
    listTools: () => client.listTools() as Promise<{ tools: Record<string, unknown>[] }>,
    callTool: async (name, args) => await client.callTool({ name, arguments: args }),
    close: () => client.close(),
  };
}

/** The one text block of a tool result, after checking structuredContent is the same JSON. */
function textOf(result: CallToolResult): string {
  assert.equal(result.content.length, 1);
  const [block] = result.content;
  assert.equal(block.type, "text");
  const text = (block as { text: string }).text;
  assert.deepEqual(result.structuredContent, JSON.parse(text));
  return text;
}

const isModern = (kind: ClientKind) => kind === "v2 pinned 2026-07-28" || kind === "v2 auto";

dbTest("MCP both eras: a tool call is charged once and answers REST's bytes", async (db, t) => {
  const app = testApp(db);
  const served = serve(app);
  const ids = await loadFixture(db.sql);
  const { key, accountId } = await makeKey(db.sql, "pro");
  // REST answers for comparison come from another account, so they charge nothing here.
  const restKey = (await makeKey(db.sql, "pro")).key;
  // One request id for every request, so that error bodies (which carry it) can match to the byte.
  const requestId = "eras-test-1";
  const headers = { "X-API-Key": key, "X-Request-Id": requestId };
  const rest = async (path: string) => {
    const res = await app.get(path, restKey, { headers: { "X-Request-Id": requestId } });
    return { status: res.status, text: await res.text() };
  };
  // detail: "full" answers the REST body (the default is its compact view: answer_size_test).
  const cases: [string, Record<string, unknown>, string, number][] = [
    [
      "get_opportunity",
      { id: ids["opp-1"], detail: "full" },
      `/api/v1/opportunities/${ids["opp-1"]}`,
      200,
    ],
    [
      "query_opportunities",
      { min_score: 60, q: "flaky OR invoice", sort: "newest", page_size: 20, detail: "full" },
      "/api/v1/opportunities?min_score=60&q=flaky%20OR%20invoice&sort=newest",
      200,
    ],
    ["get_opportunity", { id: 999999 }, "/api/v1/opportunities/999999", 404],
    ["query_opportunities", { page_size: 101 }, "/api/v1/opportunities?page_size=101", 422],
  ];
  const listings: Record<string, unknown>[][] = [];
  let charged = 0;
  try {
    for (const kind of CLIENT_KINDS) {
      await t.step(kind, async (t) => {
        const client = await connect(kind, served.url, headers);
        try {
          await t.step("connects in its era", () => {
            const methods = client.sent.map((s) => s.method);
            if (isModern(kind)) {
              assert.ok(!methods.includes("initialize"), `no handshake: ${methods}`);
              assert.equal(methods[0], "server/discover");
              const meta = (client.sent[0].body.params as { _meta: Record<string, unknown> })
                ._meta;
              assert.equal(meta["io.modelcontextprotocol/protocolVersion"], MODERN);
            } else {
              assert.equal(methods[0], "initialize");
              const version = (client.sent[0].body.params as { protocolVersion: string })
                .protocolVersion;
              assert.match(version, /^2025-/);
            }
            assert.equal(client.lastHeaders().get("x-quota-used"), String(charged));
          });
          await t.step("tools/list costs nothing", async () => {
            listings.push((await client.listTools()).tools);
            assert.equal(await usedOf(db.sql, accountId), charged);
          });
          for (const [name, args, path, status] of cases) {
            await t.step(`${name} ${JSON.stringify(args)}: REST ${status}`, async () => {
              const sentBefore = client.sent.length;
              const result = await client.callTool(name, args);
              const text = textOf(result);
              const expected = await rest(path);
              assert.equal(expected.status, status);
              assert.equal(text, expected.text, "byte-identical to REST");
              assert.equal(result.isError === true, status !== 200);
              // The same call through the next client is a repeat: free (issue 49).
              if (status === 200 && kind === CLIENT_KINDS[0]) charged++;
              assert.equal(await usedOf(db.sql, accountId), charged, "charged once on success");
              assert.equal(client.lastHeaders().get("x-quota-used"), String(charged));
              assert.equal(client.lastHeaders().get("x-quota-remaining"), String(1000 - charged));
              assert.equal(client.lastHeaders().get("x-request-id"), requestId);
              // One POST per call: no hidden initialize before a 2026-07-28 call.
              const call = client.sent.slice(sentBefore);
              assert.deepEqual(call.map((s) => s.method), ["tools/call"]);
              if (isModern(kind)) {
                assert.equal(call[0].headers.get("mcp-method"), "tools/call");
                assert.equal(call[0].headers.get("mcp-name"), name);
                assert.equal(call[0].headers.get("mcp-protocol-version"), MODERN);
              }
            });
          }
        } finally {
          await client.close();
        }
      });
    }
    await t.step("every era lists the same tools, outputSchema included", () => {
      assert.equal(listings.length, CLIENT_KINDS.length);
      assert.equal(listings[0].length, TOOLS.length + WATCH_TOOLS.length);
      for (const listing of listings.slice(1)) assert.deepEqual(listing, listings[0]);
      assert.ok(listings[0].every((tool) => typeof tool.outputSchema === "object"));
    });
  } finally {
    await served.close();
  }
});

const META = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** A raw POST; `params._meta` and the headers are exactly what the case gives. */
async function post(
  url: string,
  body: Record<string, unknown>,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

function call(id: number, name: string, meta: unknown = META): Record<string, unknown> {
  return {
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name, arguments: {}, _meta: meta },
  };
}

dbTest(
  "MCP 2026-07-28: refused headers, versions and _meta get the revision's errors, uncharged",
  async (db, t) => {
    const app = testApp(db);
    const served = serve(app);
    await loadFixture(db.sql);
    const { key, accountId } = await makeKey(db.sql, "pro");
    const ok = { "X-API-Key": key, "MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call" };
    const cases: [string, Record<string, unknown>, Record<string, string>, number][] = [
      [
        "Mcp-Method naming another method",
        call(1, "get_overview"),
        { ...ok, "Mcp-Method": "tools/list", "Mcp-Name": "get_overview" },
        -32020,
      ],
      [
        "Mcp-Name naming another tool",
        call(2, "get_overview"),
        { ...ok, "Mcp-Name": "get_usage" },
        -32020,
      ],
      ["no Mcp-Name on tools/call", call(3, "get_overview"), ok, -32020],
      [
        "no Mcp-Method",
        call(4, "get_overview"),
        { "X-API-Key": key, "MCP-Protocol-Version": MODERN, "Mcp-Name": "get_overview" },
        -32020,
      ],
      [
        "MCP-Protocol-Version header disagreeing with _meta",
        call(5, "get_overview"),
        { ...ok, "Mcp-Name": "get_overview", "MCP-Protocol-Version": "2025-11-25" },
        -32020,
      ],
      [
        "an unknown protocol version",
        call(6, "get_overview", {
          ...META,
          "io.modelcontextprotocol/protocolVersion": "2099-01-01",
        }),
        { ...ok, "Mcp-Name": "get_overview", "MCP-Protocol-Version": "2099-01-01" },
        -32022,
      ],
      [
        "_meta without clientCapabilities",
        call(7, "get_overview", { "io.modelcontextprotocol/protocolVersion": MODERN }),
        { ...ok, "Mcp-Name": "get_overview" },
        -32602,
      ],
      [
        "_meta with a protocol version that is not a string",
        call(8, "get_overview", { ...META, "io.modelcontextprotocol/protocolVersion": 20260728 }),
        { ...ok, "Mcp-Name": "get_overview" },
        -32602,
      ],
      [
        "clientCapabilities that is not an object",
        call(9, "get_overview", { ...META, "io.modelcontextprotocol/clientCapabilities": "all" }),
        { ...ok, "Mcp-Name": "get_overview" },
        -32602,
      ],
    ];
    try {
      for (const [name, body, headers, code] of cases) {
        await t.step(`${name}: 400, ${code}`, async () => {
          const res = await post(served.url, body, {
            ...headers,
            "X-Request-Id": `case-${body.id}`,
          });
          assert.equal(res.status, 400);
          assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
          const error = res.body.error as { code: number; message: string; data?: unknown };
          assert.equal(error.code, code, JSON.stringify(res.body));
          assert.equal(res.body.id, body.id);
          if (code === -32022) {
            const data = error.data as { supported: string[]; requested: string };
            assert.ok(data.supported.includes(MODERN));
            assert.equal(data.requested, "2099-01-01");
          }
          assert.equal(res.headers.get("x-request-id"), `case-${body.id}`);
          assert.equal(res.headers.get("x-quota-used"), "0");
          assert.equal(res.headers.get("access-control-allow-origin"), "*");
          assert.equal(await usedOf(db.sql, accountId), 0, "never charged");
        });
      }
      await t.step("the same call with agreeing headers is charged", async () => {
        const res = await post(served.url, call(10, "get_overview"), {
          ...ok,
          "Mcp-Name": "get_overview",
        });
        assert.equal(res.status, 200);
        assert.notEqual((res.body.result as CallToolResult).isError, true);
        assert.equal(res.headers.get("x-quota-used"), "1");
        assert.equal(await usedOf(db.sql, accountId), 1);
      });
      await t.step("the key is checked first: no key is 401 whatever the headers", async () => {
        const { "X-API-Key": _, ...keyless } = ok;
        const res = await post(served.url, call(11, "get_overview"), {
          ...keyless,
          "Mcp-Method": "tools/list",
        });
        assert.equal(res.status, 401);
        const error = res.body.error as { code: number; data: { error: string } };
        assert.equal(error.code, -32001);
        assert.equal(error.data.error, "missing_api_key");
      });
      await t.step("a preflight allows the 2026-07-28 request headers", async () => {
        const res = await fetch(served.url, { method: "OPTIONS" });
        await res.body?.cancel();
        assert.equal(res.status, 204);
        const allowed = (res.headers.get("access-control-allow-headers") ?? "").toLowerCase()
          .split(/,\s*/);
        for (const name of ["mcp-method", "mcp-name", "mcp-protocol-version"]) {
          assert.ok(allowed.includes(name), `${name} in ${allowed}`);
        }
      });
    } finally {
      await served.close();
    }
  },
);

dbTest("MCP list results carry the revision's cache hints on 2026-07-28 only", async (db, t) => {
  const app = testApp(db);
  const served = serve(app);
  const { key } = await makeKey(db.sql, "free");
  const modern = { "X-API-Key": key, "MCP-Protocol-Version": MODERN };
  try {
    for (const method of ["tools/list", "server/discover"]) {
      await t.step(`${method} on 2026-07-28: ttlMs and a public scope`, async () => {
        const res = await post(
          served.url,
          { jsonrpc: "2.0", id: 1, method, params: { _meta: META } },
          { ...modern, "Mcp-Method": method },
        );
        assert.equal(res.status, 200);
        const result = res.body.result as Record<string, unknown>;
        assert.equal(result.ttlMs, LIST_CACHE_HINT.ttlMs);
        assert.equal(result.cacheScope, "public");
      });
    }
    await t.step("tools/call results are not cacheable", async () => {
      const res = await post(served.url, call(2, "list_blog_posts"), {
        ...modern,
        "Mcp-Method": "tools/call",
        "Mcp-Name": "list_blog_posts",
      });
      const result = res.body.result as Record<string, unknown>;
      assert.equal(result.isError, undefined);
      assert.equal(result.ttlMs, undefined);
      assert.equal(result.cacheScope, undefined);
    });
    await t.step("a 2025 tools/list answer has no cache fields", async () => {
      const res = await post(
        served.url,
        { jsonrpc: "2.0", id: 3, method: "tools/list" },
        { "X-API-Key": key, "MCP-Protocol-Version": "2025-06-18" },
      );
      assert.equal(res.status, 200);
      const result = res.body.result as Record<string, unknown>;
      assert.equal((result.tools as unknown[]).length, TOOLS.length + WATCH_TOOLS.length);
      assert.equal(result.ttlMs, undefined);
      assert.equal(result.cacheScope, undefined);
    });
  } finally {
    await served.close();
  }
});

dbTest("MCP 2026-07-28 quota: exhausted gives quota_exceeded, free tools go on", async (db, t) => {
  const app = testApp(db);
  const served = serve(app);
  const ids = await loadFixture(db.sql);
  const free = await makeKey(db.sql, "free");
  await setUsed(db.sql, free.accountId, 20);
  const client = await connect("v2 pinned 2026-07-28", served.url, { "X-API-Key": free.key });
  try {
    await t.step("a charged tool answers quota_exceeded, as REST's 429", async () => {
      const result = await client.callTool("get_opportunity", { id: ids["opp-1"] });
      assert.equal(result.isError, true);
      const { request_id: _, ...body } = JSON.parse(textOf(result));
      const res = await app.get(`/api/v1/opportunities/${ids["opp-1"]}`, free.key);
      assert.equal(res.status, 429);
      const { request_id: __, ...restBody } = await res.json();
      assert.deepEqual(body, restBody);
      assert.equal(client.lastHeaders().get("x-quota-remaining"), "0");
    });
    await t.step("a Pro tool answers plan_required to a Free key", async () => {
      const result = await client.callTool("list_trending_themes", {});
      assert.equal(JSON.parse(textOf(result)).error, "plan_required");
    });
    await t.step("get_usage and the blog tools still answer, free of charge", async () => {
      const usage = await client.callTool("get_usage", {});
      assert.notEqual(usage.isError, true, textOf(usage));
      const posts = await client.callTool("list_blog_posts", {});
      assert.equal(JSON.parse(textOf(posts)).total, 2);
      assert.equal(await usedOf(db.sql, free.accountId), 20);
    });
  } finally {
    await client.close();
    await served.close();
  }
});

dbTest(
  "MCP bodies that are not one JSON message are answered before either era, uncharged",
  async (db, t) => {
    const app = testApp(db);
    const served = serve(app);
    const { key, accountId } = await makeKey(db.sql, "pro");
    const cases: [string, string, string, number, number][] = [
      ["a body that is not JSON", "application/json", '{"jsonrpc":"2.0",', 400, -32700],
      ["an empty body", "application/json", "", 400, -32700],
      [
        "a content type other than JSON",
        "text/plain",
        JSON.stringify(call(1, "get_overview")),
        415,
        -32000,
      ],
      [
        "a body over 4 MiB",
        "application/json",
        `{"pad":"${"x".repeat(4 * 1024 * 1024)}"}`,
        413,
        -32000,
      ],
    ];
    try {
      for (const [name, type, body, status, code] of cases) {
        await t.step(`${name}: ${status}`, async () => {
          const res = await fetch(served.url, {
            method: "POST",
            headers: {
              "Content-Type": type,
              Accept: "application/json, text/event-stream",
              "X-API-Key": key,
              "MCP-Protocol-Version": MODERN,
              "Mcp-Method": "tools/call",
              "Mcp-Name": "get_overview",
            },
            body,
          });
          assert.equal(res.status, status);
          const answer = await res.json();
          assert.equal(answer.jsonrpc, "2.0");
          assert.equal(answer.error.code, code);
          assert.equal(answer.id, null);
          assert.equal(res.headers.get("x-quota-used"), "0");
        });
      }
      await t.step("none was charged", async () => {
        assert.equal(await usedOf(db.sql, accountId), 0);
      });
    } finally {
      await served.close();
    }
  },
);
