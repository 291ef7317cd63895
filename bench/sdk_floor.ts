/**
 * `deno task bench:sdk-floor`: what the MCP TypeScript SDK (v2) costs per request by itself,
 * with no key, database, tool work or app code, for a result the size of a list page: process CPU per request of a trivial tool call
 * answered through the SDK's two stateless paths (the 2026-07-28 `createMcpHandler` and the 2025
 * per-request `Server` + `WebStandardStreamableHTTPServerTransport`, as src/mcp/server.ts builds
 * them), beside a bare handler that parses the same JSON-RPC body and answers the same result by
 * hand. In process, one request at a time, scenarios in turns; the best round is reported.
 *
 * The difference is the SDK's floor: the part of an MCP tool call that no change to the service's
 * own code can remove while the SDK serves each request.
 *
 * Options: --requests N per round (default 2000), --rounds N (default 5).
 */
import process from "node:process";
import { createMcpHandler, Server } from "@modelcontextprotocol/server";
import { serveStateless } from "../src/mcp/server.ts";
import { arg, exitWithHelpIfAsked } from "./args.ts";

exitWithHelpIfAsked(`
Usage: deno task bench:sdk-floor [flags]

What the MCP SDK costs per request by itself (process CPU of a trivial tool call through the
SDK's two stateless paths, beside a bare JSON-RPC handler); in process, best round reported.

Flags:
  --requests N   Requests per round (default 2000)
  --rounds N     Rounds (default 5)
`);

const requests = Number(arg("--requests", "2000"));
const rounds = Number(arg("--rounds", "5"));
const MODERN = "2026-07-28";

/**
 * A result shaped like a default list page: 20 items with the list's fields and the paging
 * members. Its text is serialized once, as the service caches it (serializeJson).
 */
const ANSWER = {
  items: Array.from({ length: 20 }, (_, i) => ({
    id: i + 1,
    platform: "reddit",
    channel_name: "r/SaaS",
    title: `Opportunity ${i + 1}: a tool that turns support threads into a roadmap`,
    slug: `opportunity-${i + 1}`,
    recommendation: "Build",
    score: 90 - i,
    pain_point_intensity: 8,
    willingness_to_pay_score: 7,
    tech_difficulty: 4,
    sustainability_score: 6,
    target_audience: "Founders of small software companies with a public roadmap",
    monetization_model: "Monthly subscription per workspace",
    evidence_count: 12,
    merged_from_count: 3,
    is_online_deliverable: true,
    created_at: "2026-11-01T10:00:00.000Z",
  })),
  page: 1,
  page_size: 20,
  total: 1000000,
  total_pages: 50000,
};
const TEXT = JSON.stringify(ANSWER);
const callResult = () => ({
  content: [{ type: "text" as const, text: TEXT }],
  structuredContent: ANSWER,
});

function buildServer(): Server {
  const server = new Server({ name: "floor", version: "1.0.0" }, {
    capabilities: { tools: { listChanged: false } },
  });
  server.setRequestHandler("tools/list", () => ({ tools: [] }));
  server.setRequestHandler("tools/call", () => callResult());
  return server;
}

const modern = createMcpHandler(() => buildServer(), { legacy: "reject" });

const legacy = (request: Request, body: unknown) => serveStateless(buildServer(), request, body);

/** By hand: parse, check the method, answer the same JSON-RPC result. */
async function bare(request: Request): Promise<Response> {
  const body = await request.json();
  if (body.method !== "tools/call") return Response.json({ error: "no" }, { status: 400 });
  return Response.json({ jsonrpc: "2.0", id: body.id, result: callResult() });
}

function request(era: "2025" | "2026"): Request {
  const isModern = era === "2026";
  const meta = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": { name: "bench", version: "0" },
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  return new Request("http://127.0.0.1/mcp/", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": isModern ? MODERN : "2025-11-25",
      ...(isModern ? { "mcp-method": "tools/call", "mcp-name": "floor" } : {}),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "floor", arguments: {}, ...(isModern ? { _meta: meta } : {}) },
    }),
  });
}

const SCENARIOS: Record<string, () => Promise<Response>> = {
  bare: () => bare(request("2025")),
  sdk_2025: async () => {
    const r = request("2025");
    return legacy(r, await r.json());
  },
  sdk_2026: async () => {
    const r = request("2026");
    return modern.fetch(r, { parsedBody: await r.json() });
  },
};

const cpuUs = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

const best: Record<string, number> = {};
for (let round = 0; round < rounds; round++) {
  for (const [id, run] of Object.entries(SCENARIOS)) {
    for (let i = 0; i < 50; i++) await (await run()).arrayBuffer();
    const cpu0 = cpuUs();
    for (let i = 0; i < requests; i++) {
      const response = await run();
      const text = await response.text();
      if (response.status !== 200 || !text.includes("Opportunity 20:")) {
        throw new Error(`${id}: ${response.status} ${text.slice(0, 300)}`);
      }
    }
    best[id] = Math.min(best[id] ?? Infinity, (cpuUs() - cpu0) / requests);
  }
}
console.log(`${requests} requests a round, ${rounds} rounds, best round (µs of CPU per request)\n`);
console.log("| path | CPU per request | over bare |");
console.log("|---|---|---|");
for (const id of Object.keys(SCENARIOS)) {
  const over = id === "bare" ? "-" : `+${(best[id] - best.bare).toFixed(0)} µs`;
  console.log(`| ${id} | ${best[id].toFixed(0)} µs | ${over} |`);
}
