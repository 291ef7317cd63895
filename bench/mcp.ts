/**
 * `deno task bench:mcp MODE`: what MCP costs and how fast its tools answer. Modes: `eras` (tool
 * calls on both protocol eras beside their REST twins under load, bench/mcp/eras.ts), `overhead`
 * (the service's own CPU per request of REST and MCP in process, bench/mcp/overhead.ts) and
 * `tools` (every tool under 3 s on a large database, bench/mcp/tools.ts).
 *
 * Example: deno task bench:mcp eras --opportunities 20000 --rounds 3 --duration 5
 */
import { runMode } from "./harness/modes.ts";

await runMode("bench:mcp", {
  eras: {
    about: "MCP tools/call on both protocol eras next to its REST twin, in turns under load",
    run: async (args) => (await import("./mcp/eras.ts")).main(args),
  },
  overhead: {
    about: "The service's own CPU per request of REST and MCP, in process",
    // The module measures as it loads (a script with no export to call).
    run: () => import("./mcp/overhead.ts"),
  },
  tools: {
    about: "Does every MCP tool answer in under 3 s on a large database? (--database-url URL)",
    run: async () => (await import("./mcp/tools.ts")).main(),
  },
});
