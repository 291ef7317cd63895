/**
 * What each operation takes and does, once for both surfaces: its input schema, what must exist
 * for it to succeed, and the work that answers it at a data version. REST reads the input from
 * the path or the query string, MCP from the tool's arguments; both then run the same work
 * (tier and cost are in OPERATIONS, src/metering/admission.ts). The ChatGPT connector tools
 * `search` and `fetch` have no row of their own there: each call runs, and is priced as, the
 * operation of the tool it stands for (src/catalog/public/connector.ts).
 */
import { UNREAD } from "../catalog/meaning/reading.ts";
import type { z } from "zod";
import type postgres from "postgres";
import type { Sql } from "../db/open.ts";
import type { Content } from "../catalog/content.ts";
import { rowExistsFragment } from "../catalog/common.ts";
import { detailForPlan, detailJson, type DetailRow } from "../catalog/lists/opportunities.ts";
import { checkPaging } from "../catalog/cursor.ts";
import { checkCursor } from "../catalog/lists/opportunity_cursor.ts";
import { blogCursorKeys } from "../catalog/blog_posts.ts";
import { overviewForPlan } from "../catalog/themes/themes.ts";
import { NotFoundError } from "../platform/errors.ts";
import {
  BlogQuerySchema,
  BlogSlugSchema,
  OpportunityIdSchema,
  OpportunityQuerySchema,
  TrendingQuerySchema,
} from "../catalog/schemas.ts";
import {
  articleDocument,
  documentRef,
  FetchInputSchema,
  opportunityDocument,
  plansDocument,
  SEARCH_ARTICLES,
  SEARCH_OPPORTUNITIES,
  SearchInputSchema,
  searchResults,
} from "../catalog/public/connector.ts";
import type { BlogPost, OpportunityDetail } from "../catalog/schemas.ts";
import { IdeaQuerySchema, SimilarQuerySchema } from "../catalog/similar/similar_schemas.ts";
import { ThemeHistoryQuerySchema } from "../catalog/trend_schemas.ts";
import { type ThemeRef, themeRefOf, ThemeRefSchema } from "../catalog/theme_ref.ts";
import { themeExistsFragment, themeNotFound } from "../catalog/themes/theme_lookup.ts";
import { readUsageReport } from "./usage_report.ts";
import { UsageQuerySchema } from "./usage_schema.ts";
import { callText } from "./repeats.ts";
import type { Existence, OPERATIONS } from "./admission.ts";
import type { Caller } from "../accounts/credentials.ts";

/** The name of an operation of OPERATIONS. */
export type OperationName = keyof typeof OPERATIONS;

/** The connector tools, which run the operations of the tools they stand for. */
export type ConnectorName = "search" | "fetch";

/** The operations each connector tool may run (for listings: the home page's plan table). */
export const STANDS_FOR: Record<ConnectorName, readonly OperationName[]> = {
  search: ["listOpportunities", "listBlogPosts"],
  fetch: ["getOpportunity", "getBlogPost"],
};

/** What an operation's work needs. */
export interface OperationDeps {
  sql: Sql;
  /** The cached content operations (src/catalog/content.ts). */
  content: Content;
}

/** A parsed call: what must exist, and the work that answers it at a data version. */
export interface Prepared {
  /**
   * The operation of OPERATIONS that prices this call: the named one, or for a connector tool
   * the one its arguments choose (fetch of an article is priced as getBlogPost).
   */
  operation: OperationName;
  /**
   * The answer for a caller below the operation's plan, free of charge, instead of
   * plan_required: a Free key's search gets the articles (listBlogPosts is free).
   */
  belowPlan?: (version: number) => Promise<unknown>;
  existence?: Existence;
  /**
   * The answer's data, read in the admission statement once the call is charged (admit's
   * `prefetch`), when the answer is not cached; `work` then receives it as `fetched`.
   */
  prefetch?: postgres.Fragment;
  work(version: number, caller: Caller, fetched?: unknown): Promise<unknown>;
  /**
   * What makes two calls the same (repeats.ts's callText): the name called and the parameters
   * as parsed; its hash is the fingerprint admit claims when it charges the call.
   */
  call: string;
}

/** Parses an input with a schema, as the surface reads it (throws invalid_parameter). */
export type ParseInput = <S extends z.ZodObject>(schema: S) => z.infer<S>;

type Definition = (
  deps: OperationDeps,
  parse: ParseInput,
) => Omit<Prepared, "operation" | "call">;

/** `exists` of a row by id, checked in the admission statement so that a 404 is never charged. */
function rowExists(sql: Sql, table: "opportunities", id: number, what: string) {
  return {
    check: rowExistsFragment(sql, table, id),
    notFound: () => new NotFoundError(`Cannot find ${what} ${id}`),
  };
}

/** `exists` of a theme by id or slug, as rowExists. */
function themeExists(sql: Sql, ref: ThemeRef): Existence {
  return { check: themeExistsFragment(sql, ref), notFound: () => themeNotFound(ref) };
}

const DEFINITIONS: Record<OperationName, Definition> = {
  // Streamed, and priced by its rows, by src/rest/export.ts: no surface prepares it here.
  exportOpportunities() {
    throw new Error("exportOpportunities is served by src/rest/export.ts");
  },
  listOpportunities({ content }, parse) {
    const query = parse(OpportunityQuerySchema);
    // A bad cursor or a page too deep is refused here, before anything is charged.
    checkPaging(query);
    checkCursor(query);
    // A list that misses the cache, with the list index held, reads its page's rows in the
    // admission statement: one round trip.
    const plan = content.planList(query);
    return {
      prefetch: plan?.prefetch,
      work: (v, _caller, fetched) =>
        content.listOpportunities(
          v,
          query,
          plan && fetched !== undefined ? { plan, rows: fetched } : undefined,
        ),
    };
  },
  getOpportunity({ sql, content }, parse) {
    const { id } = parse(OpportunityIdSchema);
    return {
      existence: rowExists(sql, "opportunities", id, "opportunity"),
      // A cache miss reads the detail in the admission statement: one round trip.
      prefetch: content.hasOpportunity(id) ? undefined : detailJson(sql, id),
      work: async (v, caller, fetched) =>
        detailForPlan(
          await content.getOpportunity(v, id, fetched as DetailRow | null | undefined),
          caller.plan,
        ),
    };
  },
  listBlogPosts({ content }, parse) {
    const query = parse(BlogQuerySchema);
    checkPaging(query);
    blogCursorKeys(query);
    return { work: (v) => content.listBlogPosts(v, query) };
  },
  getBlogPost({ content }, parse) {
    const { slug } = parse(BlogSlugSchema);
    return { work: (v) => content.getBlogPost(v, slug) };
  },
  getOverview: ({ content }) => ({
    work: async (v, caller) => overviewForPlan(await content.getOverview(v), caller.plan),
  }),
  listCategories: ({ content }) => ({ work: (v) => content.listCategories(v) }),
  listTrendingThemes({ content }, parse) {
    const query = parse(TrendingQuerySchema);
    return { work: (v) => content.listTrendingThemes(v, query) };
  },
  getTheme({ sql, content }, parse) {
    const ref = themeRefOf(parse(ThemeRefSchema));
    return { existence: themeExists(sql, ref), work: (v) => content.getTheme(v, ref) };
  },
  findSimilar({ sql, content }, parse) {
    const query = parse(SimilarQuerySchema);
    return {
      existence: rowExists(sql, "opportunities", query.id, "opportunity"),
      work: (v) => content.findSimilar(v, query),
    };
  },
  matchIdea({ content }, parse) {
    const query = parse(IdeaQuerySchema);
    return { work: (v) => content.matchIdea(v, query) };
  },
  getThemeHistory({ sql, content }, parse) {
    const query = parse(ThemeHistoryQuerySchema);
    return {
      existence: themeExists(sql, themeRefOf(query)),
      work: (v) => content.getThemeHistory(v, query),
    };
  },
  getUsage({ sql }, parse) {
    const { month } = parse(UsageQuerySchema);
    return {
      work: (_, caller) =>
        readUsageReport(sql, { id: caller.accountId, plan: caller.plan }, { month }),
    };
  },
};

type Connector = (deps: OperationDeps, parse: ParseInput) => Omit<Prepared, "call">;

const CONNECTORS: Record<ConnectorName, Connector> = {
  search({ content }, parse) {
    const q = parse(SearchInputSchema).query.trim();
    // Nothing to look for: no results, as OpenAI's sample server answers, and nothing read.
    if (!q) {
      const none = {
        results: [],
        confidence: null,
        unmatched_terms: [],
        suggestions: [],
        ...UNREAD,
      };
      return { operation: "listBlogPosts", work: () => Promise.resolve(none) };
    }
    const articles = { q, page: 1, page_size: SEARCH_ARTICLES };
    const opportunities = OpportunityQuerySchema.parse({
      q,
      sort: "relevance",
      online_only: false,
      page_size: SEARCH_OPPORTUNITIES,
    });
    return {
      operation: "listOpportunities",
      work: async (v) =>
        searchResults(
          await content.listOpportunities(v, opportunities),
          await content.listBlogPosts(v, articles),
          content.publicBaseUrl,
        ),
      belowPlan: async (v) =>
        searchResults("plans", await content.listBlogPosts(v, articles), content.publicBaseUrl),
    };
  },
  fetch(deps, parse) {
    const ref = documentRef(parse(FetchInputSchema).id);
    if (ref.kind === "plans") {
      return {
        operation: "getBlogPost",
        work: () => Promise.resolve(plansDocument(deps.content.publicBaseUrl)),
      };
    }
    if (ref.kind === "article") {
      const post = DEFINITIONS.getBlogPost(deps, (schema) => schema.parse({ slug: ref.slug }));
      return {
        ...post,
        operation: "getBlogPost",
        work: async (v, caller) => articleDocument(await post.work(v, caller) as BlogPost),
      };
    }
    const detail = DEFINITIONS.getOpportunity(deps, (schema) => schema.parse({ id: ref.id }));
    return {
      ...detail,
      operation: "getOpportunity",
      work: async (v, caller, fetched) =>
        opportunityDocument(await detail.work(v, caller, fetched) as OpportunityDetail),
    };
  },
};

/**
 * Parses a call of `name` (throws invalid_parameter) and says what it needs and does, and what
 * makes it the same call as another (`call`: the name and the parameters as parsed, so that a
 * connector tool's repeat is its own, and a REST call and the MCP tool of the same operation
 * with the same parameters are one).
 */
export function prepareOperation(
  name: OperationName | ConnectorName,
  deps: OperationDeps,
  parse: ParseInput,
): Prepared {
  const parsed: unknown[] = [];
  const reading: ParseInput = (schema) => {
    const value = parse(schema);
    parsed.push(value);
    return value;
  };
  const prepared = name === "search" || name === "fetch"
    ? CONNECTORS[name](deps, reading)
    : { operation: name, ...DEFINITIONS[name](deps, reading) };
  return { ...prepared, call: callText(name, parsed) };
}
