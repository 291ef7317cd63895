/**
 * The hook of the watch tools (create_watch, list_watches, delete_watch) in the MCP endpoint:
 * thin calls into the watch service, free of charge, failures as `isError` results with the
 * REST error body, as the other tools answer. An OAuth app without the `watches` scope gets
 * insufficient_scope from every one of them; they stay listed for it (the listing is one for
 * every caller, built once), so that a model can tell the person what to grant.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { Caller } from "../accounts/credentials.ts";
import { parseInput } from "../catalog/params.ts";
import { requireScope } from "../accounts/scopes.ts";
import { toolFailure, toolResult } from "./results.ts";
import { WatchIdSchema } from "../watches/schemas.ts";
import type { WatchService } from "../watches/service.ts";
import { WATCH_TOOLS, type WatchToolDefinition } from "./tools.ts";

/** The watch tools by name. */
export const WATCH_TOOLS_BY_NAME: ReadonlyMap<string, WatchToolDefinition> = new Map(
  WATCH_TOOLS.map((t) => [t.name, t]),
);

/** Calls a watch tool for the caller. */
export async function callWatchTool(
  watches: WatchService,
  caller: Caller,
  tool: WatchToolDefinition,
  args: unknown,
  requestId?: string,
): Promise<CallToolResult> {
  const owner = { accountId: caller.accountId, plan: caller.plan };
  try {
    requireScope(caller, "watches");
    switch (tool.name) {
      case "create_watch":
        return toolResult(await watches.create(owner, args ?? {}), false);
      case "list_watches":
        return toolResult(await watches.list(owner), false);
      case "delete_watch": {
        const { id } = parseInput(WatchIdSchema, args);
        await watches.delete(owner, id);
        return toolResult({ deleted: true, id }, false);
      }
    }
  } catch (error) {
    return toolFailure(error, { tool: tool.name, keyPrefix: caller.keyPrefix, requestId });
  }
}
