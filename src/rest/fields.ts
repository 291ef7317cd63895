/**
 * `fields=` on REST: the compact records of an MCP tool's default answer (src/catalog/compact.ts)
 * on the routes whose answers repeat records, opt-in. `fields=compact` keeps what the tool keeps
 * (an opportunity's id, title, recommendation, score, target_audience, relevance and url); a
 * comma-separated list keeps those fields of every such record. The answer's shape is otherwise
 * the specification's: the list envelope, total and next_cursor stay. Without `fields`, nothing
 * changes. An unknown field is a 422 that names the fields there are, before anything is charged.
 */
import {
  BlogListItemSchema,
  CategorySchema,
  OpportunityListItemSchema,
  ThemeSchema,
} from "../catalog/schemas.ts";
import { COMPACT, type Compaction, compactRecords } from "../catalog/compact.ts";
import { InvalidParameterError } from "../platform/errors.ts";

type Json = Record<string, unknown>;

const OPPORTUNITY = [
  ...Object.keys(OpportunityListItemSchema.shape),
  "relevance",
  "similarity",
  "competitors",
];
const THEME = [...Object.keys(ThemeSchema.shape), "similarity", "url"];
const CATEGORY = [...Object.keys(CategorySchema.shape), "url"];
const ARTICLE = Object.keys(BlogListItemSchema.shape);

/** The fields `fields=` may name, per operation (those of the records it trims). */
const FIELDS: Readonly<Record<string, ReadonlySet<string>>> = {
  listOpportunities: new Set(OPPORTUNITY),
  findSimilar: new Set(OPPORTUNITY),
  listBlogPosts: new Set(ARTICLE),
  listTrendingThemes: new Set(THEME),
  matchIdea: new Set([...THEME, ...OPPORTUNITY]),
  getOverview: new Set([...CATEGORY, ...THEME]),
  getTheme: new Set([...THEME, ...OPPORTUNITY]),
};

/** The operations that take `fields` (for the OpenAPI document). */
export const FIELDS_OPERATIONS = Object.keys(FIELDS);

/**
 * The records `fields` asks for on `operation`, or undefined when it is absent or the route
 * does not take it. Throws invalid_parameter for a name no record there has.
 */
export function fieldsOf(operation: string, url: URL): Compaction | undefined {
  const known = FIELDS[operation];
  const values = url.searchParams.getAll("fields");
  if (!known || values.length === 0 || values[0] === "") return undefined;
  if (values.length > 1) {
    throw new InvalidParameterError([{ param: "fields", message: "must be given only once" }]);
  }
  if (values[0] === "compact") return COMPACT[operation];
  const names = [...new Set(values[0].split(",").map((name) => name.trim()).filter(Boolean))];
  const unknown = names.filter((name) => !known.has(name));
  if (unknown.length > 0 || names.length === 0) {
    const message = `must be compact or a list of ${[...known].join(", ")}` +
      (unknown.length > 0 ? ` (unknown: ${unknown.join(", ")})` : "");
    throw new InvalidParameterError([{ param: "fields", message }]);
  }
  return Object.fromEntries(Object.keys(COMPACT[operation]).map((path) => [path, names]));
}

/** The answer with only the asked fields of its records. */
export function withFields(body: unknown, compaction: Compaction | undefined): unknown {
  return compaction ? compactRecords(body as Json, compaction) : body;
}

/** The `fields` query parameter as the OpenAPI document declares it. */
const FIELDS_PARAMETER = {
  name: "fields",
  in: "query",
  required: false,
  description: "compact: only the fields an agent needs to choose (as the MCP tool's default " +
    "answer: an opportunity's id, title, recommendation, score, target_audience, relevance and " +
    "url); or a comma-separated list of the records' fields to keep. Absent: every field",
  schema: { type: "string", examples: ["compact", "id,title,score,url"] },
};

/** `doc` (the OpenAPI document) with `fields` on every GET of an operation that takes it. */
export function withFieldsParameter(
  doc: Record<string, unknown>,
): Record<string, unknown> {
  const paths = doc.paths as Record<string, Record<string, { operationId?: string } & Json>>;
  for (const item of Object.values(paths)) {
    const get = item.get;
    if (get && FIELDS_OPERATIONS.includes(get.operationId ?? "")) {
      get.parameters = [...get.parameters as unknown[], FIELDS_PARAMETER];
    }
  }
  return doc;
}
