/**
 * Zod schemas of parameters and records, shared by REST (parameters parsed from the query
 * string), MCP (tool inputs and outputs) and the OpenAPI document. Messages are written for a
 * person and end up in the `details` of a 422 or an `invalid_parameter` tool result.
 */
import * as z from "zod";
import { textProblem } from "../platform/text.ts";
import {
  GrowthSchema,
  TrendStatusSchema,
  TrendWindowSchema,
  WeeklyPointsSchema,
} from "./trend_schemas.ts";
import { SLUG_PATTERN } from "./theme_ref.ts";

export { SLUG_PATTERN };

export const RECOMMENDATIONS = ["Build", "Validate", "Skip"] as const;

/**
 * The orders of the sub-scores (each 0-10): pain, willingness to pay and sustainability highest
 * first, tech difficulty lowest (easiest) first; ties by score, then newest, then id.
 */
export const SUB_SCORE_SORTS = [
  "pain_point_intensity",
  "willingness_to_pay",
  "tech_difficulty",
  "sustainability",
] as const;
export type SubScoreSort = typeof SUB_SCORE_SORTS[number];

/** The orders of the opportunity list. */
export const OPPORTUNITY_SORTS = ["score", "newest", "relevance", ...SUB_SCORE_SORTS] as const;
export type OpportunitySort = typeof OPPORTUNITY_SORTS[number];

function intParam(min: number, max: number | undefined, description: string) {
  let s = z.number().int("must be an integer").min(min, `must be at least ${min}`);
  if (max !== undefined) s = s.max(max, `must be at most ${max}`);
  return s.describe(description);
}

function subScoreParam(description: string) {
  return z.number().int("must be an integer").min(0, "must be at least 0")
    .max(10, "must be at most 10").optional().describe(description);
}

const DateTime = z.iso.datetime({ offset: true }).describe("ISO 8601 date-time with UTC offset");

// ---- Text ------------------------------------------------------------------------------------

/**
 * A string schema that refuses what textProblem finds (after any other check on `base`). The
 * check is a refinement, so tool listings and the OpenAPI document keep their plain string types.
 */
export function cleanText<T extends z.ZodString>(
  base: T,
  options: { multiline?: boolean } = {},
): T {
  return base.superRefine((value, ctx) => {
    const problem = textProblem(value, options);
    if (problem) ctx.addIssue({ code: "custom", message: problem, input: value });
  }) as T;
}

// ---- Parameters ------------------------------------------------------------------------------

const Q = cleanText(z.string().max(100, "must be at most 100 characters"));
// Said once per field and briefly: MCP clients pay every description of every tool listed.
const Page = intParam(1, undefined, "Page number from 1 (to item 10,000; cursor goes on)")
  .default(1);
const PageSize = intParam(1, 100, "Items per page, 1 to 100").default(20);
const Cursor = cleanText(z.string().max(1000, "must be at most 1000 characters")).optional()
  .describe("The previous answer's next_cursor (same filters)");

export const OpportunityQuerySchema = z.object({
  q: Q.optional().describe(
    "A question or keywords matched in the title or the description, ignoring case and " +
      'accents: English stems ("invoicing" finds "invoices"), word prefixes ' +
      '("invoi"), stop words optional, "quoted words" in order, -word excludes, a OR b. When no ' +
      "row holds every word, those holding the most come first (match: any)",
  ),
  platform: cleanText(z.string().max(100, "must be at most 100 characters")).optional().describe(
    "Source platform: reddit, hackernews, producthunt, stackexchange, ...",
  ),
  channel: cleanText(z.string().max(200, "must be at most 200 characters")).optional().describe(
    "Channel or subreddit, case-sensitive (e.g. SaaS)",
  ),
  min_score: intParam(0, 100, "Lowest composite score, 0-100")
    .default(0),
  recommendation: z.enum(RECOMMENDATIONS, "must be one of Build, Validate, Skip").optional()
    .describe("Only this verdict"),
  category: cleanText(z.string().max(100, "must be at most 100 characters")).optional().describe(
    "Category slug (see get_overview)",
  ),
  theme: z.string().max(200, "must be at most 200 characters")
    .regex(SLUG_PATTERN, "must be a slug of lowercase letters, digits and dashes").optional()
    .describe("Theme slug"),
  online_only: z.boolean("must be true or false").default(true).describe(
    "Only ideas that ship as software",
  ),
  // The sub-score bounds, inclusive (tools/list has a budget: a few words each).
  min_pain_point_intensity: subScoreParam("Lowest pain, 0-10"),
  min_willingness_to_pay: subScoreParam("Lowest willingness to pay, 0-10"),
  max_tech_difficulty: subScoreParam("Highest difficulty to build, 0-10"),
  min_sustainability: subScoreParam("Lowest sustainability, 0-10"),
  sort: z.enum(OPPORTUNITY_SORTS, `must be one of ${OPPORTUNITY_SORTS.join(", ")}`).optional()
    .describe(
      "relevance (default with q: title above description, rare words above common ones), " +
        "score (default without q), newest; sub-scores highest first, tech_difficulty lowest; " +
        "ties by score, then newest",
    ),
  page: Page,
  page_size: PageSize,
  cursor: Cursor,
}).refine((query) => query.sort !== "relevance" || (query.q ?? "").trim() !== "", {
  path: ["sort"],
  message: "relevance needs q",
});
export type OpportunityQuery = z.infer<typeof OpportunityQuerySchema>;

export const BlogQuerySchema = z.object({
  q: Q.optional().describe(
    "A question or keywords matched in the title or the excerpt " +
      "with the syntax of the opportunity list's q",
  ),
  page: Page,
  page_size: PageSize,
  cursor: Cursor,
});
export type BlogQuery = z.infer<typeof BlogQuerySchema>;

// An id is any integer: one that names nothing is a 404, not a 422 (docs/DECISIONS.md section 4).
export const OpportunityIdSchema = z.object({
  id: z.number().int("must be an integer").describe("Opportunity id"),
});

export const BlogSlugSchema = z.object({
  slug: cleanText(z.string().min(1, "must not be empty").max(200, "must be at most 200 characters"))
    .describe("Article slug, as in the url of a blog list item"),
});

export const TrendingQuerySchema = z.object({
  category: cleanText(z.string().max(100, "must be at most 100 characters")).optional().describe(
    "Only themes of this category slug",
  ),
  limit: intParam(1, 50, "How many themes, 1 to 50").default(10),
  window: TrendWindowSchema.default("30d").describe(
    "The growth window to sort by; without status, only themes growing 10% or more over it",
  ),
  status: TrendStatusSchema.optional().describe(
    "Only themes of this lifecycle status, whatever their growth",
  ),
});
export type TrendingQuery = z.infer<typeof TrendingQuerySchema>;

// ---- Records ---------------------------------------------------------------------------------

export const OpportunityListItemSchema = z.object({
  id: z.number().int(),
  platform: z.string(),
  channel_name: z.string(),
  title: z.string().describe("LLM-rewritten title, not the original post headline"),
  slug: z.string(),
  recommendation: z.enum(RECOMMENDATIONS),
  score: z.number().int().min(0).max(100).describe("Composite opportunity score, 0-100"),
  pain_point_intensity: z.number().int().min(0).max(10),
  willingness_to_pay_score: z.number().int().min(0).max(10),
  tech_difficulty: z.number().int().min(0).max(10),
  sustainability_score: z.number().int().min(0).max(10),
  target_audience: z.string(),
  monetization_model: z.string(),
  evidence_count: z.number().int(),
  merged_from_count: z.number().int(),
  is_online_deliverable: z.boolean(),
  created_at: DateTime,
  url: z.string().describe(
    "Canonical public page of the opportunity, {PUBLIC_BASE_URL}/opportunities/{id}/{slug}: " +
      "title, verdict and scores for anyone; the full record needs a key",
  ),
});
export type OpportunityListItem = z.infer<typeof OpportunityListItemSchema>;

export const EvidenceSchema = z.object({
  quote: z.string().describe("Scrubbed community quote: no user names, e-mails or phone numbers"),
  platform: z.string(),
  channel_name: z.string(),
  posted_at: DateTime,
  source_url: z.string().nullable().optional().describe(
    "The public thread the quote comes from (never a user's profile), null when unknown; " +
      "Pro and Business only: absent on Free",
  ),
});

export const OpportunityDetailSchema = OpportunityListItemSchema.extend({
  description: z.string(),
  market_size_estimate: z.string(),
  key_features: z.array(z.string()),
  competitors: z.array(z.string()),
  differentiation: z.string(),
  risks: z.array(z.string()),
  related_article_url: z.string().nullable(),
  evidence: z.array(EvidenceSchema).describe("Up to 5 supporting quotes, newest first"),
});
export type OpportunityDetail = z.infer<typeof OpportunityDetailSchema>;

function listOf<T extends z.ZodType>(item: T) {
  return z.object({
    items: z.array(item),
    total: z.number().int().describe("How many items the filters match in all"),
    page: z.number().int().nullable().describe(
      "The page number asked for; null for a page reached by cursor",
    ),
    page_size: z.number().int(),
    next_cursor: z.string().nullable().describe(
      "Pass as cursor (with the same filters and sort) for the next page; null on the last page",
    ),
  });
}

/** Which rows a list with `q` answers: those matching every significant word, or any of them. */
export const MatchSchema = z.enum(["all", "any"]).describe(
  "all: every item matches every significant word of q (also the answer without q); any: no " +
    "row matched them all, so the items are those matching the most words, best first",
);
export type MatchKind = z.infer<typeof MatchSchema>;

/** A category or theme to ask about instead (an answer's suggestions). */
export const SuggestionSchema = z.object({
  kind: z.enum(["category", "theme"]),
  slug: z.string(),
  name: z.string(),
  summary: z.string(),
  ask: z.object({ category: z.string().optional(), theme: z.string().optional() }).describe(
    "Ask again with these parameters: {category} or {theme}, each a slug",
  ),
  url: z.string().describe(
    "Public page of the theme or category (/themes/{slug}, /categories/{slug})",
  ),
});
export type Suggestion = z.infer<typeof SuggestionSchema>;

/** What a question became (docs/rest.md, "Reading a question"). */
export const ReadAsSchema = z.object({
  subject: z.string().nullable().describe(
    "The words matched: q less framing words and the category or theme it names",
  ),
  filters: z.object({
    category: z.string().optional(),
    theme: z.string().optional(),
    max_tech_difficulty: z.number().int().optional(),
    min_willingness_to_pay: z.number().int().optional(),
    min_pain_point_intensity: z.number().int().optional(),
    trend: z.enum(["up"]).optional(),
  }).describe(
    'Filters read from words, obeyed by the items ("low effort": max_tech_difficulty 4; ' +
      '"willingness to pay": min_willingness_to_pay 7; "painful": min_pain_point_intensity 7; ' +
      '"growing": trend up; a category or theme named: its slug). A parameter passed wins',
  ),
  meant_themes: z.array(z.string()).describe(
    "Theme slugs q means (sentence encoder); their opportunities answer too",
  ),
  by_meaning: z.boolean().describe("false: read by its words only (the encoder was not ready)"),
});
export type ReadAs = z.infer<typeof ReadAsSchema>;

/** How well an answer to `q` addresses it (docs/rest.md, the similarity scale). */
export const AnswerQualitySchema = z.object({
  confidence: z.number().nullable().describe(
    "How well the answer addresses q, 0-1: below 0.5 it does not (say so, rephrase or use a " +
      "suggestion); null without q or when q has only framing words",
  ),
  unmatched_terms: z.array(z.string()).describe(
    'Words of q nothing in the catalogue holds ("dentists"); [] without q',
  ),
  suggestions: z.array(SuggestionSchema).describe(
    "When confidence < 0.5: the nearest themes and categories, with how to ask for them",
  ),
  ignored_terms: z.array(z.string()).describe(
    'Words of q that changed nothing ("ideas", "what could I build"); [] without q',
  ),
  read_as: ReadAsSchema.nullable().describe("What q became; null without q"),
});

export const OpportunityListSchema = listOf(
  OpportunityListItemSchema.extend({
    relevance: z.number().optional().describe(
      "With q only: the share of q's weight the item holds (rare words weigh more, title above " +
        "description), 0-1",
    ),
  }),
).extend({ match: MatchSchema, ...AnswerQualitySchema.shape });
export type OpportunityList = z.infer<typeof OpportunityListSchema>;

export const BlogListItemSchema = z.object({
  slug: z.string(),
  title: z.string(),
  excerpt: z.string(),
  cover_image_url: z.string().nullable(),
  tags: z.array(z.string()),
  url: z.string().describe("Canonical public URL of the article"),
  related_opportunity_id: z.number().int().nullable(),
  published_at: DateTime.nullable(),
});
export type BlogListItem = z.infer<typeof BlogListItemSchema>;

export const BlogPostSchema = BlogListItemSchema.extend({
  body_md: z.string().describe("The article body as Markdown"),
  updated_at: DateTime.nullable(),
});
export type BlogPost = z.infer<typeof BlogPostSchema>;

export const BlogListSchema = listOf(BlogListItemSchema).extend({ match: MatchSchema });
export type BlogList = z.infer<typeof BlogListSchema>;

export const CategorySchema = z.object({
  id: z.number().int(),
  slug: z.string(),
  name: z.string(),
  description: z.string(),
  theme_count: z.number().int(),
  opportunity_count: z.number().int(),
  url: z.string().describe("Public page of the category, {PUBLIC_BASE_URL}/categories/{slug}"),
});
export type Category = z.infer<typeof CategorySchema>;

export const ThemeSchema = z.object({
  id: z.number().int(),
  slug: z.string(),
  name: z.string(),
  category: z.string().describe("Category slug"),
  summary: z.string(),
  trend_direction: z.enum(["up", "flat", "down"]),
  trend_change: z.number().describe(
    "Percent change of mentions in the last 30 days against the 30 before",
  ),
  mentions_30d: z.number().int(),
  mentions_prev_30d: z.number().int(),
  trend_status: TrendStatusSchema.nullable().describe(
    "Lifecycle status from the weekly mentions (rule in /docs/trends): emerging (from almost " +
      "nothing to a real volume), rising, steady, peaked (rose and is falling back), declining; " +
      "null for a theme without mention history",
  ),
  growth: GrowthSchema,
  opportunity_count: z.number().int(),
  avg_score: z.number().nullable().describe("Average opportunity score, null without any"),
  updated_at: DateTime,
  url: z.string().describe("Public page of the theme, {PUBLIC_BASE_URL}/themes/{slug}"),
});
export type Theme = z.infer<typeof ThemeSchema>;

export const OverviewSchema = z.object({
  categories: z.array(CategorySchema),
  trending: z.array(ThemeSchema).describe("Top 5 themes by trend_change"),
  totals: z.object({
    categories: z.number().int(),
    themes: z.number().int(),
    opportunities: z.number().int(),
  }),
  generated_at: DateTime,
});
export type Overview = z.infer<typeof OverviewSchema>;

export const CategoryListSchema = z.object({ items: z.array(CategorySchema) });
export const TrendingThemesSchema = z.object({ items: z.array(ThemeSchema) });
export type TrendingThemes = z.infer<typeof TrendingThemesSchema>;

export const ThemeDetailSchema = z.object({
  theme: ThemeSchema,
  weekly_mentions: WeeklyPointsSchema,
  top_opportunities: z.array(OpportunityListItemSchema).describe("Top 10 by score"),
});
export type ThemeDetail = z.infer<typeof ThemeDetailSchema>;
