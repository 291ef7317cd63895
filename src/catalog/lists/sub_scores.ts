/**
 * The four sub-scores of an opportunity (each 0-10) as list filters and orders: the filters
 * `min_pain_point_intensity`, `min_willingness_to_pay`, `max_tech_difficulty`,
 * `min_sustainability`, and the orders of SUB_SCORE_SORTS. Three are "more is better" and sort
 * highest first; tech difficulty is "less is better" (an agent asking for low-effort ideas wants
 * the easiest first), so it sorts lowest first. Each order is written as a descending key, the
 * difficulty negated, so that every list order stays descending in all its keys: one row
 * comparison continues after a cursor and one index (sql/0020_sub_scores.sql) serves the order.
 */
import type postgres from "postgres";
import type { Sql } from "../../db/open.ts";
import type { OpportunityQuery, SubScoreSort } from "../schemas.ts";
import { SUB_SCORE_SORTS } from "../schemas.ts";

/** The column of each sub-score order. */
export const SUB_SCORE_COLUMNS: Record<SubScoreSort, SubScoreColumn> = {
  pain_point_intensity: "pain_point_intensity",
  willingness_to_pay: "willingness_to_pay_score",
  tech_difficulty: "tech_difficulty",
  sustainability: "sustainability_score",
};

type SubScoreColumn =
  | "pain_point_intensity"
  | "willingness_to_pay_score"
  | "tech_difficulty"
  | "sustainability_score";

/**
 * The sub-score filters, as the list, the tools, the export and watches name them (a watch keeps
 * each in a column of its own: sql/0020_sub_scores.sql).
 */
export const SUB_SCORE_FILTERS = [
  "min_pain_point_intensity",
  "min_willingness_to_pay",
  "max_tech_difficulty",
  "min_sustainability",
] as const;

/** The sub-score filters of a query. */
export type SubScoreFilter = Pick<OpportunityQuery, typeof SUB_SCORE_FILTERS[number]>;

/** Whether `sort` is a sub-score order. */
export function isSubScoreSort(sort: string | undefined): sort is SubScoreSort {
  return (SUB_SCORE_SORTS as readonly string[]).includes(sort ?? "");
}

/** Whether `query` has a sub-score filter that removes any row (a bound of 0, or 10 for max, does not). */
export function hasSubScoreFilter(query: SubScoreFilter): boolean {
  return (query.min_pain_point_intensity ?? 0) > 0 || (query.min_willingness_to_pay ?? 0) > 0 ||
    (query.max_tech_difficulty ?? 10) < 10 || (query.min_sustainability ?? 0) > 0;
}

/**
 * The sub-score filters of `query` on the table aliased `alias` (opportunities or a summary with
 * the same column names); bounds are inclusive.
 */
export function subScoreFilter(
  sql: Sql,
  query: SubScoreFilter,
  alias: "o" | "c",
): postgres.Fragment {
  const col = (name: SubScoreColumn) => sql(`${alias}.${name}`);
  const min = (name: SubScoreColumn, value: number | undefined) =>
    (value ?? 0) > 0 ? sql`and ${col(name)} >= ${value!}::int` : sql``;
  const max = query.max_tech_difficulty ?? 10;
  return sql`${min("pain_point_intensity", query.min_pain_point_intensity)}
    ${min("willingness_to_pay_score", query.min_willingness_to_pay)}
    ${max < 10 ? sql`and ${col("tech_difficulty")} <= ${max}::int` : sql``}
    ${min("sustainability_score", query.min_sustainability)}`;
}

/** The descending key of a sub-score order on `opportunities o` (the difficulty negated). */
export function subScoreKey(sql: Sql, sort: SubScoreSort): postgres.Fragment {
  if (sort === "tech_difficulty") return sql`(-o.tech_difficulty)`;
  return sql`${sql(`o.${SUB_SCORE_COLUMNS[sort]}`)}`;
}

/** A row's value of the descending key of a sub-score order, as subScoreKey computes it. */
export function subScoreValue(row: Record<SubScoreColumn, number>, sort: SubScoreSort): number {
  const value = row[SUB_SCORE_COLUMNS[sort]];
  return sort === "tech_difficulty" ? -value : value;
}
