/**
 * A theme named by id or slug (theme_ref.ts) as statements find it: the condition, the existence
 * checked in the admission statement (so that a 404 is never charged), and the 404 itself.
 */
import type postgres from "postgres";
import type { Sql } from "../../db/open.ts";
import { isRowId } from "../../db/rows.ts";
import { NotFoundError } from "../../platform/errors.ts";
import type { ThemeRef } from "../theme_ref.ts";

/** `t.id = ...` or `t.slug = ...`: the theme `ref` names, in a statement on `themes t`. */
export function themeWhere(sql: Sql, ref: ThemeRef): postgres.Fragment {
  return ref.slug !== undefined ? sql`t.slug = ${ref.slug}` : sql`t.id = ${ref.id}`;
}

/** `exists` of the theme `ref` names, as a fragment of a larger statement. */
export function themeExistsFragment(sql: Sql, ref: ThemeRef): postgres.Fragment {
  if (ref.slug === undefined && !isRowId(ref.id)) return sql`false`;
  return sql`exists (select 1 from themes t where ${themeWhere(sql, ref)})`;
}

/** The NotFoundError of the theme `ref` names: `Cannot find theme 3`, or its slug quoted. */
export function themeNotFound(ref: ThemeRef): NotFoundError {
  return new NotFoundError(
    `Cannot find theme ${ref.slug !== undefined ? `"${ref.slug}"` : ref.id}`,
  );
}
