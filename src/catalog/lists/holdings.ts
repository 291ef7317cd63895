/**
 * What the content operations (content.ts) keep in memory, each drawn from the memory budget
 * (src/platform/memory.ts) under its own part:
 *
 * - `answers`: the answer cache (cache.ts), every operation's answer by data version;
 * - `cubes`: the count cubes of bounded lists (scores_cube.ts), one per version and key, kept as
 *   "none" when the budget cannot hold one, so that its counts go to PostgreSQL;
 * - `list_index`: the list index (list_index.ts), claimed at its size before it is read; refused,
 *   lists are answered by PostgreSQL.
 */
import { VersionedCache } from "../cache.ts";
import type { Sql } from "../../db/open.ts";
import {
  answerBytes,
  type MemoryBudget,
  typedBytes,
  unlimitedBudget,
} from "../../platform/memory.ts";
import type { Shelf } from "./scores_cube.ts";
import { type ListIndex, loadListIndex, MAX_INDEX_ROWS } from "./list_index.ts";
import { createListIndexes, type ListIndexes } from "./list_index_holder.ts";

/** The list index's bytes a row, before it is read (65 of columns and postings, and room). */
export const LIST_INDEX_ROW_BYTES = 72;

export interface HoldingOptions {
  /** The answer cache's bound in weight (a list page of 20 weighs one); 0: no cache. */
  maxEntries?: number;
  onLookup?: (hit: boolean) => void;
  /**
   * Lists without q answered from the list index (list_index.ts): `background` loads it when
   * a list finds none at its version and lets PostgreSQL answer meanwhile; `warm` the same, but
   * its first load is started by the warm-up (content.warm), not by a list (a server); `wait`
   * waits for it (tests); `off`. Default: `background` with a cache, `off` without.
   */
  listIndex?: "background" | "warm" | "wait" | "off";
  /** Opportunities at most in the list index (default MAX_INDEX_ROWS); 0: no index. */
  listIndexMaxRows?: number;
  /** Told of a list index load that failed (tried again 30 s later). */
  onListIndexError?: (error: unknown) => void;
  /** The memory budget everything here draws from; none: no limit. */
  budget?: MemoryBudget;
}

export interface Holdings {
  cache: VersionedCache;
  cubes: Shelf;
  lists: ListIndexes | undefined;
  listMode: "background" | "warm" | "wait" | "off";
  budget: MemoryBudget;
}

export function createHoldings(primary: Sql, options: HoldingOptions): Holdings {
  const budget = options.budget ?? unlimitedBudget();
  // A list page weighs one per 20 items (about 12 KB), any other answer one: the count bound
  // stays as it was (10,000 units), and the budget bounds the bytes.
  const cache = new VersionedCache(options.maxEntries ?? 10_000, 60_000, options.onLookup, {
    budget,
    part: "answers",
    sizeOf: answerBytes,
  });
  // Without an answer cache, cubes are read afresh each time.
  const cubes: Shelf = cache.maxEntries > 0
    ? new VersionedCache(Infinity, Infinity, undefined, {
      budget,
      part: "cubes",
      sizeOf: (value) => typedBytes(value, 2),
      refuse: true,
    })
    : { get: (_version, _key, compute) => compute() };
  const listMode = options.listIndexMaxRows === 0
    ? "off"
    : options.listIndex ?? (cache.maxEntries > 0 ? "background" : "off");
  // Read on the primary: one long read per data version, past a replica's read deadline.
  const lists = listMode === "off" ? undefined : createListIndexes(
    () => loadListIndex(primary, options.listIndexMaxRows ?? MAX_INDEX_ROWS, admitRows(budget)),
    {
      onError: options.onListIndexError,
      onHeld: (index) => heldIndex(budget, index),
      firstWaited: listMode === "warm",
    },
  );
  return { cache, cubes, lists, listMode, budget };
}

/** Claims a list index of `rows` before it is read (the one held before is let go first). */
function admitRows(budget: MemoryBudget): (rows: number) => boolean {
  return (rows) => budget.claim("list_index", rows * LIST_INDEX_ROW_BYTES);
}

/** The index now held: its exact size, or false when the budget cannot hold that. */
function heldIndex(budget: MemoryBudget, index: ListIndex | undefined): boolean {
  if (index && budget.claim("list_index", typedBytes(index))) return true;
  budget.release("list_index");
  return index === undefined;
}
