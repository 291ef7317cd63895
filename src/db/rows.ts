/** Values of rows as the service shows and checks them: timestamps in ISO 8601, row ids. */
import { MAX_INTEGER } from "./open.ts";

/** A timestamptz as an ISO 8601 string in UTC (postgres.js returns Date objects). */
export function iso(value: Date | string): string;
export function iso(value: Date | string | null): string | null;
export function iso(value: Date | string | null): string | null {
  if (value === null) return null;
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

/** True when `id` can name a row (ids are positive PostgreSQL integers). */
export function isRowId(id: number): boolean {
  return Number.isSafeInteger(id) && id >= 1 && id <= MAX_INTEGER;
}
