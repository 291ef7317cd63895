/**
 * The MCP tools of similar opportunities and idea match, as plain data (tools.ts adds the
 * annotations and lists them after query_opportunities). Pure, like tools.ts: zod schemas only.
 */
import { SimilarListSchema } from "../catalog/similar_schemas.ts";
import {
  IdeaMatchSchema,
  IdeaQuerySchema,
  SimilarQuerySchema,
} from "../catalog/similar_schemas.ts";

const PRO = "Requires the Pro plan (or Business); a Free key gets a plan_required error";

/** The two tools, in the order `tools/list` shows them. */
export const SIMILAR_TOOLS = [
  {
    name: "find_similar_opportunities",
    title: "Similar opportunities",
    description: 'Answers "what else is like this?": the opportunities nearest to one ' +
      "opportunity by the rare words of their titles and descriptions, nearest first, each " +
      "with a similarity from 0 to 1 (1.0 the same idea, below 0.5 not about the same thing; " +
      'at most 100, paged like query_opportunities). Example: {"id": 42}. Use it ' +
      `after query_opportunities or get_opportunity gave you an id. ${PRO}. Costs 1 call when ` +
      "found, nothing when the id is unknown.",
    tier: "pro",
    inputSchema: SimilarQuerySchema,
    outputSchema: SimilarListSchema,
    operation: "findSimilar",
  },
  {
    name: "match_idea",
    title: "Match an idea",
    description: 'Answers "here is my idea, what is near it?": give the idea in a sentence ' +
      "or a paragraph (up to 1,000 characters) and get the nearest themes (with their trend " +
      "direction and change) and the nearest opportunities (with evidence_count and " +
      "competitors), each with a similarity from 0 to 1 (1.0 the same idea), the words that " +
      "were matched and unmatched_terms, the idea's words nothing in the catalogue holds. If " +
      "the best similarity is below 0.5, nothing addresses the idea: say so, naming the " +
      'unmatched terms ("nothing on dentists"), or ask again in other words. ' +
      'Example: {"text": "An app that helps freelance designers chase late invoices"}. ' +
      `${PRO}. Costs 1 call; a blank or too long text is an invalid_parameter error, free.`,
    tier: "pro",
    inputSchema: IdeaQuerySchema,
    outputSchema: IdeaMatchSchema,
    operation: "matchIdea",
  },
] as const;
