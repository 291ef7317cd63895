/**
 * Slugs, and a theme named by its id or its slug: the input of get_theme and get_theme_history
 * (REST: the path segment of /api/v1/themes/{id}, digits an id, anything else a slug). Pure (zod
 * only), like schemas.ts, which imports it: trend_schemas.ts needs it too, and schemas.ts imports
 * trend_schemas.ts.
 */
import * as z from "zod";

/** A slug pattern: lowercase ASCII letters and digits in words joined by single dashes. */
export const SLUG_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/** A theme as a query names it: exactly one of the two (themeRefProblem). */
export type ThemeRef = { id: number; slug?: undefined } | { slug: string; id?: undefined };

/**
 * The fields that name a theme, both optional: themeRefProblem asks for exactly one. A slug
 * given as `id` is refused with a word on where it goes: a client that checks arguments against
 * the tool's schema (integer) refuses it anyway, so the server says the same.
 */
export const THEME_REF_FIELDS = {
  id: z.number({
    error: (issue) =>
      typeof issue.input === "string"
        ? "must be an integer (a slug goes in slug)"
        : "must be an integer",
  }).int("must be an integer").optional().describe("Theme id"),
  slug: z.string().max(200, "must be at most 200 characters")
    .regex(SLUG_PATTERN, "must be a slug of lowercase letters, digits and dashes").optional()
    .describe("Or its slug (as suggestions and pages name it)"),
};

/** The issue of a query that names no theme or names it twice, else undefined. */
export function themeRefProblem(ref: { id?: number; slug?: string }) {
  if (ref.id === undefined && ref.slug === undefined) {
    return { path: ["id"], message: "is required: give id or slug" };
  }
  if (ref.id !== undefined && ref.slug !== undefined) {
    return { path: ["slug"], message: "give id or slug, not both" };
  }
  return undefined;
}

/** A theme named by id or slug (exactly one). */
export const ThemeRefSchema = z.object(THEME_REF_FIELDS).superRefine((ref, ctx) => {
  const problem = themeRefProblem(ref);
  if (problem) ctx.addIssue({ code: "custom", ...problem, input: ref });
});

/** The ref of a parsed query (its refinement made sure exactly one is given). */
export function themeRefOf(query: { id?: number; slug?: string }): ThemeRef {
  return query.slug !== undefined ? { slug: query.slug } : { id: query.id! };
}
