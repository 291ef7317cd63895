/**
 * The MCP tools as plain data: names, descriptions, tiers and the zod schemas shared with
 * REST. Pure on purpose (only zod and the schema modules catalog/schemas.ts,
 * catalog/public/connector.ts and metering/usage_schema.ts): the hosted endpoint (server.ts) and
 * the npm stdio package both read it, and the stdio package must not pull in database code.
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
  TrendingQuerySchema,
  TrendingThemesSchema,
} from "../catalog/schemas.ts";
import {
  DocumentSchema,
  FetchInputSchema,
  SearchInputSchema,
  SearchResultsSchema,
} from "../catalog/public/connector.ts";
import { UsageQuerySchema, UsageReportSchema } from "../metering/usage_schema.ts";
import {
  inputJsonSchema,
  type JsonSchemaObject,
  OPPORTUNITY_BRIEF,
  type OutputBriefs,
  outputJsonSchema,
  THEME_BRIEF,
} from "./listing.ts";
import { SIMILAR_TOOLS } from "./similar_tools.ts";
import { COMPACT, DetailSchema, FULL, ITEM, PAGES, TOOL_DEFAULTS } from "../catalog/compact.ts";
import { ThemeRefSchema } from "../catalog/theme_ref.ts";
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
  /** Records of the answer that another tool spells out, kept to a few fields in the listing. */
  outputBriefs?: OutputBriefs;
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

const FREE = "Every plan";
/** How to read an answer to a question (docs/mcp.md). */
const CONFIDENCE = "With q (read by meaning; read_as: what it became, ignored_terms): " +
  "relevance, confidence (0-1), unmatched_terms; below 0.5 nothing answers q: say so, or ask " +
  "again with a suggestions[].ask.";

const PRO = "Requires the Pro plan (or Business)";

const CUT = `Texts are cut to fit 8 KB (truncated: true); ${FULL} gives them whole.`;

// Descriptions are read by models: say what comes back and how much of it (every answer is
// bounded), when to call it, and what it costs. A field's meaning is said once: in its input
// schema when it is a parameter, here when it is part of the answer.
/** The tools in the order `tools/list` shows them. */
export const TOOLS: readonly ToolDefinition[] = [
  {
    name: "get_overview",
    title: "Market overview",
    description: "Start here. Returns every category (slug, name, theme and opportunity " +
      "counts, url), the five themes trending up fastest (as list_trending_themes) and totals; " +
      `slugs are what other tools filter by. ${FULL} adds descriptions (8 KB more). ${FREE}; 1 call.`,
    tier: "free",
    inputSchema: z.object({}),
    outputSchema: OverviewSchema,
    outputBriefs: { trending: THEME_BRIEF },
    annotations: ANNOTATIONS,
    operation: "getOverview",
  },
  {
    name: "get_opportunity",
    title: "Opportunity details",
    description: "Returns one opportunity by id: description, scores, Build/Validate/Skip " +
      "verdict, audience, monetization, market size, features, competitors, differentiation, " +
      "risks, up to 5 scrubbed quotes as evidence, the related article's URL. " +
      `${CUT} ${FREE}; 1 call when found, nothing when the id is unknown.`,
    tier: "free",
    inputSchema: OpportunityIdSchema,
    outputSchema: OpportunityDetailSchema,
    annotations: ANNOTATIONS,
    operation: "getOpportunity",
  },
  {
    name: "list_blog_posts",
    title: "List blog articles",
    description: "Lists published research articles, newest first, those matching q if given " +
      "(match: any when none holds every word): slug, title, url, date, related opportunity " +
      `id; ${PAGES}. ${FULL} adds excerpts and tags (0.4 KB an item). ${FREE}; free of charge.`,
    tier: "free",
    inputSchema: BlogQuerySchema,
    outputSchema: BlogListSchema,
    annotations: ANNOTATIONS,
    operation: "listBlogPosts",
  },
  {
    name: "get_blog_post",
    title: "Read a blog article",
    description: "Returns one published article by slug with its Markdown body. " +
      `${CUT.replace("whole", "whole (up to 1,000,000 characters)")} ${FREE}; free of charge.`,
    tier: "free",
    inputSchema: BlogSlugSchema,
    outputSchema: BlogPostSchema,
    annotations: ANNOTATIONS,
    operation: "getBlogPost",
  },
  {
    name: "query_opportunities",
    title: "Search opportunities",
    description: "Searches business opportunities mined from community discussions by " +
      `question or keywords and filters. Items: ${ITEM}; ${PAGES} and match. ${FULL} gives ` +
      "every list field (1.5 KB an item); get_opportunity the whole record. " +
      `${PRO}; 1 call. ${CONFIDENCE}`,
    tier: "pro",
    inputSchema: OpportunityQuerySchema,
    outputSchema: OpportunityListSchema,
    // suggestions: [{kind, slug, name, summary, ask}], as match_idea's; the description says so.
    outputBriefs: {
      "": ["items", "total", "page", "page_size", "next_cursor", "match", "confidence"],
    },
    annotations: ANNOTATIONS,
    operation: "listOpportunities",
  },
  ...SIMILAR_TOOLS.map((tool) => ({ ...tool, annotations: ANNOTATIONS })),
  {
    name: "list_trending_themes",
    title: "Trending themes",
    description: "Lists up to 50 market themes whose mentions are rising fastest over a window, " +
      "or the themes of one lifecycle status: slug, name, category, trend, status, growth per " +
      `window, opportunity count, url. ${FULL} adds summaries and mentions (0.4 KB a theme). ` +
      "Then get_theme or " +
      `get_theme_history. ${PRO}; 1 call.`,
    tier: "pro",
    inputSchema: TrendingQuerySchema,
    outputSchema: TrendingThemesSchema,
    annotations: ANNOTATIONS,
    operation: "listTrendingThemes",
  },
  {
    name: "get_theme",
    title: "Theme details",
    description: "Returns one theme by id or slug (as list_trending_themes lists it, with its " +
      "summary), its last 26 weeks of mentions and its 10 best opportunities (as " +
      `query_opportunities lists them); ${FULL}: every field (10 KB more). ${PRO}; 1 call ` +
      "when found, nothing when unknown.",
    tier: "pro",
    inputSchema: ThemeRefSchema,
    outputSchema: ThemeDetailSchema,
    outputBriefs: { theme: THEME_BRIEF, top_opportunities: OPPORTUNITY_BRIEF },
    annotations: ANNOTATIONS,
    operation: "getTheme",
  },
  THEME_HISTORY_TOOL,
  {
    name: "get_usage",
    title: "Quota and usage",
    description: "Returns the monthly quota used and left, when it resets, and the calls per " +
      "API key or app, per UTC day (at most 31) and per surface (REST, MCP). " +
      `${FREE}; free of charge, even when the quota is used up.`,
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
    description: "Searches opportunities (up to 10) and articles (up to 5) and returns " +
      "{id, title, url} results, each url a public page to cite; fetch reads an id. " +
      "Opportunities need the Pro plan (1 call); a Free key gets articles (free of charge) " +
      `and a page:plans result saying so. Confidence < 0.5: say so.`,
    tier: "free",
    inputSchema: SearchInputSchema,
    outputSchema: SearchResultsSchema,
    outputBriefs: { "": ["results", "confidence"] },
    annotations: ANNOTATIONS,
    operation: "search",
  },
  {
    name: "fetch",
    title: "Fetch a search result",
    description: "Returns the whole document of a search result id: an opportunity's full " +
      "record (as get_opportunity: every plan, 1 call when found) or an article's Markdown " +
      "(free of charge).",
    tier: "free",
    inputSchema: FetchInputSchema,
    outputSchema: DocumentSchema,
    annotations: ANNOTATIONS,
    operation: "fetch",
  },
];

export type { JsonSchemaObject } from "./listing.ts";

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
  outputBriefs?: OutputBriefs;
}

const WATCH_COST = "Every plan; free; an OAuth app needs the watches scope";

/** The watch tools, listed after TOOLS by the hosted endpoint (not by the stdio package). */
export const WATCH_TOOLS: readonly WatchToolDefinition[] = [
  {
    name: "create_watch",
    title: "Create a watch",
    description: "Saves a search (the query_opportunities filters) that delivers the " +
      "opportunities newly matching it after every import: webhook events, an e-mail digest " +
      "and/or a private Atom feed. The answer gives the webhook secret and the feed URL once: " +
      `keep them. Free: 1 watch, e-mail and feed only; Pro 10; Business 50. ${WATCH_COST}.`,
    tier: "free",
    inputSchema: WatchCreateSchema,
    outputSchema: WatchWithSecretsSchema,
    outputBriefs: { "": ["id", "name", "created_at", "webhook_secret", "feed_url"] },
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
    description: "Lists the account's watches (at most 50) with their queries (the filters " +
      `of query_opportunities) and deliveries; secrets are not shown again. ${WATCH_COST}.`,
    tier: "free",
    inputSchema: z.object({}),
    outputSchema: WatchListSchema,
    // The query's filters are query_opportunities' own, spelled out in its input schema; a
    // watch's other fields (paused, status_reason, updated_at) are in the REST schema.
    outputBriefs: {
      items: ["id", "name", "query", "deliveries", "status", "theme_status", "created_at"],
      "items.query": ["min_score", "online_only"],
    },
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

/** The `tools/list` entry of a tool, with its schemas converted to lean JSON Schema 2020-12. */
export function toolListing(tool: ToolDefinition | WatchToolDefinition): {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchemaObject;
  outputSchema: JsonSchemaObject;
  annotations: WatchToolDefinition["annotations"] & { title: string };
} {
  const shaped = "operation" in tool && takesDetail(tool);
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: shaped ? toolInputSchema(tool) : inputJsonSchema(tool.inputSchema),
    outputSchema: outputJsonSchema(
      tool.outputSchema,
      tool.outputBriefs,
      "operation" in tool ? COMPACT[tool.operation] : {},
    ),
    annotations: { title: tool.title, ...tool.annotations },
  };
}

/**
 * True when the tool takes `detail` (src/catalog/compact.ts). Every catalogue answer is held to
 * the budget; search and fetch keep OpenAI's one-string inputs (get_opportunity and
 * get_blog_post read a document whole), and get_usage has no texts to cut.
 */
export function takesDetail(tool: ToolDefinition): boolean {
  return !["getUsage", "search", "fetch"].includes(tool.operation);
}

/**
 * The input schema of a tool whose answer is compact by default (src/catalog/compact.ts): the
 * operation's, with the tool's own defaults and `detail`.
 */
function toolInputSchema(tool: ToolDefinition): JsonSchemaObject {
  const schema = inputJsonSchema(tool.inputSchema);
  const properties = { ...schema.properties as Record<string, Record<string, unknown>> };
  for (const [name, value] of Object.entries(TOOL_DEFAULTS[tool.operation] ?? {})) {
    properties[name] = { ...properties[name], default: value };
  }
  const { detail } = inputJsonSchema(DetailSchema).properties as Record<string, unknown>;
  return { ...schema, properties: { ...properties, detail } };
}
