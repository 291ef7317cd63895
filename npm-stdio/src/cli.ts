/**
 * The `oppintel-mcp` command: a stdio MCP server for desktop AI clients. Standard output
 * carries protocol messages only; everything for a person goes to standard error.
 */
import process from "node:process";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { readStdioConfig } from "./config.ts";
import { buildStdioServer } from "./server.ts";

// Set by the build from package.json.
declare const PACKAGE_VERSION: string;

/** Starts the server on standard input and output; exits 1 on a configuration problem. */
export function main(): void {
  const read = readStdioConfig(process.env);
  if ("error" in read) {
    // Before any protocol traffic: a client shows this in its server log.
    process.stderr.write(read.error + "\n");
    process.exitCode = 1;
    return;
  }
  const version = typeof PACKAGE_VERSION === "string" ? PACKAGE_VERSION : "0.0.0";
  const { config } = read;
  // One factory for both eras: a 2026-07-28 client (server/discover or a request with _meta) and
  // a 2025 client (initialize) each get an instance pinned to their era for the connection. The
  // entry closes everything when the client closes standard input.
  serveStdio(() => buildStdioServer(config, { name: "oppintel-mcp", version }));
}

main();
