/**
 * The service in-process on a test database: a handler built as main.ts builds it, a small
 * content fixture, and keys of any plan. Used by the REST and MCP tests.
 */
import assert from "node:assert/strict";
import { buildHandler } from "../../main.ts";
import { readConfig } from "../../src/platform/config.ts";
import type { Sql } from "../../src/db/open.ts";
import { importLines } from "../../src/ingest/import.ts";
import { createAccount } from "../../src/accounts/accounts.ts";
import { createApiKey, revokeApiKey } from "../../src/accounts/api_keys.ts";
import { periodOf } from "../../src/platform/plans.ts";
import type { TestDb } from "./db.ts";

export const BASE = "http://oppintel.test";

export interface TestApp {
  sql: Sql;
  handler: (request: Request) => Promise<Response>;
  /** Every request log entry the handler wrote. */
  logs: Record<string, unknown>[];
  /** GET `path` with `key` in X-API-Key (or no key when undefined). */
  get(path: string, key?: string, init?: RequestInit): Promise<Response>;
}

/** POSTs one JSON-RPC `message` to /mcp/ with `key` in X-API-Key, as an MCP client would. */
export function mcpPost(
  app: TestApp,
  key: string,
  message: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<Response> {
  return app.handler(
    new Request(`${BASE}/mcp/`, {
      method: "POST",
      headers: {
        "X-API-Key": key,
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: "2.0", ...message }),
    }),
  );
}

/** The revision of the per-request era (2026-07-28): no handshake, an envelope in `_meta`. */
export const MODERN_REVISION = "2026-07-28";

/** The envelope a 2026-07-28 client puts in a request's `_meta`. */
export const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": MODERN_REVISION,
  "io.modelcontextprotocol/clientInfo": { name: "test", version: "0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/**
 * tools/call of `name` as a stateless 2025 client or a 2026-07-28 client sends it (the envelope
 * in `_meta` and the Mcp-Method, Mcp-Name headers); asserts HTTP 200, returns the JSON-RPC result.
 */
export async function callToolIn(
  app: TestApp,
  key: string,
  era: "2025" | "2026",
  name: string,
  args: Record<string, unknown>,
  // deno-lint-ignore no-explicit-any
): Promise<any> {
  const modern = era === "2026";
  const res = await mcpPost(
    app,
    key,
    {
      id: 1,
      method: "tools/call",
      params: { name, arguments: args, ...(modern ? { _meta: MODERN_META } : {}) },
    },
    modern
      ? { "Mcp-Protocol-Version": MODERN_REVISION, "Mcp-Method": "tools/call", "Mcp-Name": name }
      : { "Mcp-Protocol-Version": "2025-11-25" },
  );
  assert.equal(res.status, 200, `${era} ${name}`);
  return (await res.json()).result;
}

/** REST's defaults where a tool's differ (src/catalog/compact.ts TOOL_DEFAULTS). */
const REST_DEFAULTS: Record<string, Record<string, number>> = {
  query_opportunities: { page_size: 20 },
  find_similar_opportunities: { page_size: 20 },
  list_blog_posts: { page_size: 20 },
  match_idea: { limit: 10 },
};

/**
 * The arguments under which a tool answers exactly its REST twin's body: `detail: "full"` and
 * REST's defaults for what `args` leaves out (by default a tool answers the compact view).
 */
export function restTwinArgs(name: string, args: Record<string, unknown>): Record<string, unknown> {
  return { ...REST_DEFAULTS[name], ...args, detail: "full" };
}

/** Calls MCP tool `name` with `args` over HTTP (status 200 asserted); returns the JSON-RPC result. */
export async function callTool(
  app: TestApp,
  key: string,
  name: string,
  args: Record<string, unknown>,
  // deno-lint-ignore no-explicit-any
): Promise<any> {
  const res = await mcpPost(app, key, {
    id: 1,
    method: "tools/call",
    params: { name, arguments: args },
  });
  assert.equal(res.status, 200, `tools/call ${name}`);
  return (await res.json()).result;
}

let accountCounter = 0;

/** Creates a verified account on `plan` with one key; returns the raw key and the ids. */
export async function makeKey(
  sql: Sql,
  plan: "free" | "pro" | "business" = "pro",
): Promise<{ key: string; keyId: number; accountId: number; email: string }> {
  const email = `user${++accountCounter}-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const account = await createAccount(sql, { email, plan, verified: true });
  const created = await createApiKey(sql, { email, name: "test" });
  return { key: created.key, keyId: created.id, accountId: account.id, email };
}

/** Revokes a key as its owner or an administrator. */
export async function revokeKey(sql: Sql, keyId: number, by: "owner" | "admin" = "owner") {
  await revokeApiKey(sql, { id: keyId, by });
}

/** Sets the account's used count for the current month. */
export async function setUsed(sql: Sql, accountId: number, used: number): Promise<void> {
  const period = periodOf(new Date());
  await sql`
    insert into usage_counters (account_id, period, used) values (${accountId}, ${period}, ${used})
    on conflict (account_id, period) do update set used = excluded.used`;
}

/** This month's used count of an account (0 without a row). */
export async function usedOf(sql: Sql, accountId: number): Promise<number> {
  const [row] = await sql<{ used: number }[]>`
    select coalesce(sum(used), 0)::int as used from usage_counters where account_id = ${accountId}`;
  return row.used;
}

/** The handler of the service on `db`; `env` adds configuration variables. */
export function testApp(db: TestDb, env: Record<string, string> = {}): TestApp {
  const config = readConfig({
    DATA_DIR: "memory://",
    PUBLIC_BASE_URL: "https://oppintel.example",
    ...env,
  });
  const logs: Record<string, unknown>[] = [];
  const handler = buildHandler(db.database, config, { log: (e) => logs.push(e) });
  return {
    sql: db.sql,
    handler,
    logs,
    get: (path, key, init = {}) => {
      const headers = new Headers(init.headers);
      if (key !== undefined) headers.set("X-API-Key", key);
      return handler(new Request(BASE + path, { ...init, headers }));
    },
  };
}

/** A small, fully known content set: 2 categories, 3 themes, 6 opportunities, 3 posts. */
export const FIXTURE_LINES: string[] = [
  { type: "category", slug: "developer-tools", name: "Developer Tools", description: "Dev" },
  { type: "category", slug: "small-business", name: "Small Business", description: "SMB" },
  {
    type: "theme",
    slug: "flaky-ci",
    category: "developer-tools",
    name: "Flaky CI pipelines",
    summary: "Builds fail at random",
    mentions_30d: 150,
    mentions_prev_30d: 100,
  },
  {
    type: "theme",
    slug: "invoice-chasing",
    category: "small-business",
    name: "Chasing late invoices",
    summary: "Getting paid on time",
    mentions_30d: 300,
    mentions_prev_30d: 100,
  },
  {
    type: "theme",
    slug: "legacy-docs",
    category: "developer-tools",
    name: "Outdated internal docs",
    summary: "Docs rot",
    mentions_30d: 50,
    mentions_prev_30d: 100,
  },
  ...[
    [
      "opp-1",
      "flaky-ci",
      "reddit",
      "devops",
      "Retry-aware CI dashboard for flaky tests",
      91,
      "Build",
      true,
      "2026-05-01T10:00:00Z",
    ],
    [
      "opp-2",
      "flaky-ci",
      "hackernews",
      "show",
      "Test quarantine bot that isolates 100% flaky suites",
      75,
      "Validate",
      true,
      "2026-05-02T10:00:00Z",
    ],
    [
      "opp-3",
      "invoice-chasing",
      "reddit",
      "smallbusiness",
      "Polite invoice reminder autopilot for freelancers",
      75,
      "Build",
      true,
      "2026-05-03T10:00:00Z",
    ],
    [
      "opp-4",
      "invoice-chasing",
      "producthunt",
      "fintech",
      "Paper invoice mailing service for rural trades",
      40,
      "Skip",
      false,
      "2026-05-04T10:00:00Z",
    ],
    [
      "opp-5",
      "legacy-docs",
      "stackexchange",
      "softwareengineering",
      "Docs freshness linter with_underscore_name",
      62,
      "Validate",
      true,
      "2026-05-05T10:00:00Z",
    ],
    [
      "opp-6",
      "legacy-docs",
      "Reddit",
      "SaaS",
      "Wiki rot detector for growing startups",
      15,
      "Skip",
      true,
      "2026-05-06T10:00:00Z",
    ],
  ].map((
    [external_id, theme, platform, channel_name, title, score, recommendation, online, created_at],
  ) => ({
    type: "opportunity",
    external_id,
    theme,
    platform,
    channel_name,
    title,
    recommendation,
    score,
    pain_point_intensity: 7,
    willingness_to_pay_score: 6,
    tech_difficulty: 4,
    sustainability_score: 5,
    target_audience: "Engineering teams",
    monetization_model: "Subscription",
    evidence_count: 2,
    merged_from_count: 1,
    is_online_deliverable: online,
    created_at,
    description: `People describe ${String(title).toLowerCase()} as a daily pain.`,
    market_size_estimate: "$50M",
    key_features: ["One", "Two"],
    competitors: ["Acme"],
    differentiation: "Simpler",
    risks: ["Crowded"],
    evidence: [
      {
        quote: "As u/someone said, mail me at bob@example.com or call +1 415 555 0132",
        platform,
        channel_name,
        source_url: null,
        posted_at: "2026-04-01T00:00:00Z",
      },
    ],
  })),
  {
    type: "blog_post",
    slug: "ci-analysis",
    title: "Why CI flakes",
    excerpt: "A look at flaky pipelines",
    body_md: "# Why CI flakes\n\nBecause.",
    cover_image_url: null,
    tags: ["ci"],
    related_opportunity: "opp-1",
    published_at: "2026-06-01T00:00:00Z",
  },
  {
    type: "blog_post",
    slug: "invoices",
    title: "Getting paid",
    excerpt: "Invoices and freelancers",
    body_md: "# Paid\n\nText.",
    cover_image_url: "https://img.example/x.png",
    tags: ["finance", "smb"],
    related_opportunity: null,
    published_at: "2026-06-02T00:00:00Z",
  },
  {
    type: "blog_post",
    slug: "draft-post",
    title: "Unfinished",
    excerpt: "Not yet",
    body_md: "draft",
    cover_image_url: null,
    tags: [],
    related_opportunity: "opp-1",
    published_at: null,
  },
].map((r) => JSON.stringify(r));

/** Imports the fixture; returns the ids of the opportunities by external id. */
export async function loadFixture(sql: Sql): Promise<Record<string, number>> {
  await importLines(sql, FIXTURE_LINES);
  const rows = await sql<{ external_id: string; id: number }[]>`
    select external_id, id from opportunities`;
  return Object.fromEntries(rows.map((r) => [r.external_id, r.id]));
}

/** Marks content as changed, as every import and seed does in its transaction. */
export async function bumpDataVersion(sql: Sql): Promise<void> {
  await sql`update data_version set version = version + 1, changed_at = now()`;
}
