/**
 * The `search` and `fetch` tools in the shapes OpenAI documents for ChatGPT connectors and deep
 * research (platform.openai.com/docs/mcp): `search(query)` answers `{results: [{id, title, url}]}`
 * and `fetch(id)` answers `{id, title, text, url, metadata}`. A result is cited only when its
 * `url` is a non-empty string, so every result carries a public page: an opportunity's canonical
 * page, an article's page, or the plans section of the home page. Ids name their kind:
 * `opportunity:123`, `article:slug`, and `page:plans` (the result a Free key's search adds in
 * place of opportunities, so that the shape stays exactly OpenAI's). Pure: the queries are the
 * list and detail operations of the tools these stand for (src/metering/operations.ts).
 */
import { UNREAD } from "../meaning/reading.ts";
import * as z from "zod";
import type { BlogList, BlogPost, OpportunityDetail, OpportunityList } from "../schemas.ts";
import { AnswerQualitySchema, cleanText, SLUG_PATTERN } from "../schemas.ts";

/** Opportunities and articles a search returns at most. */
export const SEARCH_OPPORTUNITIES = 10;
export const SEARCH_ARTICLES = 5;

/** The id of the plans page, the result that stands for opportunities a Free key cannot search. */
export const PLANS_ID = "page:plans";

export const SearchInputSchema = z.object({
  query: cleanText(z.string().max(100, "must be at most 100 characters")).describe(
    "What to look for: keywords in web-search syntax, matched in the " +
      "titles and descriptions of opportunities and the titles and excerpts of articles " +
      '(word prefixes, "quoted phrases", -exclusions, OR)',
  ),
});

const DOCUMENT_ID = /^(?:opportunity:\d{1,10}|article:[a-z0-9]+(?:-[a-z0-9]+)*|page:plans)$/;

export const FetchInputSchema = z.object({
  id: cleanText(z.string().max(210, "must be at most 210 characters"))
    .refine((id) => DOCUMENT_ID.test(id), {
      message: "must be an id from search: opportunity:<number>, article:<slug> or page:plans",
    })
    .describe("The id of a search result: opportunity:<number>, article:<slug> or page:plans"),
});

export const SearchResultSchema = z.object({
  id: z.string().describe("Pass it to fetch: opportunity:<number>, article:<slug> or page:plans"),
  title: z.string().describe("The opportunity's or the article's title"),
  url: z.string().describe("The public page to cite"),
});

export const SearchResultsSchema = z.object({
  results: z.array(SearchResultSchema).describe(
    "Opportunities (best match first) then articles; for a Free key, articles then the plans " +
      "page (page:plans), which says that opportunities are searched on the Pro plan",
  ),
  // How well the opportunities answer the query, as query_opportunities says it.
  ...AnswerQualitySchema.shape,
});
export type SearchResults = z.infer<typeof SearchResultsSchema>;

export const DocumentSchema = z.object({
  id: z.string().describe("The id that was fetched"),
  title: z.string().describe("The title"),
  text: z.string().describe("The whole record or article as text (Markdown)"),
  url: z.string().describe("The public page to cite"),
  metadata: z.record(
    z.string(),
    z.union([z.string(), z.number(), z.boolean(), z.null()]),
  ).describe("Facts about the document: kind, and score and verdict or publication date"),
});
export type Document = z.infer<typeof DocumentSchema>;

/** What a fetch id names, once FetchInputSchema has checked its form. */
export type DocumentRef =
  | { kind: "opportunity"; id: number }
  | { kind: "article"; slug: string }
  | { kind: "plans" };

/** Reads a checked fetch id. */
export function documentRef(id: string): DocumentRef {
  const [kind, rest] = [id.slice(0, id.indexOf(":")), id.slice(id.indexOf(":") + 1)];
  if (kind === "opportunity") return { kind, id: Number(rest) };
  if (kind === "article" && SLUG_PATTERN.test(rest)) return { kind, slug: rest };
  return { kind: "plans" };
}

/** The results of a search: the opportunities found, or the plans page for a Free key. */
export function searchResults(
  opportunities: OpportunityList | "plans",
  articles: BlogList,
  base: string,
): SearchResults {
  const found = articles.items.map((a) => ({
    id: `article:${a.slug}`,
    title: a.title,
    url: a.url,
  }));
  if (opportunities === "plans") {
    return {
      results: [...found, { id: PLANS_ID, title: PLANS_TITLE, url: plansUrl(base) }],
      ...UNJUDGED,
    };
  }
  return {
    confidence: opportunities.confidence,
    unmatched_terms: opportunities.unmatched_terms,
    suggestions: opportunities.suggestions,
    ignored_terms: opportunities.ignored_terms,
    read_as: opportunities.read_as,
    results: [
      ...opportunities.items.map((o) => ({
        id: `opportunity:${o.id}`,
        title: o.title,
        url: o.url,
      })),
      ...found,
    ],
  };
}

/** No opportunities searched: nothing to judge. */
const UNJUDGED = { confidence: null, unmatched_terms: [], suggestions: [], ...UNREAD };

const PLANS_TITLE = "Opportunities are searched on the Pro plan: this key's Free plan covers " +
  "articles only (fetch still reads any opportunity by id)";

function plansUrl(base: string): string {
  return `${base}/#plans-title`;
}

/** The plans page as a document. */
export function plansDocument(base: string): Document {
  return {
    id: PLANS_ID,
    title: "Plans of Opportunity Intelligence",
    text: [
      "Search covers articles on every plan, and opportunities on the Pro and Business plans.",
      "A Free key's search returns articles only; fetch reads any opportunity by its id on " +
      "every plan (1 call of the monthly quota; articles are free).",
      "Monthly calls: Free 20, Pro 1,000, Business 5,000. Plans are changed from the account " +
      `page: ${base}/account`,
    ].join("\n\n"),
    url: plansUrl(base),
    metadata: { kind: "page" },
  };
}

function list(items: string[]): string {
  return items.length === 0 ? "(none)" : items.map((item) => `- ${item}`).join("\n");
}

/** An opportunity's full record as a document. */
export function opportunityDocument(o: OpportunityDetail): Document {
  const text = [
    `# ${o.title}`,
    `Verdict: ${o.recommendation}. Score ${o.score}/100: pain point intensity ` +
    `${o.pain_point_intensity}/10, willingness to pay ${o.willingness_to_pay_score}/10, ` +
    `technical difficulty ${o.tech_difficulty}/10, sustainability ${o.sustainability_score}/10.`,
    `Audience: ${o.target_audience || "broad"}. Monetization: ${o.monetization_model || "open"}. ` +
    `Market size: ${o.market_size_estimate || "not estimated"}. Can ship as software: ` +
    `${o.is_online_deliverable ? "yes" : "no"}.`,
    `Found on ${o.platform} (${o.channel_name}); ${o.evidence_count} community posts, merged ` +
    `from ${o.merged_from_count}.`,
    `## Description\n\n${o.description}`,
    `## Key features\n\n${list(o.key_features)}`,
    `## Competitors\n\n${list(o.competitors)}`,
    `## Differentiation\n\n${o.differentiation || "(none)"}`,
    `## Risks\n\n${list(o.risks)}`,
    `## Evidence, newest first\n\n${
      list(o.evidence.map((e) =>
        `"${e.quote}" (${e.platform}, ${e.channel_name}, ${e.posted_at}` +
        (e.source_url ? `, ${e.source_url})` : ")")
      ))
    }`,
    ...(o.related_article_url ? [`Related article: ${o.related_article_url}`] : []),
  ].join("\n\n");
  return {
    id: `opportunity:${o.id}`,
    title: o.title,
    text,
    url: o.url,
    metadata: {
      kind: "opportunity",
      score: o.score,
      recommendation: o.recommendation,
      created_at: o.created_at,
      related_article_url: o.related_article_url,
    },
  };
}

/** An article as a document: its Markdown body. */
export function articleDocument(post: BlogPost): Document {
  return {
    id: `article:${post.slug}`,
    title: post.title,
    text: post.body_md,
    url: post.url,
    metadata: {
      kind: "article",
      published_at: post.published_at,
      updated_at: post.updated_at,
      tags: post.tags.join(", "),
      related_opportunity_id: post.related_opportunity_id,
    },
  };
}
