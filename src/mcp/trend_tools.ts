/**
 * The trend tool as plain data, listed in TOOLS (tools.ts, which checks its shape): the history
 * of a theme. Pure, as tools.ts is (zod and the catalog's schema modules only).
 */
import { ThemeHistoryQuerySchema, ThemeHistorySchema } from "../catalog/trend_schemas.ts";

/** get_theme_history: a theme's mentions per week or month. */
export const THEME_HISTORY_TOOL = {
  name: "get_theme_history",
  title: "Theme history",
  description: "Returns a theme's mentions as a time series, one point per week or month, " +
    "oldest first (periods without mentions are 0, the last may be incomplete), with its " +
    "lifecycle status, which the weekly points decide (rule at /docs/trends): did it rise " +
    "steadily, spike, or fade? One point per period of the span (52 a year by week). " +
    "Takes the theme's id or slug. Requires the Pro plan (or Business); 1 call when found, " +
    "nothing when unknown.",
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
