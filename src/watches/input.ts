/**
 * Reading a watch's JSON body: the body schemas with every problem named by its dotted path
 * (`query.min_score`, `deliveries.webhook.url`), no control characters or unpaired surrogates in
 * any text, no unknown field, and the query validated by the very schema of
 * GET /api/v1/opportunities.
 */
import type { z } from "zod";
import { parseInput, parseParams } from "../catalog/params.ts";
import { OpportunityQuerySchema } from "../catalog/schemas.ts";
import { textProblem } from "../platform/text.ts";
import { searchText } from "../catalog/common.ts";
import { InvalidParameterError, type ParameterProblem } from "../platform/errors.ts";
import type { WatchQuery } from "./schemas.ts";
import { SUB_SCORE_FILTERS } from "../catalog/lists/sub_scores.ts";

// A watch's body is at most three levels deep (deliveries.webhook.url); deeper nesting is refused
// before anything walks it (thousands of levels would exhaust the stack).
const MAX_DEPTH = 8;

// PostgreSQL stores no NUL, no other control character belongs in these texts, and an unpaired
// surrogate cannot be written as UTF-8 at all.
function textProblems(value: unknown, path: string, depth = 0): ParameterProblem[] {
  if (typeof value === "string") {
    const problem = textProblem(value);
    return problem ? [{ param: path || "body", message: problem }] : [];
  }
  if (value && typeof value === "object") {
    if (depth >= MAX_DEPTH) return [{ param: path || "body", message: "is nested too deeply" }];
    return Object.entries(value).flatMap(([k, v]) =>
      textProblems(v, path ? `${path}.${k}` : k, depth + 1)
    );
  }
  return [];
}

/** Validates a JSON body with `schema`; every problem is named by its dotted path. */
export function validate<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const text = textProblems(input, "");
  if (text.length) throw new InvalidParameterError(text);
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const problems: ParameterProblem[] = [];
  const add = (param: string, message: string) => {
    if (!problems.some((p) => p.param === param)) problems.push({ param, message });
  };
  for (const issue of parsed.error.issues) {
    const param = issue.path.map(String).join(".");
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) add(param ? `${param}.${key}` : key, "is not a known field");
    } else add(param || "body", issue.message);
  }
  throw new InvalidParameterError(problems);
}

/** The list query of a watch, validated by the schema of GET /api/v1/opportunities. */
export function parseWatchQuery(input: Record<string, unknown> | string): WatchQuery {
  const names = typeof input === "string"
    ? [...new URLSearchParams(input).keys()]
    : Object.keys(input);
  const unknown = [...new Set(names)].filter((name) => !(name in OpportunityQuerySchema.shape));
  if (unknown.length) {
    throw new InvalidParameterError(
      unknown.map((name) => ({
        param: `query.${name}`,
        message: "is not a parameter of the list query",
      })),
    );
  }
  let parsed;
  try {
    parsed = typeof input === "string"
      ? parseParams(OpportunityQuerySchema, new URLSearchParams(input))
      : parseInput(OpportunityQuerySchema, input);
  } catch (error) {
    if (!(error instanceof InvalidParameterError)) throw error;
    throw new InvalidParameterError(
      error.details.map((d) => ({ param: `query.${d.param}`, message: d.message })),
    );
  }
  // Stored as the lists search it, so that the watch's tsq (sql/0005_watches.sql) is the list's.
  const q = searchText(parsed.q);
  return {
    ...(q ? { q } : {}),
    ...(parsed.platform ? { platform: parsed.platform } : {}),
    ...(parsed.channel ? { channel: parsed.channel } : {}),
    min_score: parsed.min_score,
    ...(parsed.recommendation ? { recommendation: parsed.recommendation } : {}),
    ...(parsed.category ? { category: parsed.category } : {}),
    ...(parsed.theme ? { theme: parsed.theme } : {}),
    online_only: parsed.online_only,
    ...subScoreBounds(parsed),
  };
}

/** The sub-score bounds a query gives (a bound that removes nothing is kept as given). */
function subScoreBounds(parsed: Partial<Record<string, unknown>>): Partial<WatchQuery> {
  return Object.fromEntries(
    SUB_SCORE_FILTERS.filter((name) => parsed[name] !== undefined).map((name) => [
      name,
      parsed[name],
    ]),
  );
}
