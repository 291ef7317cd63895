/**
 * The import format: one JSON record a line, each with a `type` (category, theme, theme_mentions,
 * opportunity, blog_post), validated by the zod schemas below; and the slug an opportunity gets
 * from its title.
 */
import { MAX_INTEGER } from "../db/open.ts";
import { z } from "zod";
import { cleanText, RECOMMENDATIONS, SLUG_PATTERN } from "../catalog/schemas.ts";

// ---- Record schemas --------------------------------------------------------------------------

const Slug = z.string().regex(
  SLUG_PATTERN,
  "must be a slug of lowercase letters, digits and dashes",
);
// Text is checked here for everything PostgreSQL would refuse later with a message that names no
// line (NUL, a lone surrogate, which JSON.parse lets through as "\uD800"), and for other control
// characters: one-line fields (names, titles, identifiers, tags) allow none, multi-line ones
// (descriptions, quotes, bodies) tab and line breaks. Lengths are bounded well above real content
// and below what a search vector can hold (1 MB).
const Text = cleanText(z.string().max(50_000, "must be at most 50000 characters"), {
  multiline: true,
});
const Line = cleanText(z.string().max(500, "must be at most 500 characters"));
const Required = cleanText(
  z.string().trim().min(1, "must not be empty").max(500, "must be at most 500 characters"),
);
const Reference = cleanText(
  z.string().min(1, "must not be empty").max(500, "must be at most 500 characters"),
);
const DateTime = z.iso.datetime({
  offset: true,
  error: "must be an ISO 8601 date-time with a UTC offset",
})
  // What PostgreSQL can store: no year 0000, and offsets below 16 hours.
  .refine((value) => !value.startsWith("0000"), "must be in year 0001 or later")
  .refine(
    (value) => !/[+-](1[6-9]|2\d):?\d\d$/.test(value),
    "must have a UTC offset between -15:59 and +15:59",
  );
const Count = z.number().int("must be an integer").min(0, "must be at least 0")
  .max(MAX_INTEGER, `must be at most ${MAX_INTEGER}`);
const StringList = z.array(Text).default([]);
const Tags = z.array(Line).default([]);
// A URL a client may render as a link or an image: only absolute http and https, never
// `javascript:` or `data:`.
const WebUrl = cleanText(z.string().max(2000, "must be at most 2000 characters")).refine(
  (value) => /^https?:$/.test(URL.parse(value)?.protocol ?? ""),
  "must be an absolute http or https URL",
);

function range(min: number, max: number) {
  return z.number().int("must be an integer").min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max}`);
}

export const CategoryRecordSchema = z.object({
  type: z.literal("category"),
  slug: Slug,
  name: Required,
  description: Text.default(""),
});

export const ThemeRecordSchema = z.object({
  type: z.literal("theme"),
  slug: Slug,
  category: Reference,
  name: Required,
  summary: Text.default(""),
  mentions_30d: Count,
  mentions_prev_30d: Count,
});

// A calendar date; from a week ahead on, a point would move every theme's reference week.
const Day = z.iso.date({ error: "must be a date, YYYY-MM-DD" })
  .refine((value) => value >= "1900-01-01", "must be in 1900 or later")
  .refine(
    (value) => Date.parse(value) <= Date.now() + 7 * 86_400_000,
    "must not be more than a week ahead",
  );

/** One point of a theme's mention history: a day's mentions, or a week's dated by its first day. */
export const ThemeMentionsRecordSchema = z.object({
  type: z.literal("theme_mentions"),
  theme: Reference,
  date: Day,
  mentions: Count,
});

export const EvidenceRecordSchema = z.object({
  quote: cleanText(
    z.string().trim().min(1, "must not be empty").max(50_000, "must be at most 50000 characters"),
    { multiline: true },
  ),
  platform: Required,
  channel_name: Line.default(""),
  source_url: WebUrl.nullable().default(null),
  posted_at: DateTime,
});

export const OpportunityRecordSchema = z.object({
  type: z.literal("opportunity"),
  external_id: Required,
  theme: Reference,
  platform: Required,
  channel_name: Required,
  title: Required,
  recommendation: z.enum(RECOMMENDATIONS, "must be one of Build, Validate, Skip"),
  score: range(0, 100),
  pain_point_intensity: range(0, 10),
  willingness_to_pay_score: range(0, 10),
  tech_difficulty: range(0, 10),
  sustainability_score: range(0, 10),
  target_audience: Text.default(""),
  monetization_model: Text.default(""),
  /** Defaults to the number of quotes in `evidence`. */
  evidence_count: Count.optional(),
  merged_from_count: Count.default(0),
  is_online_deliverable: z.boolean("must be true or false"),
  created_at: DateTime,
  description: Text.default(""),
  market_size_estimate: Text.default(""),
  key_features: StringList,
  competitors: StringList,
  differentiation: Text.default(""),
  risks: StringList,
  evidence: z.array(EvidenceRecordSchema).default([]),
});

export const BlogPostRecordSchema = z.object({
  type: z.literal("blog_post"),
  slug: Slug,
  title: Required,
  excerpt: Text.default(""),
  body_md: cleanText(z.string().max(1_000_000, "must be at most 1000000 characters"), {
    multiline: true,
  }),
  cover_image_url: WebUrl.nullable().default(null),
  tags: Tags,
  related_opportunity: Reference.nullable().default(null),
  published_at: DateTime.nullable().default(null),
});

export type CategoryRecord = z.input<typeof CategoryRecordSchema>;
export type ThemeRecord = z.input<typeof ThemeRecordSchema>;
export type ThemeMentionsRecord = z.input<typeof ThemeMentionsRecordSchema>;
export type EvidenceRecord = z.input<typeof EvidenceRecordSchema>;
export type OpportunityRecord = z.input<typeof OpportunityRecordSchema>;
export type BlogPostRecord = z.input<typeof BlogPostRecordSchema>;
/** One line of an import file, as written (optional fields may be left out). */
export type ImportRecord =
  | CategoryRecord
  | ThemeRecord
  | ThemeMentionsRecord
  | OpportunityRecord
  | BlogPostRecord;

const RECORD_SCHEMAS = {
  category: CategoryRecordSchema,
  theme: ThemeRecordSchema,
  theme_mentions: ThemeMentionsRecordSchema,
  opportunity: OpportunityRecordSchema,
  blog_post: BlogPostRecordSchema,
} as const;

type RecordType = keyof typeof RECORD_SCHEMAS;

/** Parses and validates one line; throws the reason as a string for the caller to number. */
export function parseLine(text: string): ImportRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw `Invalid JSON: ${(error as Error).message}`;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw "Expected a JSON object";
  }
  const type = (value as { type?: unknown }).type;
  if (type === undefined) throw `Missing field "type"`;
  if (typeof type !== "string" || !Object.hasOwn(RECORD_SCHEMAS, type)) {
    throw `Unknown type ${
      JSON.stringify(type)
    } (expected category, theme, theme_mentions, opportunity or blog_post)`;
  }
  const result = RECORD_SCHEMAS[type as RecordType].safeParse(value, {
    error: (issue) => issue.input === undefined ? "is missing" : undefined,
  });
  if (!result.success) {
    const issue = result.error.issues[0];
    const path = issue.path.map((p) => typeof p === "number" ? `[${p}]` : `.${String(p)}`)
      .join("").replace(/^\./, "");
    throw path ? `Field "${path}" ${lowerFirst(issue.message)}` : issue.message;
  }
  return result.data as ImportRecord;
}

function lowerFirst(s: string): string {
  return s.charAt(0).toLowerCase() + s.slice(1);
}

// ---- Slugs -----------------------------------------------------------------------------------

/** A URL-style name from a title: lowercase ASCII words joined by dashes, at most 80 characters. */
export function slugify(title: string, maxLength = 80): string {
  const words = title.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase()
    .split(/[^a-z0-9]+/).filter(Boolean);
  let slug = "";
  for (const word of words) {
    const next = slug ? `${slug}-${word}` : word;
    if (next.length > maxLength) {
      if (!slug) slug = word.slice(0, maxLength);
      break;
    }
    slug = next;
  }
  return slug || "opportunity";
}
