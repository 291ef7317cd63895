/**
 * The trend tool as plain data, listed in TOOLS (tools.ts, which checks its shape): the history
 * of a theme. Pure, as tools.ts is (zod and the catalog's schema modules only).
 */
import { ThemeHistoryQuerySchema, ThemeHistorySchema } from "../catalog/trend_schemas.ts";

/** get_theme_history: a theme's mentions per week or month. */
export const THEME_HISTORY_TOOL = {
  name: "get_theme_history",
  title: "Theme history",
  description: "Returns a theme's mentions (by id or slug) as a time series, one point per " +
    "week or month, oldest first (periods without mentions are 0, the last may be incomplete), " +
    "with its lifecycle status (rule at /docs/trends). By " +
    'default the newest 26 points (earlier_points counts the others); detail "full" gives the ' +
    "whole span, or narrow it with from and to. Requires the Pro plan (or Business); 1 call " +
    "when found, nothing when unknown.",
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
