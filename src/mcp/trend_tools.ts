/**
 * The trend tool as plain data, listed in TOOLS (tools.ts, which checks its shape): the history
 * of a theme. Pure, as tools.ts is (zod and the catalog's schema modules only).
 */
import { ThemeHistoryQuerySchema, ThemeHistorySchema } from "../catalog/trend_schemas.ts";

/** get_theme_history: a theme's mentions per week or month. */
export const THEME_HISTORY_TOOL = {
  name: "get_theme_history",
  title: "Theme history",
  description: "Returns a theme's mentions over time, one point per week (Monday to Sunday) or " +
    "per calendar month, oldest first, between `from` and `to` (YYYY-MM-DD; by default its " +
    "whole history up to the newest data), with its lifecycle status. Read it as a time " +
    "series: periods without mentions are 0, the last period may be incomplete, and a theme's " +
    "trend_status and growth (get_theme, list_trending_themes) are computed from these weekly " +
    "points by the rule at /docs/trends. Use it after get_theme or list_trending_themes to see " +
    "whether a theme rose steadily, spiked, or is fading. Requires the Pro plan (or Business); " +
    "a Free key gets a plan_required error. Costs 1 call when found, nothing when the id is " +
    "unknown.",
  tier: "pro",
  inputSchema: ThemeHistoryQuerySchema,
  outputSchema: ThemeHistorySchema,
  annotations: {
    readOnlyHint: true,
    openWorldHint: false,
    idempotentHint: true,
    destructiveHint: false,
  },
  operation: "getThemeHistory",
} as const;
