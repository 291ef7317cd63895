/**
 * What the model reads first on `initialize` (and in the 2026-07-28 discovery): what the service
 * holds, where to start, what an answer holds by default, what each tool costs and the plan each
 * needs, named from TOOLS so that a new tool cannot be left out. Pure, like tools.ts: the npm
 * stdio package sends the same text.
 */
import { TOOLS } from "./tools.ts";

/** The names of the tools a plan needs, in listing order. */
function toolsOf(tier: "free" | "pro"): string {
  return TOOLS.filter((tool) => tool.tier === tier).map((tool) => tool.name).join(", ");
}

/** Shown to the model on `initialize`. */
export const INSTRUCTIONS =
  "Opportunity Intelligence: validated business opportunities mined from community " +
  "discussions, grouped into themes and categories, plus long-form research articles. " +
  "Start with get_overview for categories and trending themes; use query_opportunities to " +
  "search (a question or keywords) and get_opportunity for the full record with evidence " +
  "quotes. Answers are compact by default (under 8 KB: the fields needed to choose, long " +
  'texts cut with "…" and truncated: true, remaining items counted); detail: "full" gives ' +
  "every field. Every theme and category has a slug and a url to cite. " +
  `Every plan: ${toolsOf("free")}. Pro plan (or Business): ${toolsOf("pro")}. ` +
  "Watches (create_watch, list_watches, delete_watch): every plan. " +
  "Blog tools, watches and get_usage are free of charge; other calls use the monthly quota, except " +
  "the same call again within 24 hours on the same data; a failed call is never charged. " +
  "search and fetch (for ChatGPT connectors and deep research) find and read opportunities " +
  "and articles, priced as the tools they stand for.";
