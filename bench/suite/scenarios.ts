/**
 * The load scenarios and the order they run in: each service scenario with a target alternates
 * with its baseline (A/B/A/B), so that drift of a shared machine hits both sides alike.
 */
import type { LoadSpec } from "../harness/load.ts";
import type { BenchKeys } from "../harness/prepare.ts";

/** Which process a scenario loads. */
export type Target = "service" | "raw" | "static" | "embedded";

/** One load scenario: a route of one process, without the run settings. */
export interface Scenario {
  id: string;
  title: string;
  target: Target;
  spec: Omit<LoadSpec, "base" | "connections" | "warmupSeconds" | "seconds">;
}

/** The words of the `q` scenarios. */
export interface Words {
  common: string;
  rare: string;
}

/** The filter of the filtered-list scenario, sent to the service and the raw baseline alike. */
export const FILTER = "platform=reddit&min_score=70&recommendation=Build";

/**
 * Random filters and pages (cache misses under load): `n` query strings drawn with a
 * fixed seed from platform, min_score, recommendation, sort and page, sent to the service and to
 * the raw baseline's page query alike. Most requests miss the service's cache, and its count
 * (cached per filter) is computed while the load runs.
 */
export function randomFilters(n = 1000): string[] {
  let state = 19;
  const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  const pick = <T>(values: T[]): T => values[Math.floor(next() * values.length)];
  const platforms = [
    undefined,
    "reddit",
    "hackernews",
    "producthunt",
    "stackexchange",
    "indiehackers",
  ];
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const params = new URLSearchParams();
    const platform = pick(platforms);
    if (platform) params.set("platform", platform);
    if (next() < 0.7) params.set("min_score", String(Math.floor(next() * 19) * 5));
    const recommendation = pick([undefined, "Build", "Validate", "Skip"]);
    if (recommendation) params.set("recommendation", recommendation);
    if (next() < 0.3) params.set("sort", "newest");
    // Mostly early pages, as people page; now and then a deep one.
    params.set(
      "page",
      String(next() < 0.9 ? 1 + Math.floor(next() * 5) : 1 + Math.floor(next() * 50)),
    );
    out.push(params.toString());
  }
  return out;
}

const MCP_HEADERS = {
  "content-type": "application/json",
  "accept": "application/json, text/event-stream",
};

export function mcpCall(name: string, args: Record<string, unknown>): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name, arguments: args },
  });
}

/** Every scenario, by id. */
export function scenarios(
  keys: BenchKeys,
  words: Words,
  idRange: [number, number],
): Record<string, Scenario> {
  const pro = { keys: [keys.pro] };
  const random = randomFilters();
  const list: Scenario[] = [
    { id: "static", title: "static JSON", target: "static", spec: { path: "/" } },
    {
      id: "list",
      title: "list, default parameters",
      target: "service",
      spec: { path: "/api/v1/opportunities", ...pro },
    },
    { id: "raw_list", title: "raw page query", target: "raw", spec: { path: "/list" } },
    {
      id: "list_filtered",
      title: `list, ${FILTER}`,
      target: "service",
      spec: { path: `/api/v1/opportunities?${FILTER}`, ...pro },
    },
    {
      id: "raw_filtered",
      title: "raw page query, same filter",
      target: "raw",
      spec: { path: `/list-filtered?${FILTER}` },
    },
    {
      id: "list_q_common",
      title: `list, q=${words.common} (common)`,
      target: "service",
      spec: { path: `/api/v1/opportunities?q=${words.common}`, ...pro },
    },
    {
      id: "list_q_rare",
      title: `list, q=${words.rare} (rare)`,
      target: "service",
      spec: { path: `/api/v1/opportunities?q=${words.rare}`, ...pro },
    },
    {
      id: "list_random",
      title: "list, random filters and pages (1,000 combinations)",
      target: "service",
      spec: {
        path: "/api/v1/opportunities",
        paths: random.map((q) => `/api/v1/opportunities?${q}`),
        ...pro,
      },
    },
    {
      id: "raw_random",
      title: "raw page query, same random filters and pages",
      target: "raw",
      spec: { path: "/list-random", paths: random.map((q) => `/list-random?${q}`) },
    },
    {
      id: "detail",
      title: "detail, random ids",
      target: "service",
      spec: { path: "/api/v1/opportunities/{id}", idRange, ...pro },
    },
    {
      id: "raw_detail",
      title: "raw single-row select, random ids",
      target: "raw",
      spec: { path: "/detail/{id}", idRange },
    },
    {
      id: "overview",
      title: "overview",
      target: "service",
      spec: { path: "/api/v1/overview", ...pro },
    },
    {
      id: "trending",
      title: "trending themes",
      target: "service",
      spec: { path: "/api/v1/themes/trending", ...pro },
    },
    {
      id: "list_ref",
      title: "list, default parameters (next to MCP)",
      target: "service",
      spec: { path: "/api/v1/opportunities", ...pro },
    },
    {
      id: "mcp_query",
      title: "MCP tools/call query_opportunities",
      target: "service",
      spec: {
        path: "/mcp/",
        method: "POST",
        headers: MCP_HEADERS,
        body: mcpCall("query_opportunities", {}),
        rejectBodyContaining: '"isError":true',
        ...pro,
      },
    },
    {
      id: "mcp_get",
      title: "MCP tools/call get_opportunity, random ids",
      target: "service",
      spec: {
        path: "/mcp/",
        method: "POST",
        headers: MCP_HEADERS,
        body: mcpCall("get_opportunity", { id: "{id}" }),
        idRange,
        rejectBodyContaining: '"isError":true',
        ...pro,
      },
    },
    {
      id: "quota_hot",
      title: "list, 50 connections on one Business account",
      target: "service",
      spec: { path: "/api/v1/opportunities", keys: [keys.hot] },
    },
    {
      id: "quota_spread",
      title: "list, 50 connections on 50 Business accounts",
      target: "service",
      spec: { path: "/api/v1/opportunities", keys: keys.spread },
    },
  ];
  return Object.fromEntries(list.map((s) => [s.id, s]));
}

/** The order of the load runs on PostgreSQL: pairs alternate, A/B/A/B. */
export const PLAN: string[] = [
  "static",
  ...["list", "raw_list", "list", "raw_list"],
  ...["list_filtered", "raw_filtered", "list_filtered", "raw_filtered"],
  ...["list_random", "raw_random", "list_random", "raw_random"],
  ...["detail", "raw_detail", "detail", "raw_detail"],
  "list_q_common",
  "list_q_rare",
  "overview",
  "trending",
  ...["mcp_query", "list_ref", "mcp_query", "list_ref"],
  "mcp_get",
  ...["quota_hot", "quota_spread", "quota_hot", "quota_spread"],
  "static",
];
