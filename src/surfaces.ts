/**
 * What the two surfaces offer, for the home page's plan table: the REST endpoints as the served
 * OpenAPI document lists them (an operationId of OPERATIONS names its operation; the paths under
 * /api/v1/watches are the watch endpoints) and the MCP tools as `tools/list` shows them (TOOLS,
 * then WATCH_TOOLS; search and fetch under each operation they run). Read here, at the root,
 * because the web edge does not import the other edges. An endpoint that is neither is left out
 * rather than stopping the start; tests/web/home_test.ts fails for it, so the table is extended
 * when an endpoint is added. Also the MCP server card, for the same reason.
 */
import { OPERATIONS } from "./metering/admission.ts";
import { type OperationName, STANDS_FOR } from "./metering/operations.ts";
import { TOOLS, WATCH_TOOLS } from "./mcp/tools.ts";
import { SERVER_INFO } from "./mcp/server.ts";
import REGISTRY_ENTRY from "../server.json" with { type: "json" };
import { openApiDocument } from "./rest/openapi.ts";
import type { Offering, Surfaces } from "./web/handler.ts";

// The operations of an OpenAPI path item; its other keys (parameters, summary, servers ...) are
// shared by them, not methods.
const HTTP_METHODS = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);

function offeringOf(path: string, operationId: unknown): Offering | undefined {
  if (typeof operationId === "string" && operationId in OPERATIONS) {
    return operationId as OperationName;
  }
  return path === "/api/v1/watches" || path.startsWith("/api/v1/watches/") ? "watch" : undefined;
}

/** The REST endpoints and MCP tools of the service, each with what it runs. */
export function listSurfaces(): Surfaces {
  const paths = openApiDocument().paths as Record<
    string,
    Record<string, { operationId?: string; summary?: string }>
  >;
  const rest = Object.entries(paths).flatMap(([path, item]) =>
    Object.entries(item).flatMap(([method, spec]) => {
      if (!HTTP_METHODS.has(method)) return [];
      const operation = offeringOf(path, spec.operationId);
      if (!operation) return [];
      return [{ method: method.toUpperCase(), path, operation, summary: spec.summary ?? path }];
    })
  );
  const mcp = [
    // search and fetch are listed under each operation they stand for.
    ...TOOLS.flatMap((tool) =>
      tool.operation === "search" || tool.operation === "fetch"
        ? STANDS_FOR[tool.operation].map((operation) => ({ name: tool.name, operation }))
        : [{ name: tool.name, operation: tool.operation as Offering }]
    ),
    ...WATCH_TOOLS.map((tool) => ({ name: tool.name, operation: "watch" as const })),
  ];
  return { rest, mcp };
}

/**
 * The protocol revisions the MCP endpoint serves: 2026-07-28 (what `server/discover` lists) and
 * the 2025 revisions an `initialize` negotiates (tests/web/server_card_test.ts asks the live
 * endpoint for each).
 */
export const PROTOCOL_VERSIONS = ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"];

/**
 * The MCP server card of the endpoint at `{base}/mcp/`: the shape of the Server Card extension
 * (github.com/modelcontextprotocol/experimental-ext-server-card, schema v1 at commit 8924e08,
 * tracking SEP-2127): identity from server.json (the registry entry) and the server's
 * `serverInfo`, one streamable-http remote, the key header (optional: OAuth signs in without
 * it) and the served revisions. No tools: the extension leaves them to `tools/list`.
 */
export function serverCard(base: string): Record<string, unknown> {
  return {
    $schema: "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json",
    name: REGISTRY_ENTRY.name,
    version: SERVER_INFO.version,
    description: REGISTRY_ENTRY.description,
    title: SERVER_INFO.title,
    websiteUrl: `${base}/`,
    remotes: [{
      type: "streamable-http",
      url: `${base}/mcp/`,
      headers: [{
        name: "X-API-Key",
        description: "Your API key (oi_live_...), from your account page; leave it out to sign " +
          "in through OAuth instead",
        isRequired: false,
        isSecret: true,
      }],
      supportedProtocolVersions: PROTOCOL_VERSIONS,
    }],
  };
}
