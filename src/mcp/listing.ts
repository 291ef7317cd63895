/**
 * How a tool's zod schemas become the JSON Schemas of `tools/list`, kept lean: every client pays
 * the whole listing in its context window on every conversation (tests/mcp/listing_budget_test.ts
 * holds it to 32,000 characters). The same zod schemas give the OpenAPI document its full,
 * described schemas (src/rest/openapi.ts); here outputs keep their shape (fields, types, enums,
 * required fields, bounds) and drop what a model does not need to read a result: descriptions
 * (the tool's description says what comes back), JSON Schema noise zod adds (the safe-integer
 * bounds of every integer, a date-time regex beside `format`), and the detail of records another
 * tool already spells out. Pure (zod only), like tools.ts, for the npm stdio package.
 */
import * as z from "zod";

/** A JSON Schema object as MCP `tools/list` carries it. */
export type JsonSchemaObject = { type: "object"; [key: string]: unknown };

type Node = Record<string, unknown>;

/**
 * Records that other tools list in full, kept to a few fields where they recur inside a tool's
 * answer: a property path ("" for the answer itself; array items are stepped through) and the
 * fields kept. The answer still carries every field; the tool's description names the tool that
 * spells them out.
 */
export type OutputBriefs = Readonly<Record<string, readonly string[]>>;

/**
 * The fields a theme or an opportunity keeps where another tool spells it out, its url always:
 * get_theme and list_trending_themes list themes in full, query_opportunities opportunities.
 */
export const THEME_BRIEF = [
  "id",
  "slug",
  "name",
  "category",
  "trend_change",
  "trend_status",
  "url",
];
export const OPPORTUNITY_BRIEF = ["id", "title", "recommendation", "score", "url"];

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/**
 * The error branch of every output schema. Clients built on the TypeScript SDK (1.32, and the
 * MCP Inspector) check the structuredContent of `isError` results against the outputSchema too
 * (typescript-sdk issue #1943), so the schema admits the REST error body: a code and a sentence,
 * plus fields that belong to the code (details, required_plan, reset_at, request_id, ...).
 */
const ERROR_BRANCH = { required: ["error", "message"] };

/**
 * No schema names its dialect: MCP (2025-11-25 on) reads a schema without `$schema` as JSON
 * Schema 2020-12, the dialect zod writes, and the 32 copies of its URL cost 1,800 characters.
 */

/** The input schema as a client may send it (defaults make fields optional). */
export function inputJsonSchema(schema: z.ZodType): JsonSchemaObject {
  const { $schema: _, ...input } = trim(z.toJSONSchema(schema, { io: "input" }), false) as Node;
  return singleTypes(input) as JsonSchemaObject;
}

/**
 * The output schema: the result record, or on an `isError` result the error body. `compact`
 * names the records a default answer keeps a few fields of (src/catalog/compact.ts): there only
 * those are required, so that both the compact and the full answer pass.
 */
export function outputJsonSchema(
  schema: z.ZodType,
  briefs: OutputBriefs = {},
  compact: OutputBriefs = {},
): JsonSchemaObject {
  const { $schema: _, ...result } = trim(z.toJSONSchema(schema, { io: "output" }), true) as Node;
  for (const [path, keep] of Object.entries(briefs)) {
    atRecord(result, path === "" ? [] : path.split("."), (record) => brief(record, keep));
  }
  for (const [path, keep] of Object.entries(compact)) {
    atRecord(result, path === "" ? [] : path.split("."), (record) => {
      record.required = (record.required as string[] ?? []).filter((name) => keep.includes(name));
    });
  }
  return { type: "object", anyOf: [singleTypes(result), ERROR_BRANCH] };
}

/**
 * Drops from a converted schema what says nothing to a client: the safe-integer bounds zod puts
 * on every integer, the regex zod adds beside `format`, and what every object satisfies anyway.
 * In an output also descriptions and `additionalProperties: false` (an answer may gain a field without
 * breaking a client that validates it).
 */
function trim(node: unknown, output: boolean): unknown {
  if (Array.isArray(node)) return node.map((n) => trim(n, output));
  if (typeof node !== "object" || node === null) return node;
  const source = node as Node;
  const out: Node = {};
  for (const [key, value] of Object.entries(source)) {
    if (key === "pattern" && source.format) continue;
    if ((key === "minimum" && value === -MAX_SAFE) || (key === "maximum" && value === MAX_SAFE)) {
      continue;
    }
    if (output && (key === "description" || key === "title" || key === "examples")) continue;
    if (output && key === "additionalProperties" && value === false) continue;
    // What every JSON object satisfies anyway (zod writes both for a record of unknowns).
    if (key === "propertyNames" && isStringType(value)) continue;
    if (key === "additionalProperties" && isEmpty(value)) continue;
    out[key] = key === "properties"
      ? Object.fromEntries(
        Object.entries(value as Node).map(([name, field]) => [name, trim(field, output)]),
      )
      : trim(value, output);
  }
  return out;
}

/** Calls `change` with the record at `path` (through array items and nullable branches). */
function atRecord(node: Node, path: string[], change: (record: Node) => void): void {
  if (node.type === "array") return atRecord(node.items as Node, path, change);
  if (Array.isArray(node.anyOf)) {
    for (const branch of node.anyOf as Node[]) atRecord(branch, path, change);
    return;
  }
  const properties = node.properties as Record<string, Node> | undefined;
  if (!properties) throw new Error(`No record at "${path.join(".")}"`);
  if (path.length === 0) return change(node);
  const next = properties[path[0]];
  if (!next) throw new Error(`No field "${path[0]}" to keep fields of`);
  atRecord(next, path.slice(1), change);
}

/** Keeps only `keep` of a record's fields. */
function brief(node: Node, keep: readonly string[]): void {
  const properties = node.properties as Record<string, Node>;
  for (const name of keep) {
    if (!properties[name]) throw new Error(`No field "${name}" to keep`);
  }
  node.properties = Object.fromEntries(keep.map((name) => [name, properties[name]]));
  node.required = (node.required as string[] ?? []).filter((name) => keep.includes(name));
}

const ANNOTATION_KEYS = new Set(["description", "title", "default", "examples"]);

/**
 * Rewrites `{"type": ["string", "null"]}` (how zod writes a simple nullable) as `anyOf` branches
 * of one type each: clients that map tool schemas onto a single-type dialect (Gemini's OpenAPI
 * subset) reject type arrays; the MCP Inspector's --strict check warns about them.
 */
function singleTypes(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(singleTypes);
  if (typeof node !== "object" || node === null) return node;
  const out: Node = {};
  for (const [k, v] of Object.entries(node)) out[k] = singleTypes(v);
  if (!Array.isArray(out.type)) return out;
  const outer: Node = {};
  const inner: Node = {};
  for (const [k, v] of Object.entries(out)) {
    if (k !== "type") (ANNOTATION_KEYS.has(k) ? outer : inner)[k] = v;
  }
  const branches = (out.type as string[]).map((type) =>
    type === "null" ? { type } : { type, ...inner }
  );
  return { ...outer, anyOf: branches };
}

function isStringType(value: unknown): boolean {
  return JSON.stringify(value) === '{"type":"string"}';
}

function isEmpty(value: unknown): boolean {
  return JSON.stringify(value) === "{}";
}
