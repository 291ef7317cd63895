/**
 * The OpenAPI 3.1 description of /api/v1, generated from the same zod schemas that validate
 * parameters and shape answers, so the document cannot drift from the code. Built once.
 */
import { z } from "zod";
import {
  BlogListSchema,
  BlogPostSchema,
  BlogQuerySchema,
  CategoryListSchema,
  OpportunityDetailSchema,
  OpportunityListSchema,
  OpportunityQuerySchema,
  OverviewSchema,
  ThemeDetailSchema,
  TrendingQuerySchema,
  TrendingThemesSchema,
} from "../catalog/schemas.ts";
import {
  IdeaMatchSchema,
  IdeaQuerySchema,
  SimilarListSchema,
  SimilarQuerySchema,
} from "../catalog/similar/similar_schemas.ts";
import { UsageQuerySchema, UsageReportSchema } from "../metering/usage_schema.ts";
import { ThemeHistoryQuerySchema, ThemeHistorySchema } from "../catalog/trend_schemas.ts";
import { watchPaths, watchSchemas } from "./openapi_watches.ts";
import { EXPORT_CHUNK, ExportQuerySchema } from "./export.ts";
import { MAX_PAGE_DEPTH } from "../catalog/cursor.ts";
import { PLAN_LIMITS, PLAN_NAMES, PLANS } from "../platform/plans.ts";
import { ErrorBodySchema, QuotaExceededBodySchema } from "./openapi_errors.ts";
import { formatPrice, LIST_PRICES } from "../billing/prices.ts";
import { withTagsAndLicense } from "./openapi_tags.ts";
import { withFieldsParameter } from "./fields.ts";
import { quotaHeaders } from "./openapi_headers.ts";

/** The plans in one sentence, from the table the quota uses (with the list prices). */
function plansSentence(): string {
  const plans = PLANS.map((p) =>
    `${PLAN_NAMES[p]}: ${PLAN_LIMITS[p].toLocaleString("en-US")} calls a month, ` +
    formatPrice(LIST_PRICES.prices[p])
  );
  return `Plans: ${plans.join("; ")}.`;
}

type JsonSchema = Record<string, unknown>;

function schemaOf(s: z.ZodType, io: "input" | "output" = "output"): JsonSchema {
  const { $schema: _, ...rest } = z.toJSONSchema(s, { io }) as JsonSchema;
  return rest;
}

/** The query parameters of `s`, less those the path gives (`inPath`). */
function queryParameters(s: z.ZodObject, inPath: string[] = []): JsonSchema[] {
  const json = schemaOf(s, "input") as { properties: Record<string, JsonSchema> };
  const names = Object.entries(json.properties).filter(([name]) => !inPath.includes(name));
  return names.map(([name, prop]) => {
    const { description, ...schema } = prop;
    return { name, in: "query", required: false, description, schema };
  });
}

function pathParameter(name: string, type: "integer" | "string", description: string) {
  return { name, in: "path", required: true, description, schema: { type } };
}

function error(description: string, ref = "#/components/schemas/Error") {
  return {
    description,
    headers: quotaHeaders,
    content: { "application/json": { schema: { $ref: ref } } },
  };
}

interface OperationSpec {
  operationId: string;
  summary: string;
  description: string;
  parameters: JsonSchema[];
  result: string;
  notFound?: boolean;
  proOnly?: boolean;
  /** Never charged, so never answered 429. */
  uncharged?: boolean;
  /** A paged list: cursor, next_cursor and the depth limit. */
  paged?: boolean;
}

function operation(spec: OperationSpec) {
  const responses: Record<string, unknown> = {
    "200": {
      description: "Success",
      headers: quotaHeaders,
      content: { "application/json": { schema: { $ref: `#/components/schemas/${spec.result}` } } },
    },
    "401": error(
      "missing_api_key, invalid_api_key, or invalid_token (an OAuth access token that expired " +
        "or whose grant was revoked)",
    ),
    "403": error(
      spec.proOnly
        ? "key_revoked, or plan_required (this operation needs Pro; upgrade_url says where)"
        : "key_revoked",
    ),
    "422": error(
      "invalid_parameter, with one details entry per bad parameter" +
        (spec.paged
          ? `; invalid_cursor (a cursor of other filters or sort, or a damaged or forged one); ` +
            `page_too_deep (page * page_size over ${MAX_PAGE_DEPTH}: continue with cursor). ` +
            "Not charged"
          : ""),
    ),
    "429": error("quota_exceeded (not charged)", "#/components/schemas/QuotaExceeded"),
    "503": error("service_unavailable: the database cannot be reached"),
  };
  if (spec.notFound) responses["404"] = error("not_found (not charged)");
  if (spec.uncharged) delete responses["429"];
  return {
    get: {
      operationId: spec.operationId,
      summary: spec.summary,
      description: spec.description,
      parameters: spec.parameters,
      responses,
    },
  };
}

const PAGING = "Every answer has next_cursor (null on the last page): pass it as cursor, with " +
  "the same filters and sort, for the next page, in constant time at any depth. Page numbers " +
  `reach item ${MAX_PAGE_DEPTH.toLocaleString("en-US")} (page * page_size); deeper, a 422 ` +
  "page_too_deep names cursor as the way on.";

/** GET /api/v1/opportunities/export: a stream, not JSON (src/rest/export.ts). */
function exportOperation() {
  const base = operation({
    operationId: "exportOpportunities",
    summary: "Export every opportunity of a filter as JSON Lines or CSV",
    description: "Streams every opportunity matching the list's filters (no paging), in the " +
      "list's order, as JSON Lines (one list item per line) or CSV (a header line, then one " +
      `line per item, RFC 4180; text cells that begin with = + - @ tab or CR get a leading ').` +
      " Exactly the rows of the list with the same parameters, in its order (best match and " +
      `relevance included). Business only; costs 1 call per started ${EXPORT_CHUNK} rows sent ` +
      "(at least 1): the price from the exact total (X-Total-Count, X-Export-Calls) is reserved " +
      "before the first byte and settled when the stream ends, the calls of rows not sent given " +
      "back (a client that disconnects pays the started thousands it was sent). An export the " +
      "quota cannot pay for in full is a 429 that charges nothing; HEAD answers the headers and " +
      "charges nothing. Rows arrive in chunks of 1,000 as the client reads.",
    parameters: queryParameters(ExportQuerySchema),
    result: "OpportunityList",
  });
  const get = base.get as { responses: Record<string, unknown> };
  get.responses["200"] = {
    description: "The rows, streamed",
    headers: {
      ...quotaHeaders,
      "X-Total-Count": { description: "Rows in the export", schema: { type: "integer" } },
      "X-Export-Calls": {
        description: "Its price in calls, reserved now and settled at the rows sent",
        schema: { type: "integer" },
      },
      "X-Confidence": {
        description: "With q only: the list's confidence, 0-1 (below 0.5 the rows do not " +
          "address q)",
        schema: { type: "number" },
      },
      "X-Unmatched-Terms": {
        description: "With q only: the list's unmatched_terms, each percent-encoded, " +
          "comma-separated (empty when none)",
        schema: { type: "string" },
      },
      "X-Ignored-Terms": {
        description: "With q only: the list's ignored_terms, as X-Unmatched-Terms",
        schema: { type: "string" },
      },
      "X-Read-As": {
        description: "With q only: the list's read_as (what q became), percent-encoded JSON",
        schema: { type: "string" },
      },
    },
    content: {
      "application/x-ndjson": {
        schema: { type: "string", description: "One OpportunityListItem as JSON per line" },
      },
      "text/csv": { schema: { type: "string", description: "The list item fields as columns" } },
    },
  };
  get.responses["403"] = error("key_revoked, or plan_required (the export needs Business)");
  return base;
}

function build(): JsonSchema {
  return {
    openapi: "3.1.0",
    info: {
      title: "Opportunity Intelligence API",
      version: "1.0.0",
      description: "Read-only access to AI-scored business opportunities mined from online " +
        "communities, and blog analyses of validated ones. One key and one monthly quota for " +
        "REST and the MCP endpoint at /mcp/. " + plansSentence(),
    },
    servers: [{ url: "/" }],
    security: [{ ApiKeyHeader: [] }, { ApiKeyQuery: [] }, { Bearer: [] }],
    paths: {
      "/api/v1/opportunities": operation({
        operationId: "listOpportunities",
        summary: "List opportunities",
        description: "Filtered, paged opportunities. With q: a question or keywords (English " +
          'stems, stop words optional, "phrases", -exclusions, OR), ordered by relevance unless ' +
          "sort says otherwise; when no opportunity matches every word, the best matches " +
          "(most words first) with match=any. Without q: by score descending. Example: " +
          `?q=late+invoices+for+freelance+designers. Pro and Business; costs 1 call. ${PAGING}`,
        parameters: queryParameters(OpportunityQuerySchema),
        result: "OpportunityList",
        proOnly: true,
        paged: true,
      }),
      "/api/v1/opportunities/export": exportOperation(),
      "/api/v1/opportunities/{id}": operation({
        operationId: "getOpportunity",
        summary: "Get one opportunity",
        description: "Full detail with evidence. Every plan; costs 1 call, 0 on 404. Each " +
          "evidence item's source_url (the public thread) is for Pro and Business, not Free.",
        parameters: [pathParameter("id", "integer", "Opportunity id")],
        result: "OpportunityDetail",
        notFound: true,
      }),
      "/api/v1/opportunities/{id}/similar": operation({
        operationId: "findSimilar",
        summary: "Opportunities similar to one",
        description: "The nearest opportunities by what they share (rare words of the title, " +
          "description, key features and audience; the theme), each with a similarity from 0 " +
          "to 1, nearest first, at most 100, paged. Pro and Business; costs 1 call, 0 on 404.",
        parameters: [
          pathParameter("id", "integer", "Opportunity id"),
          ...queryParameters(SimilarQuerySchema.omit({ id: true })),
        ],
        result: "SimilarList",
        notFound: true,
        proOnly: true,
      }),
      "/api/v1/ideas/match": operation({
        operationId: "matchIdea",
        summary: "Themes and opportunities near an idea",
        description: "An idea in a sentence or a paragraph (text, up to 1,000 characters) gets " +
          "the nearest themes (with their trend) and opportunities (with evidence count and " +
          "competitors), each with a similarity from 0 to 1. Example: " +
          "?text=An+app+that+helps+freelance+designers+chase+late+invoices. A blank or longer " +
          "text is a 422 (not charged). Pro and Business; costs 1 call.",
        parameters: queryParameters(IdeaQuerySchema).map((p) =>
          p.name === "text" ? { ...p, required: true } : p
        ),
        result: "IdeaMatch",
        proOnly: true,
      }),
      "/api/v1/blog": operation({
        operationId: "listBlogPosts",
        summary: "List published blog analyses",
        description: "Newest first; with q, best match as in the opportunity list (match=any " +
          `when no article holds every word: the most words first). Every plan; free. ${PAGING}`,
        parameters: queryParameters(BlogQuerySchema),
        result: "BlogList",
        paged: true,
      }),
      "/api/v1/blog/{slug}": operation({
        operationId: "getBlogPost",
        summary: "Get one published article with its Markdown body",
        description: "Every plan; free of charge.",
        parameters: [pathParameter("slug", "string", "Article slug")],
        result: "BlogPost",
        notFound: true,
      }),
      "/api/v1/overview": operation({
        operationId: "getOverview",
        summary: "The landscape: categories, trending themes, totals",
        description: "Every plan; costs 1 call.",
        parameters: [],
        result: "Overview",
      }),
      "/api/v1/categories": operation({
        operationId: "listCategories",
        summary: "Categories with theme and opportunity counts",
        description: "Every plan; free of charge.",
        parameters: [],
        result: "CategoryList",
      }),
      "/api/v1/themes/trending": operation({
        operationId: "listTrendingThemes",
        summary: "Themes trending up over a window, or of one lifecycle status",
        description: "Themes growing by 10% or more over `window` (7d, 30d default, 90d, 1y), " +
          "by that growth; with `status`, the themes of that lifecycle status by it. Each " +
          "theme carries trend_status and growth per window (rule: /docs/trends). Pro and " +
          "Business; costs 1 call.",
        parameters: queryParameters(TrendingQuerySchema),
        result: "TrendingThemes",
        proOnly: true,
      }),
      "/api/v1/themes/{id}": operation({
        operationId: "getTheme",
        summary: "One theme, its last 26 weeks and its ten best opportunities",
        description: "Pro and Business; costs 1 call, 0 on 404 or 422.",
        parameters: [pathParameter("id", "string", "Theme id (digits) or slug")],
        result: "ThemeDetail",
        notFound: true,
        proOnly: true,
      }),
      "/api/v1/themes/{id}/history": operation({
        operationId: "getThemeHistory",
        summary: "A theme's mentions per week or month",
        description: "One point per period between from and to (default: the theme's whole " +
          "history), oldest first, periods without mentions as 0; the last period may be " +
          "incomplete. Pro and Business; costs 1 call, 0 on 404 or 422.",
        parameters: [
          pathParameter("id", "string", "Theme id (digits) or slug"),
          ...queryParameters(ThemeHistoryQuerySchema, ["id", "slug"]),
        ],
        result: "ThemeHistory",
        notFound: true,
        proOnly: true,
      }),
      "/api/v1/usage": operation({
        operationId: "getUsage",
        summary: "The account's usage of a month",
        description: "Calls used, limit, remaining and reset, per key, per UTC day and per " +
          "surface (REST, MCP), for this month or one of the 12 before it. Every plan; never " +
          "charged, answers even when the quota is used up.",
        parameters: queryParameters(UsageQuerySchema),
        result: "Usage",
        uncharged: true,
      }),
      ...watchPaths((description) => error(description)),
    },
    components: {
      securitySchemes: {
        ApiKeyHeader: { type: "apiKey", in: "header", name: "X-API-Key" },
        ApiKeyQuery: {
          type: "apiKey",
          in: "query",
          name: "api_key",
          description: "For browser tests only: keys in URLs leak into logs and referrers",
        },
        Bearer: {
          type: "http",
          scheme: "bearer",
          description: "An API key, or an OAuth 2.1 access token (`oi_at_...`, one hour) that an " +
            "app obtained by signing in (authorization code + PKCE S256; metadata at " +
            "/.well-known/oauth-authorization-server). A token acts for its account: same plan, " +
            "same monthly quota, same X-Quota headers.",
        },
      },
      schemas: {
        OpportunityList: schemaOf(OpportunityListSchema),
        OpportunityDetail: schemaOf(OpportunityDetailSchema),
        BlogList: schemaOf(BlogListSchema),
        BlogPost: schemaOf(BlogPostSchema),
        Overview: schemaOf(OverviewSchema),
        CategoryList: schemaOf(CategoryListSchema),
        TrendingThemes: schemaOf(TrendingThemesSchema),
        ThemeDetail: schemaOf(ThemeDetailSchema),
        SimilarList: schemaOf(SimilarListSchema),
        IdeaMatch: schemaOf(IdeaMatchSchema),
        ThemeHistory: schemaOf(ThemeHistorySchema),
        Usage: schemaOf(UsageReportSchema),
        Error: schemaOf(ErrorBodySchema),
        QuotaExceeded: schemaOf(QuotaExceededBodySchema),
        ...watchSchemas(),
      },
    },
  };
}

let document: JsonSchema | undefined;

/** The OpenAPI document, built on first use. */
export function openApiDocument(): JsonSchema {
  document ??= withFieldsParameter(withTagsAndLicense(build()));
  return document;
}
