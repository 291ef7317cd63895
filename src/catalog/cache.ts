/**
 * An in-process cache of answers keyed by the data version. Between two imports every answer
 * except the quota counter is a pure function of its parameters, and every import bumps the
 * version in the same transaction as its data, so an entry made at version V is right for as
 * long as V is current, and the whole cache is dropped the moment a newer version is seen.
 * Entries also expire after `ttlMs`, because one thing changes without an import: a scheduled
 * article becomes published when its time comes (blog answers and related_article_url).
 */

import type { MemoryBudget } from "../platform/memory.ts";

/** Hit and miss counts, for telemetry. */
export interface CacheStats {
  hits: number;
  misses: number;
  entries: number;
  version: number;
}

/**
 * A cache's share of the memory budget (src/platform/memory.ts): each entry's bytes (`sizeOf` its
 * value, once computed) are drawn from `budget` as `part`. An entry the budget cannot hold, even
 * once the cache's older entries are gone, is not kept (`refuse`: kept as undefined, so that the
 * caller answers without it rather than build it again).
 */
export interface CacheMemory {
  budget: MemoryBudget;
  part: string;
  sizeOf: (value: unknown) => number;
  refuse?: boolean;
}

interface Entry {
  value: Promise<unknown>;
  expires: number;
  weight: number;
  bytes: number;
}

export class VersionedCache {
  #version = -1;
  // Map keeps insertion order: re-inserting on a hit makes the first key the least recently used.
  #entries = new Map<string, Entry>();
  #weight = 0;
  #hits = 0;
  #misses = 0;

  constructor(
    /** The total weight of the entries kept (an entry weighs 1 unless its get says more). */
    readonly maxEntries = 2000,
    readonly ttlMs = 60_000,
    /** Told of every lookup, hit or not (telemetry). */
    readonly onLookup: (hit: boolean) => void = () => {},
    readonly memory?: CacheMemory,
  ) {
    memory?.budget.reclaimable(memory.part, (bytes) => this.#reclaim(bytes));
  }

  /**
   * The value of `key` at data version `version`, computed once by `compute`. Concurrent calls
   * for the same key share one computation; a failed computation is not kept. A call made with
   * a version older than the newest seen (a request that raced an import) computes without
   * caching, so an old answer can never be stored. `weight` is the entry's share of maxEntries
   * (a large answer weighs more), so that the bound holds the memory, not the count.
   */
  get<T>(version: number, key: string, compute: () => Promise<T>, weight = 1): Promise<T> {
    if (version !== this.#version) {
      if (version < this.#version) {
        this.onLookup(false);
        return compute();
      }
      this.#version = version;
      this.#entries.clear();
      this.#weight = 0;
      this.memory?.budget.release(this.memory.part);
    }
    const now = Date.now();
    const found = this.#entries.get(key);
    if (found && found.expires > now) {
      this.#hits++;
      this.onLookup(true);
      // Moved to the end (most recently used), its weight and bytes unchanged.
      this.#entries.delete(key);
      this.#entries.set(key, found);
      return found.value as Promise<T>;
    }
    if (found) this.#remove(key);
    this.#misses++;
    this.onLookup(false);
    const made = compute();
    const entry: Entry = { value: made, expires: now + this.ttlMs, weight, bytes: 0 };
    this.#add(key, entry);
    made.then((value) => this.#weigh(key, entry, value), () => {
      if (this.#entries.get(key) === entry) this.#remove(key);
    }).catch(() => {
      // A size that cannot be taken: the entry is not kept (never an unhandled rejection).
      if (this.#entries.get(key) === entry) this.#remove(key);
    });
    while (this.#weight > this.maxEntries && this.#entries.size > 1) {
      this.#remove(this.#entries.keys().next().value!);
    }
    return made;
  }

  #add(key: string, entry: Entry): void {
    this.#entries.set(key, entry);
    this.#weight += entry.weight;
  }

  #remove(key: string): number {
    const entry = this.#entries.get(key);
    if (!entry) return 0;
    this.#entries.delete(key);
    this.#weight -= entry.weight;
    if (entry.bytes > 0) this.memory?.budget.shrink(this.memory.part, entry.bytes);
    return entry.bytes;
  }

  /** Draws a computed entry's bytes from the budget, making room from the oldest entries. */
  #weigh(key: string, entry: Entry, value: unknown): void {
    const memory = this.memory;
    if (!memory || this.#entries.get(key) !== entry) return;
    const bytes = memory.sizeOf(value);
    while (!memory.budget.grow(memory.part, bytes)) {
      const oldest = this.#entries.keys().next().value!;
      if (oldest === key) {
        // Not even alone: not kept (or kept as nothing, so that nobody builds it again).
        this.#remove(key);
        if (memory.refuse) {
          memory.budget.noteRefused(memory.part, bytes);
          this.#add(key, { ...entry, value: Promise.resolve(undefined), weight: 0 });
        }
        return;
      }
      this.#remove(oldest);
    }
    entry.bytes = bytes;
  }

  /** Drops entries, least recently used first, until `bytes` are freed or none is left. */
  #reclaim(bytes: number): number {
    let freed = 0;
    while (freed < bytes && this.#entries.size > 0) {
      freed += this.#remove(this.#entries.keys().next().value!);
    }
    return freed;
  }

  /** True when `key` has an unexpired entry at the newest version seen (no hit counted). */
  has(key: string): boolean {
    const found = this.#entries.get(key);
    return found !== undefined && found.expires > Date.now();
  }

  /** Hit and miss counts since start. */
  stats(): CacheStats {
    return {
      hits: this.#hits,
      misses: this.#misses,
      entries: this.#entries.size,
      version: this.#version,
    };
  }
}

/** A stable cache key of a parameter object (keys sorted, undefined dropped). */
export function keyOf(prefix: string, params: object): string {
  const entries = Object.entries(params).filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return `${prefix}:${JSON.stringify(entries)}`;
}
