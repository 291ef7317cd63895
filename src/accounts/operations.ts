/**
 * What each operation takes and does, once for both surfaces: its input schema, what must exist
 * for it to succeed, and the work that answers it at a data version. REST reads the input from
 * the path or the query string, MCP from the tool's arguments; both then run the same work
 * (tier and cost are in OPERATIONS, src/accounts/admission.ts).
 */
import type { z } from "zod";
import type postgres from "postgres";
import type { Sql } from "../db/open.ts";
import type { Content } from "../catalog/content.ts";
import { rowExistsFragment } from "../catalog/common.ts";
import { detailJson, type DetailRow } from "../catalog/opportunities.ts";
import { NotFoundError } from "../platform/errors.ts";
import {
  BlogQuerySchema,
  BlogSlugSchema,
  OpportunityIdSchema,
  OpportunityQuerySchema,
  ThemeIdSchema,
  TrendingQuerySchema,
} from "../catalog/schemas.ts";
import { readUsageReport } from "./usage_report.ts";
import { UsageQuerySchema } from "./usage_schema.ts";
import type { Caller, Existence, OPERATIONS } from "./admission.ts";

/** The name of an operation of OPERATIONS. */
export type OperationName = keyof typeof OPERATIONS;

/** What an operation's work needs. */
export interface OperationDeps {
  sql: Sql;
  /** The cached content operations (src/catalog/content.ts). */
  content: Content;
}

/** A parsed call: what must exist, and the work that answers it at a data version. */
export interface Prepared {
  existence?: Existence;
  /**
   * The answer's data, read in the admission statement once the call is charged (admit's
   * `prefetch`), when the answer is not cached; `work` then receives it as `fetched`.
   */
  prefetch?: postgres.Fragment;
  work(version: number, caller: Caller, fetched?: unknown): Promise<unknown>;
}

/** Parses an input with a schema, as the surface reads it (throws invalid_parameter). */
export type ParseInput = <S extends z.ZodObject>(schema: S) => z.infer<S>;

type Definition = (deps: OperationDeps, parse: ParseInput) => Prepared;

/** `exists` of a row by id, checked in the admission statement so that a 404 is never charged. */
function rowExists(sql: Sql, table: "opportunities" | "themes", id: number, what: string) {
  return {
    check: rowExistsFragment(sql, table, id),
    notFound: () => new NotFoundError(`Cannot find ${what} ${id}`),
  };
}

const DEFINITIONS: Record<OperationName, Definition> = {
  listOpportunities({ content }, parse) {
    const query = parse(OpportunityQuerySchema);
    return { work: (v) => content.listOpportunities(v, query) };
  },
  getOpportunity({ sql, content }, parse) {
    const { id } = parse(OpportunityIdSchema);
    return {
      existence: rowExists(sql, "opportunities", id, "opportunity"),
      // A cache miss reads the detail in the admission statement: one round trip.
      prefetch: content.hasOpportunity(id) ? undefined : detailJson(sql, id),
      work: (v, _caller, fetched) =>
        content.getOpportunity(v, id, fetched as DetailRow | null | undefined),
    };
  },
  listBlogPosts({ content }, parse) {
    const query = parse(BlogQuerySchema);
    return { work: (v) => content.listBlogPosts(v, query) };
  },
  getBlogPost({ content }, parse) {
    const { slug } = parse(BlogSlugSchema);
    return { work: (v) => content.getBlogPost(v, slug) };
  },
  getOverview: ({ content }) => ({ work: (v) => content.getOverview(v) }),
  listCategories: ({ content }) => ({ work: (v) => content.listCategories(v) }),
  listTrendingThemes({ content }, parse) {
    const query = parse(TrendingQuerySchema);
    return { work: (v) => content.listTrendingThemes(v, query) };
  },
  getTheme({ sql, content }, parse) {
    const { id } = parse(ThemeIdSchema);
    return {
      existence: rowExists(sql, "themes", id, "theme"),
      work: (v) => content.getTheme(v, id),
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

/** Parses a call of `name` (throws invalid_parameter) and says what it needs and does. */
export function prepareOperation(
  name: OperationName,
  deps: OperationDeps,
  parse: ParseInput,
): Prepared {
  return DEFINITIONS[name](deps, parse);
}
