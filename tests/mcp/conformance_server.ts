/**
 * The service's handler on a fresh embedded database, plus the one fixture tool that the
 * conformance scenario `json-schema-2020-12` looks for (only the suite's reference server has
 * it). Everything else is the production path: routing, key check, SDK, listing. Prints
 * `READY <port> <key>` on stdout once it listens. Used by tests/mcp/conformance.sh.
 */
import { readConfig } from "../../src/platform/config.ts";
import { migrate } from "../../src/db/migrate.ts";
import { openDatabase } from "../../src/db/open.ts";
import { createContent } from "../../src/catalog/content.ts";
import { createApp } from "../../src/app.ts";
import { createMcpHandler, type FixtureTool } from "../../src/mcp/server.ts";
import { createAccount } from "../../src/accounts/accounts.ts";
import { createApiKey } from "../../src/accounts/api_keys.ts";

// The reference server's fixture tool, as @modelcontextprotocol/conformance 0.2.0-alpha.12 lists it:
// on 2026-07-28 the scenario also checks that allOf/anyOf, if/then/else and $anchor come through.
const JSON_SCHEMA_2020_12_TOOL: FixtureTool = {
  tool: {
    name: "json_schema_2020_12_tool",
    description: "Tool with JSON Schema 2020-12 features",
    inputSchema: {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      $defs: {
        address: {
          $anchor: "addressDef",
          type: "object",
          properties: { street: { type: "string" }, city: { type: "string" } },
        },
      },
      properties: {
        name: { type: "string" },
        address: { $ref: "#/$defs/address" },
        contactMethod: { type: "string", enum: ["phone", "email"] },
        phone: { type: "string" },
        email: { type: "string" },
      },
      allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
      if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
      then: { required: ["phone"] },
      else: { required: ["email"] },
      additionalProperties: false,
    },
  },
  call: (args) => Promise.resolve({ content: [{ type: "text", text: JSON.stringify(args) }] }),
};

const config = readConfig({ DATA_DIR: "memory://", PORT: "0", SEED_DEMO: "0" });
const db = await openDatabase(config);
await migrate(db.sql);
const email = "conformance@oppintel.local";
await createAccount(db.sql, { email, plan: "pro", verified: true });
const { key } = await createApiKey(db.sql, { email, name: "conformance" });
const context = { publicBaseUrl: "http://127.0.0.1" };
const handler = createApp({
  sql: db.sql,
  content: createContent(db.sql, context),
  log: () => {},
  mcp: createMcpHandler({ sql: db.sql, context, fixtureTools: [JSON_SCHEMA_2020_12_TOOL] }),
});
const server = Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => console.log(`READY ${port} ${key}`),
}, (request) => handler(withKey(request)));

/**
 * The suite's raw-header scenarios (http-header-validation, ...) post to the URL's path alone,
 * dropping `?api_key=`, and send no key header; a keyless request gets the harness key in
 * X-API-Key, so it still passes the service's real key check. Requests with a key are untouched.
 */
function withKey(request: Request): Request {
  const url = new URL(request.url);
  if (
    url.searchParams.has("api_key") || request.headers.has("x-api-key") ||
    request.headers.has("authorization")
  ) {
    return request;
  }
  const headers = new Headers(request.headers);
  headers.set("X-API-Key", key);
  return new Request(request, { headers });
}

async function stop(): Promise<void> {
  await server.shutdown();
  await db.close();
  Deno.exit(0);
}
Deno.addSignalListener("SIGTERM", stop);
Deno.addSignalListener("SIGINT", stop);
