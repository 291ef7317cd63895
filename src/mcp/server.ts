/** The MCP endpoint. Placeholder until the MCP work lands: answers 501 to every call. */
import type { Caller } from "../access.ts";
import type { Sql } from "../db/open.ts";
import type { QueryContext } from "../queries/common.ts";

/** What the MCP endpoint needs. */
export interface McpDeps {
  sql: Sql;
  context: QueryContext;
}

/** Builds the handler of POST /mcp for authenticated callers. */
export function createMcpHandler(
  _deps: McpDeps,
): (request: Request, caller: Caller) => Promise<Response> {
  return () => Promise.resolve(new Response(null, { status: 501 }));
}
