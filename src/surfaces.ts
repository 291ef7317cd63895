/**
 * What the two surfaces offer, operation by operation, for the home page's plan table: the REST
 * endpoints as the served OpenAPI document lists them (its operationId is the operation's name)
 * and the MCP tools as `tools/list` shows them. Read here, at the root, because the web edge
 * does not import the other edges.
 */
import { OPERATIONS } from "./accounts/admission.ts";
import type { OperationName } from "./accounts/operations.ts";
import { TOOLS } from "./mcp/tools.ts";
import { openApiDocument } from "./rest/openapi.ts";
import type { Surfaces } from "./web/handler.ts";

function operationName(id: unknown, where: string): OperationName {
  if (typeof id !== "string" || !(id in OPERATIONS)) {
    throw new Error(`${where} names no operation of OPERATIONS: ${JSON.stringify(id)}`);
  }
  return id as OperationName;
}

/** The REST endpoints and MCP tools of the service, each with the operation it runs. */
export function listSurfaces(): Surfaces {
  const paths = openApiDocument().paths as Record<
    string,
    Record<string, { operationId?: string; summary?: string }>
  >;
  // Watches are managed, not called against the quota: their plan limits are a count of
  // watches (README, "Watches"), so they are not rows of the per-operation plan table.
  const called = Object.entries(paths).filter(([path]) => !path.startsWith("/api/v1/watches"));
  const rest = called.flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, spec]) => ({
      method: method.toUpperCase(),
      path,
      operation: operationName(spec.operationId, `${method} ${path}`),
      summary: spec.summary ?? path,
    }))
  );
  const mcp = TOOLS.map((tool) => ({
    name: tool.name,
    operation: operationName(tool.operation, `tool ${tool.name}`),
  }));
  return { rest, mcp };
}
