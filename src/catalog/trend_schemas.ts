/**
 * The schemas of theme trends, shared by REST, MCP and the OpenAPI document: the status and
 * growth of a theme, its weekly points, and the history query and answer.
 */
import * as z from "zod";
import { GROWTH_WINDOWS, TREND_STATUSES } from "./trend_rule.ts";
import { THEME_REF_FIELDS, themeRefProblem } from "./theme_ref.ts";

export const TREND_WINDOWS = Object.keys(GROWTH_WINDOWS) as (keyof typeof GROWTH_WINDOWS)[];
export const HISTORY_INTERVALS = ["week", "month"] as const;

export const TrendStatusSchema = z.enum(
  TREND_STATUSES,
  `must be one of ${TREND_STATUSES.join(", ")}`,
);

export const TrendWindowSchema = z.enum(
  TREND_WINDOWS as ["7d", "30d", "90d", "1y"],
  "must be one of 7d, 30d, 90d, 1y",
);

const Growth = z.number().nullable();

export const GrowthSchema = z.object({
  "7d": Growth.describe("The last week against the week before, percent; null without history"),
  "30d": z.number().describe("The last 30 days against the 30 before, percent (= trend_change)"),
  "90d": Growth.describe("The last 13 weeks against the 13 before, percent; null without history"),
  "1y": Growth.describe("The last 52 weeks against the 52 before, percent; null without history"),
}).describe(
  "Percent change of mentions over each window against the window before it, one decimal; " +
    "from nothing to something counts as +100; null when the theme's history is shorter than " +
    "the two windows",
);

export const PointSchema = z.object({
  start: z.iso.date().describe("First day of the period (a Monday for weeks)"),
  mentions: z.number().int().describe("Mentions counted in the period"),
});

export const WeeklyPointsSchema = z.array(PointSchema).describe(
  "The last 26 weeks of mentions up to the newest week of data, oldest first (empty for a " +
    "theme without history); the last week may be incomplete",
);

const Day = z.iso.date("must be a date, YYYY-MM-DD");

export const ThemeHistoryQuerySchema = z.object({
  ...THEME_REF_FIELDS,
  interval: z.enum(HISTORY_INTERVALS, "must be one of week, month").default("week").describe(
    "Points per week (Monday to Sunday, default) or per calendar month",
  ),
  from: Day.optional().describe(
    "First day to count, YYYY-MM-DD (default: the theme's first point)",
  ),
  to: Day.optional().describe("Last day to count, YYYY-MM-DD (default: the newest data)"),
}).superRefine((q, ctx) => {
  const problem = themeRefProblem(q) ??
    (q.from && q.to && q.from > q.to ? { path: ["from"], message: "must not be after to" } : null);
  if (problem) ctx.addIssue({ code: "custom", ...problem, input: q });
});
export type ThemeHistoryQuery = z.infer<typeof ThemeHistoryQuerySchema>;

export const ThemeHistorySchema = z.object({
  theme: z.object({
    id: z.number().int(),
    slug: z.string(),
    name: z.string(),
    category: z.string().describe("Category slug"),
    trend_status: TrendStatusSchema.nullable(),
    url: z.string().describe("Public page of the theme, {PUBLIC_BASE_URL}/themes/{slug}"),
  }),
  interval: z.enum(HISTORY_INTERVALS),
  from: z.iso.date().nullable().describe("First day counted (null when nothing is)"),
  to: z.iso.date().nullable().describe("Last day counted (null when nothing is)"),
  points: z.array(PointSchema).describe(
    "One point per period from the first to the last, oldest first, periods without " +
      "mentions as 0; a period cut by from or to counts only its days within them",
  ),
  total_mentions: z.number().int(),
});
export type ThemeHistory = z.infer<typeof ThemeHistorySchema>;
