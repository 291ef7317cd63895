/**
 * The MCP tools as plain data: names, descriptions, tiers and the zod schemas shared with
 * REST. Pure on purpose (only zod and the schema modules catalog/schemas.ts, catalog/connector.ts
 * and metering/usage_schema.ts): the hosted endpoint (server.ts) and the npm stdio package both
 * read it, and the stdio package must not pull in database code.
 */
import * as z from "zod";
import {
  BlogListSchema,
  BlogPostSchema,
  BlogQuerySchema,
  BlogSlugSchema,
  OpportunityDetailSchema,
  OpportunityIdSchema,
  OpportunityListSchema,
  OpportunityQuerySchema,
  OverviewSchema,
  ThemeDetailSchema,
  ThemeIdSchema,
  TrendingQuerySchema,
  TrendingThemesSchema,
} from "../catalog/schemas.ts";
import {
  DocumentSchema,
  FetchInputSchema,
  SearchInputSchema,
  SearchResultsSchema,
} from "../catalog/connector.ts";
import { UsageQuerySchema, UsageReportSchema } from "../metering/usage_schema.ts";
import { SIMILAR_TOOLS } from "./similar_tools.ts";
import { THEME_HISTORY_TOOL } from "./trend_tools.ts";
import {
  WatchCreateSchema,
  WatchDeletedSchema,
  WatchIdSchema,
  WatchListSchema,
  WatchWithSecretsSchema,
} from "../watches/schemas.ts";

/**
 * The key of `OPERATIONS` in src/metering/admission.ts that gives a tool its tier and cost, or a
 * connector tool (search, fetch), priced as the tools it stands for (metering/operations.ts).
 */
export type ToolOperation =
  | "getOverview"
  | "getOpportunity"
  | "listBlogPosts"
  | "getBlogPost"
  | "listOpportunities"
  | "listTrendingThemes"
  | "getTheme"
  | "getThemeHistory"
  | "getUsage"
  | "findSimilar"
  | "matchIdea"
  | "search"
  | "fetch";

/** One MCP tool: what clients see, plus the operation that prices it. */
export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  /** The lowest plan allowed (mirrors OPERATIONS, repeated here for listings and the README). */
  tier: "free" | "pro";
  inputSchema: z.ZodObject;
  outputSchema: z.ZodObject;
  annotations: {
    readOnlyHint: true;
    openWorldHint: false;
    idempotentHint: true;
    destructiveHint: false;
  };
  operation: ToolOperation;
}

/**
 * How long a client or a gateway may reuse `tools/list` and `server/discover` (revision
 * 2026-07-28 caching): the tools change only with a release, and both answers are the same for
 * every key, so any cache may share them (`public`). Used by the hosted endpoint and the npm
 * stdio package alike.
 */
export const LIST_CACHE_HINT = { ttlMs: 3_600_000, cacheScope: "public" } as const;

const ANNOTATIONS = {
  readOnlyHint: true,
  openWorldHint: false,
  idempotentHint: true,
  destructiveHint: false,
} as const;

const FREE = "Available on every plan";
const PRO = "Requires the Pro plan (or Business); a Free key gets a plan_required error";

// The way through a long list: page numbers stop at item 10,000 (page_too_deep).
const NEXT_PAGE = "For the next page, pass the answer's next_cursor back as cursor with the same " +
  "filters (null means there is no more); page numbers stop at item 10,000.";

// Descriptions are read by models: say what comes back, when to call it, and what it costs.
/** The tools in the order `tools/list` shows them. */
export const TOOLS: readonly ToolDefinition[] = [
  {
    name: "get_overview",
    title: "Market overview",
    description: "Start here. Returns every category (slug, name, description, theme and " +
      "opportunity counts), the five themes trending up fastest, and totals of categories, " +
      "themes and opportunities. Use it to learn the category slugs that other tools filter " +
      `by. ${FREE}; costs 1 call of the monthly quota.`,
    tier: "free",
    inputSchema: z.object({}),
    outputSchema: OverviewSchema,
    annotations: ANNOTATIONS,
    operation: "getOverview",
  },
  {
    name: "get_opportunity",
    title: "Opportunity details",
    description: "Returns one validated business opportunity by id: description, scores " +
      "(composite score 0-100, pain, willingness to pay, difficulty, sustainability), " +
      "Build/Validate/Skip recommendation, target audience, monetization, market size, key " +
      "features, competitors, differentiation, risks, up to 5 scrubbed community quotes as " +
      "evidence and the related article URL. Use it after query_opportunities or get_theme " +
      `gave you an id. ${FREE}; costs 1 call when found, nothing when the id is unknown.`,
    tier: "free",
    inputSchema: OpportunityIdSchema,
    outputSchema: OpportunityDetailSchema,
    annotations: ANNOTATIONS,
    operation: "getOpportunity",
  },
  {
    name: "list_blog_posts",
    title: "List blog articles",
    description: "Lists published research articles, newest first, with title, excerpt, tags, " +
      "public URL and the id of the related opportunity; optional keyword search and paging. " +
      `Use it to find long-form write-ups. ${NEXT_PAGE} ${FREE}; free of charge (no quota used).`,
    tier: "free",
    inputSchema: BlogQuerySchema,
    outputSchema: BlogListSchema,
    annotations: ANNOTATIONS,
    operation: "listBlogPosts",
  },
  {
    name: "get_blog_post",
    title: "Read a blog article",
    description: "Returns one published article by slug with its full Markdown body. Use it " +
      `after list_blog_posts or an opportunity's related_article_url. ${FREE}; free of charge ` +
      "(no quota used).",
    tier: "free",
    inputSchema: BlogSlugSchema,
    outputSchema: BlogPostSchema,
    annotations: ANNOTATIONS,
    operation: "getBlogPost",
  },
  {
    name: "query_opportunities",
    title: "Search opportunities",
    description: "Searches validated business opportunities mined from community discussions " +
      "(Reddit, Hacker News, Product Hunt, ...). q takes a question or keywords: English " +
      'stems ("invoicing" finds "invoices"), stop words optional, "phrases", -exclusions, OR; ' +
      "when no opportunity matches every word, the best matches come back with match: any. " +
      'Example: {"q": "chasing late invoices for freelance designers"}. Filters: platform, ' +
      "channel, minimum score, recommendation, category, online-only. Sorted by relevance " +
      "with q (title above description, rare words above common ones), else by score; or " +
      "sort=score|newest. Paged. Returns list items (no evidence), the total and match; call " +
      `get_opportunity for the full record. ${NEXT_PAGE} ${PRO}. Costs 1 call.`,
    tier: "pro",
    inputSchema: OpportunityQuerySchema,
    outputSchema: OpportunityListSchema,
    annotations: ANNOTATIONS,
    operation: "listOpportunities",
  },
  ...SIMILAR_TOOLS.map((tool) => ({ ...tool, annotations: ANNOTATIONS })),
  {
    name: "list_trending_themes",
    title: "Trending themes",
    description: "Lists market themes whose mentions are trending up, sorted by percent change " +
      "of mentions over a window (`window`: 7d, 30d default, 90d, 1y; each against the window " +
      "before it), optionally for one category; or, with `status`, the themes of one " +
      "lifecycle status (emerging, rising, steady, peaked, declining) sorted the same way. " +
      "Each theme carries trend_status and growth for every window. Use it to spot rising " +
      `demand; then get_theme or get_theme_history. ${PRO}. Costs 1 call.`,
    tier: "pro",
    inputSchema: TrendingQuerySchema,
    outputSchema: TrendingThemesSchema,
    annotations: ANNOTATIONS,
    operation: "listTrendingThemes",
  },
  {
    name: "get_theme",
    title: "Theme details",
    description: "Returns one theme by id (trend direction and change, lifecycle status, growth " +
      "over 7d/30d/90d/1y, mention counts, average score), its last 26 weeks of mentions, " +
      "and its ten best opportunities by score. Use it after get_overview or " +
      `list_trending_themes gave you a theme id. ${PRO}. Costs 1 call when found, nothing ` +
      "when the id is unknown.",
    tier: "pro",
    inputSchema: ThemeIdSchema,
    outputSchema: ThemeDetailSchema,
    annotations: ANNOTATIONS,
    operation: "getTheme",
  },
  THEME_HISTORY_TOOL,
  {
    name: "get_usage",
    title: "Quota and usage",
    description: "Returns how much of the monthly quota is used and left, when it resets, and " +
      "the calls per API key, per UTC day and per surface (REST, MCP), for this month or one " +
      "of the 12 before it (`month`, YYYY-MM). Call it to plan before spending calls. " +
      `${FREE}; free of charge, and it answers even when the quota is used up.`,
    tier: "free",
    inputSchema: UsageQuerySchema,
    outputSchema: UsageReportSchema,
    annotations: ANNOTATIONS,
    operation: "getUsage",
  },
  // The two tools of ChatGPT connectors and deep research, in the shapes OpenAI documents.
  {
    name: "search",
    title: "Search opportunities and articles",
    description: "Searches opportunities and research articles by keywords and returns " +
      "results as {id, title, url}, each url a public page to cite; pass an id to fetch for the " +
      "whole record. Opportunities need the Pro plan (1 call, as query_opportunities); a Free " +
      "key gets articles (free of charge) and a page:plans result saying so.",
    tier: "free",
    inputSchema: SearchInputSchema,
    outputSchema: SearchResultsSchema,
    annotations: ANNOTATIONS,
    operation: "search",
  },
  {
    name: "fetch",
    title: "Fetch a search result",
    description: "Returns the whole document of a search result id as {id, title, text, url, " +
      "metadata}: an opportunity's full record (as get_opportunity: every plan, 1 call when " +
      "found, nothing when not) or an article's Markdown (free of charge).",
    tier: "free",
    inputSchema: FetchInputSchema,
    outputSchema: DocumentSchema,
    annotations: ANNOTATIONS,
    operation: "fetch",
  },
];

/**
 * The `structuredContent` of an `isError` result: the REST error body of the same case
 * (docs/DECISIONS.md section 5). Extra fields belong to the code, as on REST.
 */
export const ToolErrorSchema = z.looseObject({
  // A string, not an enum, and a loose object: the npm stdio package reports more codes
  // (invalid_api_key, key_revoked with revoked_by, service_unreachable) through the same schema.
  error: z.string().describe(
    "Error code, as in the REST error body: plan_required, not_found, invalid_parameter, " +
      "quota_exceeded, internal_error, ...",
  ),
  message: z.string().describe("One sentence for a person"),
  details: z.array(z.object({ param: z.string(), message: z.string() })).optional()
    .describe("invalid_parameter: one entry per bad argument"),
  required_plan: z.string().optional().describe("plan_required: the plan the tool needs"),
  current_plan: z.string().optional().describe("plan_required: the caller's plan"),
  current: z.number().int().optional().describe("quota_exceeded: calls used this month"),
  limit: z.number().int().optional().describe("quota_exceeded: the plan's monthly limit"),
  reset_at: z.string().optional().describe("quota_exceeded: when the quota resets"),
  request_id: z.string().optional().describe("The request id to quote to support"),
}).describe("Present when isError is true");

/** A JSON Schema object as MCP `tools/list` carries it. */
export type JsonSchemaObject = { type: "object"; [key: string]: unknown };

/** A tool that manages the caller's watches: it changes state, so it is not read-only. */
export interface WatchToolDefinition {
  name: "create_watch" | "list_watches" | "delete_watch";
  title: string;
  description: string;
  tier: "free";
  inputSchema: z.ZodObject;
  outputSchema: z.ZodObject;
  annotations: {
    readOnlyHint: boolean;
    openWorldHint: boolean;
    idempotentHint: boolean;
    destructiveHint: boolean;
  };
}

const WATCH_COST = "Every plan (Free: 1 watch, e-mail and feed only; Pro 10; Business 50); " +
  "free of charge (no quota used). An app signed in through OAuth needs the `watches` scope, " +
  "which the user grants on the consent page (else an insufficient_scope error)";

/** The watch tools, listed after TOOLS by the hosted endpoint (not by the stdio package). */
export const WATCH_TOOLS: readonly WatchToolDefinition[] = [
  {
    name: "create_watch",
    title: "Create a watch",
    description: "Saves a search (the query_opportunities filters) that delivers the " +
      "opportunities newly matching it after every data import: signed webhook events " +
      "(Pro and Business), an e-mail digest, and/or a private Atom feed. It starts from now. " +
      "The answer shows the webhook signing secret and the feed URL once: keep them. " +
      `${WATCH_COST}.`,
    tier: "free",
    inputSchema: WatchCreateSchema,
    outputSchema: WatchWithSecretsSchema,
    annotations: {
      readOnlyHint: false,
      openWorldHint: true,
      idempotentHint: false,
      destructiveHint: false,
    },
  },
  {
    name: "list_watches",
    title: "List watches",
    description: "Lists the account's watches with their queries and deliveries (secrets " +
      `are never shown again). ${WATCH_COST}.`,
    tier: "free",
    inputSchema: z.object({}),
    outputSchema: WatchListSchema,
    annotations: {
      readOnlyHint: true,
      openWorldHint: false,
      idempotentHint: true,
      destructiveHint: false,
    },
  },
  {
    name: "delete_watch",
    title: "Delete a watch",
    description: "Deletes one of the account's watches by id, with its matches and pending " +
      `deliveries; its feed URL stops working. ${WATCH_COST}.`,
    tier: "free",
    inputSchema: WatchIdSchema,
    outputSchema: WatchDeletedSchema,
    annotations: {
      readOnlyHint: false,
      openWorldHint: false,
      idempotentHint: true,
      destructiveHint: true,
    },
  },
];

/** The `tools/list` entry of a tool, with its schemas converted to JSON Schema 2020-12. */
export function toolListing(tool: ToolDefinition | WatchToolDefinition): {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchemaObject;
  outputSchema: JsonSchemaObject;
  annotations: WatchToolDefinition["annotations"] & { title: string };
} {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    // Inputs are described as a client may send them (defaults make fields optional); outputs
    // as the server answers them.
    inputSchema: z.toJSONSchema(tool.inputSchema, { io: "input" }) as JsonSchemaObject,
    outputSchema: outputJsonSchema(tool.outputSchema),
    annotations: { title: tool.title, ...tool.annotations },
  };
}

/**
 * The result record or, on an `isError` result, the error body. Clients built on the TypeScript
 * SDK (1.32, and the MCP Inspector) check the structuredContent of error results against the
 * outputSchema as well (typescript-sdk issue #1943), so the schema admits both.
 */
function outputJsonSchema(schema: z.ZodObject): JsonSchemaObject {
  const { $schema, ...result } = z.toJSONSchema(schema, { io: "output" });
  const { $schema: _, ...error } = z.toJSONSchema(ToolErrorSchema, { io: "output" });
  // zod writes a loose object's extra fields as `{}`; `true` says the same more plainly.
  return {
    $schema,
    type: "object",
    anyOf: [singleTypes(result), { ...error, additionalProperties: true }],
  };
}

const ANNOTATION_KEYS = new Set(["description", "title", "default", "examples"]);

/**
 * Rewrites `{"type": ["string", "null"]}` (how zod writes a simple nullable) as `anyOf` branches
 * of one type each: clients that map tool schemas onto a single-type dialect (Gemini's OpenAPI
 * subset) reject type arrays; the MCP Inspector's --strict check warns about them.
 */
function singleTypes(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(singleTypes);
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) out[k] = singleTypes(v);
  if (!Array.isArray(out.type)) return out;
  const outer: Record<string, unknown> = {};
  const inner: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(out)) {
    if (k !== "type") (ANNOTATION_KEYS.has(k) ? outer : inner)[k] = v;
  }
  const branches = (out.type as string[]).map((type) =>
    type === "null" ? { type } : { type, ...inner }
  );
  return { ...outer, anyOf: branches };
}
