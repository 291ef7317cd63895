/**
 * The MCP server card (the card the composition root builds: src/surfaces.ts) where clients and
 * crawlers look for it: `/.well-known/mcp/server-card.json` (SEP-1649's address, which the issue
 * tracker and crawlers use), `/mcp/server-card` (`<streamable-http-url>/server-card`, the place the
 * Server Card extension now reserves) and, for domain-level discovery, the AI Catalog at
 * `/.well-known/ai-catalog.json` whose entry points to it. Answered as the extension asks: its
 * media type when the client asks for it (plain JSON otherwise), CORS open for GET, cached an
 * hour, with an ETag that a 304 honours.
 */
import { sha256Hex } from "../platform/crypto.ts";

const CARD_TYPE = "application/mcp-server-card+json";
const CATALOG_TYPE = "application/ai-catalog+json";

/** The paths this module answers. */
export const SERVER_CARD_PATHS = [
  "/.well-known/mcp/server-card.json",
  "/mcp/server-card",
  "/.well-known/ai-catalog.json",
];

/** The AI Catalog of this host: one entry, the server card. */
export function aiCatalog(base: string, card: Record<string, unknown>): Record<string, unknown> {
  const host = new URL(base).hostname;
  const name = String(card.name).split("/").at(-1);
  return {
    specVersion: "1.0",
    entries: [{
      identifier: `urn:air:${host}:mcp:${name}`,
      type: CARD_TYPE,
      url: `${base}/mcp/server-card`,
    }],
  };
}

const CORS = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Methods": "GET",
  "Access-Control-Allow-Headers": "Content-Type, If-None-Match",
  "Access-Control-Expose-Headers": "ETag",
};

/** Answers a server card path (GET, HEAD through the app, OPTIONS); the caller checked it. */
export async function serveServerCard(
  request: Request,
  path: string,
  deps: { card: Record<string, unknown>; base: string },
): Promise<Response> {
  if (request.method === "OPTIONS") return new Response(null, { status: 204, headers: CORS });
  const catalog = path === "/.well-known/ai-catalog.json";
  const body = JSON.stringify(catalog ? aiCatalog(deps.base, deps.card) : deps.card, null, 2);
  const own = catalog ? CATALOG_TYPE : CARD_TYPE;
  const accept = request.headers.get("accept") ?? "";
  const headers = {
    ...CORS,
    "Content-Type": `${accept.includes(own) ? own : "application/json"}; charset=utf-8`,
    "Cache-Control": "public, max-age=3600",
    ETag: `"${(await sha256Hex(body)).slice(0, 24)}"`,
    "X-Content-Type-Options": "nosniff",
    Vary: "Accept",
  };
  if (request.headers.get("if-none-match") === headers.ETag) {
    return new Response(null, { status: 304, headers });
  }
  return new Response(body, { headers });
}
