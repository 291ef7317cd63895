/**
 * The `oppintel-mcp` command: a stdio MCP server for desktop AI clients. Standard output
 * carries protocol messages only; everything for a person goes to standard error.
 */
import process from "node:process";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { readStdioConfig } from "./config.ts";
import { buildStdioServer } from "./server.ts";

// Set by the build from package.json.
declare const PACKAGE_VERSION: string;

/** Starts the server on standard input and output; exits 1 on a configuration problem. */
export async function main(): Promise<void> {
  const read = readStdioConfig(process.env);
  if ("error" in read) {
    // Before any protocol traffic: a client shows this in its server log.
    process.stderr.write(read.error + "\n");
    process.exitCode = 1;
    return;
  }
  const version = typeof PACKAGE_VERSION === "string" ? PACKAGE_VERSION : "0.0.0";
  const server = buildStdioServer(read.config, { name: "oppintel-mcp", version });
  await server.connect(new StdioServerTransport());
  // The client ends the session by closing standard input.
  process.stdin.on("close", () => void server.close());
}

await main();
