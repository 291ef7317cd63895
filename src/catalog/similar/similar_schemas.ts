/**
 * Parameters and answers of similar opportunities and idea match (src/catalog/similar/similar.ts),
 * shared by REST, MCP and the OpenAPI document. Pure (zod only), like schemas.ts.
 */
import * as z from "zod";
import { splitLongWords } from "../../platform/text.ts";
import { cleanText, OpportunityListItemSchema, SuggestionSchema, ThemeSchema } from "../schemas.ts";

const Similarity = z.number().min(0).max(1).describe(
  "How near, 0 to 1: 1.0 the same idea; below 0.5 it does not address it (rarer words weigh " +
    "more, words nothing holds count against; see docs/rest.md, the similarity scale)",
);

export const SimilarQuerySchema = z.object({
  id: z.number().int("must be an integer").describe("Opportunity id"),
  page: z.number().int("must be an integer").min(1, "must be at least 1").default(1)
    .describe("Page number, starting at 1"),
  page_size: z.number().int("must be an integer").min(1, "must be at least 1")
    .max(100, "must be at most 100").default(20).describe("Items per page, 1 to 100"),
});
export type SimilarQuery = z.infer<typeof SimilarQuerySchema>;

export const SimilarItemSchema = OpportunityListItemSchema.extend({ similarity: Similarity });

const Confidence = z.number().describe(
  "The best similarity, 0 when none: below 0.5 nothing addresses it (say so or rephrase)",
);

export const SimilarListSchema = z.object({
  items: z.array(SimilarItemSchema).describe("Nearest first (ties by score, then id)"),
  confidence: Confidence,
  total: z.number().int().describe("How many similar opportunities there are (at most 100)"),
  page: z.number().int(),
  page_size: z.number().int(),
});
export type SimilarList = z.infer<typeof SimilarListSchema>;

export const IdeaQuerySchema = z.object({
  text: cleanText(
    z.string().max(1000, "must be at most 1000 characters").refine(
      (text) => text.trim() !== "",
      "must not be blank",
    ),
    { multiline: true },
  ).overwrite(splitLongWords).describe(
    // A paragraph in Chinese, Japanese or Thai is one "word" to the text search, which refuses
    // words over 2,047 bytes: it is read in pieces instead (splitLongWords).
    "The idea in a sentence or a paragraph, for example " +
      '"An app that helps freelance designers chase late invoices"',
  ),
  limit: z.number().int("must be an integer").min(1, "must be at least 1")
    .max(50, "must be at most 50").default(10)
    .describe("How many themes and how many opportunities, 1 to 50 (default 10)"),
});
export type IdeaQuery = z.infer<typeof IdeaQuerySchema>;

export const IdeaMatchSchema = z.object({
  terms: z.array(z.string()).describe(
    "The significant words of the idea that were matched (English stems), rarest first",
  ),
  unmatched_terms: z.array(z.string()).describe(
    'The idea\'s significant words that no opportunity holds, as written (e.g. "dentists"): ' +
      "say the catalogue has nothing on them, or rephrase",
  ),
  confidence: Confidence,
  suggestions: z.array(SuggestionSchema).describe(
    "When confidence < 0.5: the nearest themes and categories, with how to ask for them",
  ),
  themes: z.array(ThemeSchema.extend({ similarity: Similarity })).describe(
    "Nearest themes with their trend, by the best similarity of their opportunities",
  ),
  opportunities: z.array(
    OpportunityListItemSchema.extend({
      competitors: z.array(z.string()),
      similarity: Similarity,
    }),
  ).describe("Nearest opportunities, each with its evidence_count and competitors"),
});
export type IdeaMatch = z.infer<typeof IdeaMatchSchema>;
