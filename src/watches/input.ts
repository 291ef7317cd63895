/**
 * Reading a watch's JSON body: the body schemas with every problem named by its dotted path
 * (`query.min_score`, `deliveries.webhook.url`), no control characters in any text, and the
 * query validated by the very schema of GET /api/v1/opportunities.
 */
import type { z } from "zod";
import { parseInput, parseParams } from "../catalog/params.ts";
import { OpportunityQuerySchema } from "../catalog/schemas.ts";
import { InvalidParameterError, type ParameterProblem } from "../platform/errors.ts";
import type { WatchQuery } from "./schemas.ts";

// PostgreSQL stores no NUL, and no other C0 control belongs in these texts.
// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F]/;

function controlProblems(value: unknown, path: string): ParameterProblem[] {
  if (typeof value === "string") {
    return CONTROL.test(value)
      ? [{ param: path, message: "must not contain control characters" }]
      : [];
  }
  if (value && typeof value === "object") {
    return Object.entries(value).flatMap(([k, v]) => controlProblems(v, path ? `${path}.${k}` : k));
  }
  return [];
}

/** Validates a JSON body with `schema`; every problem is named by its dotted path. */
export function validate<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const control = controlProblems(input, "");
  if (control.length) throw new InvalidParameterError(control);
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const problems: ParameterProblem[] = [];
  for (const issue of parsed.error.issues) {
    const param = issue.path.map(String).join(".") || "body";
    if (!problems.some((p) => p.param === param)) problems.push({ param, message: issue.message });
  }
  throw new InvalidParameterError(problems);
}

/** The list query of a watch, validated by the schema of GET /api/v1/opportunities. */
export function parseWatchQuery(input: Record<string, unknown> | string): WatchQuery {
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
  const q = parsed.q?.trim();
  return {
    ...(q ? { q } : {}),
    ...(parsed.platform ? { platform: parsed.platform } : {}),
    ...(parsed.channel ? { channel: parsed.channel } : {}),
    min_score: parsed.min_score,
    ...(parsed.recommendation ? { recommendation: parsed.recommendation } : {}),
    ...(parsed.category ? { category: parsed.category } : {}),
    online_only: parsed.online_only,
  };
}
