/**
 * The MCP tools of similar opportunities and idea match, as plain data (tools.ts adds the
 * annotations and lists them after query_opportunities). Pure, like tools.ts: zod schemas only.
 */
import { OPPORTUNITY_BRIEF, THEME_BRIEF } from "./listing.ts";
import { FULL, PAGES } from "../catalog/compact.ts";
import { SimilarListSchema } from "../catalog/similar/similar_schemas.ts";
import {
  IdeaMatchSchema,
  IdeaQuerySchema,
  SimilarQuerySchema,
} from "../catalog/similar/similar_schemas.ts";

const PRO = "Requires the Pro plan (or Business)";

/** The two tools, in the order `tools/list` shows them. */
export const SIMILAR_TOOLS = [
  {
    name: "find_similar_opportunities",
    title: "Similar opportunities",
    description: 'Answers "what else is like this?": the opportunities nearest to one by the ' +
      "rare words of their texts, nearest first, each with a similarity from 0 " +
      "to 1 (below 0.5 not the same thing), at most 100, items as " +
      `query_opportunities lists them; ${PAGES}; ${FULL}: every field (1.5 KB an item). ${PRO}; ` +
      "1 call when " +
      "found, nothing when the id is unknown.",
    tier: "pro",
    inputSchema: SimilarQuerySchema,
    outputSchema: SimilarListSchema,
    // confidence (the best similarity) is answered too; the description says.
    outputBriefs: {
      "": ["items", "total", "page", "page_size"],
      items: [...OPPORTUNITY_BRIEF, "similarity"],
    },
    operation: "findSimilar",
  },
  {
    name: "match_idea",
    title: "Match an idea",
    description: 'Answers "here is my idea, what is near it?": up to `limit` (default 5) ' +
      "nearest themes (as list_trending_themes lists them) and opportunities (as " +
      `query_opportunities; ${FULL}: every field, with competitors, 2 KB a pair), each with a ` +
      "similarity " +
      "from 0 to 1 (1.0 the same idea), the words matched " +
      "and unmatched_terms (words nothing holds). Confidence below " +
      "0.5: nothing addresses the idea: say so or use a suggestion. " +
      `${PRO}; 1 call.`,
    tier: "pro",
    inputSchema: IdeaQuerySchema,
    outputSchema: IdeaMatchSchema,
    outputBriefs: {
      // confidence and suggestions as query_opportunities answers them (the description says).
      "": ["terms", "unmatched_terms", "themes", "opportunities"],
      themes: [...THEME_BRIEF, "similarity"],
      opportunities: [...OPPORTUNITY_BRIEF, "evidence_count", "competitors", "similarity"],
    },
    operation: "matchIdea",
  },
] as const;
