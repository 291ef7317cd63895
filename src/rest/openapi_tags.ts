/**
 * The OpenAPI document's tags (the groups the reference shows its operations in) and licence,
 * added to the built document: every operation gets the tag of its path, every tag is declared
 * with a description, and a path that no tag covers fails at build time rather than show up
 * ungrouped.
 */

type JsonSchema = Record<string, unknown>;

/** The tags, in the order the reference lists them, each with the paths it groups. */
const TAGS: { name: string; description: string; paths: RegExp }[] = [
  {
    name: "Opportunities",
    description:
      "Scored business opportunities: lists, one record, similar ones, idea match, export",
    paths: /^\/api\/v1\/(opportunities|ideas)(\/|$)/,
  },
  {
    name: "Themes and categories",
    description: "The landscape: the overview, categories, themes by growth or status, history",
    paths: /^\/api\/v1\/(overview|categories|themes)(\/|$)/,
  },
  {
    name: "Articles",
    description: "Published analyses, free on every plan",
    paths: /^\/api\/v1\/blog(\/|$)/,
  },
  {
    name: "Watches",
    description: "Saved searches that deliver new matches by webhook, e-mail or feed",
    paths: /^\/api\/v1\/watches(\/|$)/,
  },
  {
    name: "Account",
    description: "The quota and who spent it",
    paths: /^\/api\/v1\/usage(\/|$)/,
  },
  {
    name: "Meta",
    description: "This document",
    paths: /^\/api\/v1\/openapi\.json$/,
  },
];

const METHODS = ["get", "post", "put", "patch", "delete"];

/** `doc` with its tags declared, each operation tagged by its path, and its licence (MIT). */
export function withTagsAndLicense(doc: JsonSchema): JsonSchema {
  const paths = doc.paths as Record<string, Record<string, JsonSchema>>;
  for (const [path, item] of Object.entries(paths)) {
    const tag = TAGS.find((t) => t.paths.test(path));
    if (!tag) throw new Error(`No OpenAPI tag covers "${path}"`);
    for (const method of METHODS) {
      if (item[method]) item[method] = { tags: [tag.name], ...item[method] };
    }
  }
  const used = new Set(
    Object.values(paths).flatMap((item) =>
      METHODS.flatMap((m) => (item[m]?.tags as string[] | undefined) ?? [])
    ),
  );
  return {
    ...doc,
    info: {
      ...doc.info as JsonSchema,
      license: { name: "MIT", identifier: "MIT" },
    },
    tags: TAGS.filter((t) => used.has(t.name)).map(({ name, description }) => ({
      name,
      description,
    })),
  };
}
