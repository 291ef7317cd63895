/**
 * Query-string parsing for REST (docs/DECISIONS.md section 4): strings are turned into the types the
 * shared zod schema expects (read from its JSON Schema), then the schema validates. Every bad
 * parameter gives one `details` entry of a single 422.
 */
import { z } from "zod";
import { InvalidParameterError, type ParameterProblem } from "../platform/errors.ts";

interface FieldType {
  type?: string;
  enum?: string[];
}

const fieldTypes = new WeakMap<z.ZodObject, Record<string, FieldType>>();

function typesOf(schema: z.ZodObject): Record<string, FieldType> {
  let types = fieldTypes.get(schema);
  if (!types) {
    const json = z.toJSONSchema(schema, { io: "input" }) as {
      properties: Record<string, FieldType>;
    };
    types = json.properties;
    fieldTypes.set(schema, types);
  }
  return types;
}

function convert(value: string, field: FieldType): { value?: unknown; problem?: string } {
  if (field.type === "integer") {
    return /^-?\d+$/.test(value) ? { value: Number(value) } : { problem: "must be an integer" };
  }
  if (field.type === "boolean") {
    const v = value.toLowerCase();
    if (v === "true" || v === "1") return { value: true };
    if (v === "false" || v === "0") return { value: false };
    return { problem: "must be true or false" };
  }
  if (field.enum) {
    const match = field.enum.find((e) => e.toLowerCase() === value.toLowerCase());
    return match ? { value: match } : { problem: `must be one of ${field.enum.join(", ")}` };
  }
  return { value };
}

/**
 * Parses `params` (query string and path parameters) with `schema`. A parameter given twice is
 * refused, an empty one counts as absent, and parameters the schema does not know are ignored.
 */
export function parseParams<S extends z.ZodObject>(
  schema: S,
  params: URLSearchParams | Record<string, string>,
): z.infer<S> {
  const search = params instanceof URLSearchParams ? params : new URLSearchParams(params);
  const problems: ParameterProblem[] = [];
  const input: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(typesOf(schema))) {
    const values = search.getAll(name);
    if (values.length > 1) {
      problems.push({ param: name, message: "must be given only once" });
      continue;
    }
    if (values.length === 0 || values[0] === "") continue;
    const { value, problem } = convert(values[0], field);
    if (problem) problems.push({ param: name, message: problem });
    else input[name] = value;
  }
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const param = String(issue.path[0] ?? "");
      if (!problems.some((p) => p.param === param)) {
        problems.push({ param, message: issue.message });
      }
    }
  }
  if (problems.length > 0) throw new InvalidParameterError(problems);
  return parsed.data as z.infer<S>;
}

/**
 * Parses the query string of `url` with `schema`, as parseParams does, after checking that every
 * parameter the schema knows is well percent-encoded: `%` followed by two hex digits, decoding to
 * UTF-8. URLSearchParams would pass `%zz` on as it is and turn bad UTF-8 into U+FFFD, silently
 * searching for something the client did not send.
 */
export function parseQuery<S extends z.ZodObject>(schema: S, url: URL): z.infer<S> {
  const known = typesOf(schema);
  const problems: ParameterProblem[] = [];
  for (const part of url.search.slice(1).split("&")) {
    if (part === "") continue;
    const [name] = new URLSearchParams(part).keys();
    if (name === undefined || !Object.hasOwn(known, name)) continue;
    if (!isWellEncoded(part) && !problems.some((p) => p.param === name)) {
      problems.push({ param: name, message: "is not valid percent-encoding" });
    }
  }
  if (problems.length > 0) throw new InvalidParameterError(problems);
  return parseParams(schema, url.searchParams);
}

/** True when `part` (a `name=value` of a query string) decodes as percent-encoded UTF-8. */
export function isWellEncoded(part: string): boolean {
  try {
    decodeURIComponent(part.replaceAll("+", " "));
    return true;
  } catch {
    return false;
  }
}

/**
 * Validates already-typed input (MCP tool arguments) with the same messages and 422 shape, and
 * the same leniency as REST for enums: any case is accepted and answered in canonical case.
 */
export function parseInput<S extends z.ZodObject>(schema: S, input: unknown): z.infer<S> {
  let args = input ?? {};
  if (typeof args === "object" && !Array.isArray(args)) {
    const types = typesOf(schema);
    args = Object.fromEntries(
      Object.entries(args as Record<string, unknown>).map(([name, value]) => {
        const values = types[name]?.enum;
        if (!values || typeof value !== "string") return [name, value];
        return [name, values.find((e) => e.toLowerCase() === value.toLowerCase()) ?? value];
      }),
    );
  }
  const parsed = schema.safeParse(args);
  if (parsed.success) return parsed.data;
  const problems: ParameterProblem[] = [];
  for (const issue of parsed.error.issues) {
    const param = String(issue.path[0] ?? "");
    if (!problems.some((p) => p.param === param)) problems.push({ param, message: issue.message });
  }
  throw new InvalidParameterError(problems);
}
