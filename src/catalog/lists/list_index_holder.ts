/**
 * The holder of the list index (list_index.ts): the one index held, loaded when a list asks for a
 * newer version than it has, one load at a time; and the page's rows read by id.
 */
import type postgres from "postgres";
import type { Sql } from "../../db/open.ts";
import type { ListIndexCounts } from "../../platform/metrics.ts";
import type { ListIndex } from "./list_index.ts";
import { listColumns, type ListRow } from "./list_items.ts";
import { keyColumns } from "./opportunity_cursor.ts";
import type { OpportunityQuery } from "../schemas.ts";

/** What the holder tells (the shape /metrics reads): the version held, its size, its use. */
export type ListIndexStats = ListIndexCounts;

/** The one index held, loaded when a list asks for a newer version than it has. */
export interface ListIndexes {
  /**
   * The index at `version`, or undefined: then a load of the newest is started (one at a time)
   * unless `wait` waits for it. An index newer than `version` is not used for it.
   */
  at(version: number, wait?: boolean): Promise<ListIndex | undefined>;
  /** The index held, whatever its version. */
  held(): ListIndex | undefined;
  /** Counts a list answered from the index (true) or not; `prefetched`: by its plan's rows. */
  note(answered: boolean, prefetched?: boolean): void;
  stats(): ListIndexStats;
}

/**
 * The holder of the list index. `load` reads one (loadListIndex); after a failed load the next
 * is tried no sooner than `retryMs` later, and a catalogue found too large is not read again
 * until the version moves on.
 */
export function createListIndexes(
  load: (version: number) => Promise<ListIndex | "too_large">,
  options: {
    retryMs?: number;
    onError?: (error: unknown) => void;
    /**
     * Told of the index held after each load (undefined: none), for the memory budget; false
     * lets it go (the budget cannot hold its exact size), as if the catalogue were too large.
     */
    onHeld?: (index: ListIndex | undefined) => boolean;
    /**
     * The first load is started only by an ask that waits (a server's warm-up, after its first
     * answers: src/platform/first_requests.ts), so that a fresh process's first lists do not share
     * the cores with a long scan; later loads start in the background as before.
     */
    firstWaited?: boolean;
  } = {},
): ListIndexes {
  let held: ListIndex | undefined;
  let loading: Promise<void> | undefined;
  let begun = false;
  let tooLargeAt = -1;
  let failedAt = -Infinity;
  const counts = { loads: 0, answered: 0, passed: 0, prefetched: 0 };
  const start = (version: number): Promise<void> => {
    if (loading) return loading;
    begun = true;
    // The index held serves only its own version: it is let go before a newer one is read, so
    // that two are never held at once.
    if (held && held.version < version) held = undefined;
    loading = load(version).then((index) => {
      counts.loads++;
      if (index === "too_large") tooLargeAt = version;
      else if (!held || index.version >= held.version) held = index;
    }, (error) => {
      failedAt = Date.now();
      options.onError?.(error);
    }).finally(() => {
      loading = undefined;
      if (options.onHeld?.(held) === false) {
        tooLargeAt = Math.max(tooLargeAt, held!.version);
        held = undefined;
      }
    });
    return loading;
  };
  return {
    async at(version, wait = false) {
      if (held?.version === version) return held;
      if (held && held.version > version) return undefined;
      if (version <= tooLargeAt) return undefined;
      if (!wait && Date.now() - failedAt < (options.retryMs ?? 30_000)) return undefined;
      if (!wait && options.firstWaited && !begun) return undefined;
      const started = start(version);
      if (!wait) return undefined;
      await started;
      return held?.version === version ? held : undefined;
    },
    held: () => held,
    note(answered, prefetched = false) {
      if (answered && prefetched) counts.prefetched++;
      if (answered) counts.answered++;
      else counts.passed++;
    },
    stats: () => ({ version: held?.version ?? null, rows: held?.rows ?? 0, ...counts }),
  };
}

/** The select of the rows of `ids` with their cursor keys (a page's rows, in no order). */
export function rowsSelect(sql: Sql, query: OpportunityQuery, ids: number[]): postgres.Fragment {
  return sql`select ${listColumns(sql)} ${keyColumns(sql, query)}
    from opportunities o where o.id = any(${ids}::int[])`;
}

/** `rows` in the order of `ids`; undefined when one is missing (deleted since the index was read). */
export function inIdOrder(rows: ListRow[], ids: number[]): ListRow[] | undefined {
  const byId = new Map(rows.map((r) => [r.id, r]));
  const ordered = ids.map((id) => byId.get(id));
  return ordered.every((r) => r !== undefined) ? ordered as ListRow[] : undefined;
}

/**
 * The rows of `ids` with their cursor keys, in the order of `ids`; undefined when one is missing
 * (the caller asks PostgreSQL for the page instead).
 */
export async function rowsOfIds(
  sql: Sql,
  query: OpportunityQuery,
  ids: number[],
): Promise<ListRow[] | undefined> {
  if (ids.length === 0) return [];
  return inIdOrder(await sql<ListRow[]>`${rowsSelect(sql, query, ids)}`, ids);
}
