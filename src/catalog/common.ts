/**
 * What the catalog's queries share: the query context, the keyword match of `q`, page windows,
 * the existence of a row and the data version.
 */
import type postgres from "postgres";
import type { Sql } from "../db/open.ts";
import { isRowId } from "../db/rows.ts";

/** Options every content query needs to build public URLs. */
export interface QueryContext {
  /** Base of public article URLs, without a trailing slash. */
  publicBaseUrl: string;
  /**
   * Force the plans of keyword searches (see PagePlan in opportunities.ts) with settings local to
   * a transaction. On for PostgreSQL; off for the embedded database, whose connections share one
   * session (a transaction there must not interleave with other connections' queries), and whose
   * data is small enough for PostgreSQL's own choices.
   */
  forcePlans?: boolean;
}

// Two dashes or more, with any white space between them.
const DASH_RUN = /-[\s-]*-/g;

/**
 * The text of a keyword query `q` as oi_search_query reads it, or undefined when it has none;
 * every search (the lists, their relevance order, a watch's stored query) passes through it. A
 * run of dashes becomes one: websearch_to_tsquery nests a NOT per dash, and PostgreSQL refuses a
 * query nested about 32 deep ("tsquery stack too small"), so a run of them would fail the
 * statement. Two dashes meant "not not" only by accident of the syntax; one excludes.
 */
export function searchText(q: string | undefined): string | undefined {
  return q?.replace(DASH_RUN, "-").trim() || undefined;
}

/**
 * `and <vector> @@ <query of q>` when `q` has any text: the full-text match of a keyword query in
 * web-search syntax (sql/0003_search.sql, oi_search_query). `vector` names a search column.
 */
export function matchesKeywords(
  sql: Sql,
  vector: postgres.Fragment,
  q: string | undefined,
): postgres.Fragment {
  const text = searchText(q);
  return text ? sql`and ${vector} @@ oi_search_query(${text})` : sql``;
}

/** `limit/offset` of a 1-based page. */
export function pageWindow(sql: Sql, page: number, pageSize: number): postgres.Fragment {
  return sql`limit ${pageSize} offset ${(page - 1) * pageSize}`;
}

/** `exists` of the row of `table` with this id, as a fragment of a larger statement. */
export function rowExistsFragment(
  sql: Sql,
  table: "opportunities" | "themes",
  id: number,
): postgres.Fragment {
  return isRowId(id) ? sql`exists (select 1 from ${sql(table)} where id = ${id})` : sql`false`;
}

/** The data version: bumped by every import that changes content, the key of cached answers. */
export async function readDataVersion(sql: Sql): Promise<number> {
  const [row] = await sql<{ version: number }[]>`
    select version::float8 as version from data_version`;
  return row?.version ?? 0;
}
