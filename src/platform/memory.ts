/**
 * One memory budget (MEMORY_BUDGET_MB) that every structure the service keeps in memory draws
 * from: the list index, the count cubes, the answer caches, the question readings, the sentence
 * encoder and its vectors. A structure is kept only when the budget holds it; when it does not,
 * the service answers as it does without it (PostgreSQL answers the list, the question is read by
 * its words), so a smaller budget costs speed, never an answer.
 *
 * Two kinds of part draw from it:
 * - a held part (the list index, the encoder, a reading) claims its whole size at once, before it
 *   is built where its size is known in advance, and is refused when the budget cannot hold it;
 * - a cache (answers, pages, question vectors) grows entry by entry and gives entries back, least
 *   recently used first, when a held part needs the room (`reclaim`).
 *
 * /metrics shows each part's bytes and the budget (`oppintel_memory_bytes{part}`), /healthz which
 * parts are held and which were refused.
 */

/** The default budget: a 1,000,000-row catalogue with the encoder fits a 512 MB isolate. */
export const DEFAULT_MEMORY_BUDGET_MB = 288;

/** The parts /metrics always shows (0 while not held), in the order a server's start loads them. */
export const MEMORY_PARTS = [
  "list_index",
  "question_reading",
  "cubes",
  "encoder",
  "meaning_vectors",
  "question_vectors",
  "answers",
  "pages",
];

/** What /healthz and /metrics say of the budget. */
export interface MemoryReport {
  budget_bytes: number;
  used_bytes: number;
  /** Each part's bytes, held parts and caches alike. */
  parts: Record<string, number>;
  /** The parts held now (a cache is held while it has entries). */
  held: string[];
  /** Parts refused since start, each with the bytes it asked for the last time. */
  refused: Record<string, number>;
}

export class MemoryBudget {
  #parts = new Map<string, number>();
  #refused = new Map<string, number>();
  #reclaimers = new Map<string, (bytes: number) => number>();

  constructor(readonly limit: number) {}

  /** A budget of `mb` megabytes (MiB). */
  static ofMb(mb: number): MemoryBudget {
    return new MemoryBudget(Math.round(mb * 1024 * 1024));
  }

  used(): number {
    let sum = 0;
    for (const bytes of this.#parts.values()) sum += bytes;
    return sum;
  }

  /** The bytes `part` holds. */
  of(part: string): number {
    return this.#parts.get(part) ?? 0;
  }

  /**
   * Holds `bytes` for `part` in place of what it held, asking the caches other than `part` to
   * give room back when needed; false, with nothing changed, when the budget cannot hold it.
   */
  claim(part: string, bytes: number): boolean {
    const others = this.used() - this.of(part);
    if (others + bytes > this.limit) {
      for (const [cache, reclaim] of this.#reclaimers) {
        if (cache === part) continue;
        const over = this.used() - this.of(part) + bytes - this.limit;
        if (over <= 0) break;
        reclaim(over);
      }
    }
    if (this.used() - this.of(part) + bytes > this.limit) {
      this.#refused.set(part, bytes);
      return false;
    }
    this.#set(part, bytes);
    this.#refused.delete(part);
    return true;
  }

  /**
   * Grows a cache by `bytes` when the budget holds it, without reclaiming from anyone (a cache
   * makes its own room by dropping its oldest entries); false when it does not fit.
   */
  grow(part: string, bytes: number): boolean {
    if (this.used() + bytes > this.limit) return false;
    this.#set(part, this.of(part) + bytes);
    return true;
  }

  /** Notes that `part` could not hold `bytes` (a cache's entry larger than the room left). */
  noteRefused(part: string, bytes: number): void {
    this.#refused.set(part, bytes);
  }

  /** Gives back `bytes` of `part` (a cache's entry gone). */
  shrink(part: string, bytes: number): void {
    this.#set(part, Math.max(0, this.of(part) - bytes));
  }

  /** Gives back all of `part`. */
  release(part: string): void {
    this.#parts.delete(part);
  }

  /**
   * Registers a cache that can give room back: `reclaim(bytes)` drops entries until at least
   * `bytes` are freed (or it is empty) and returns the bytes freed.
   */
  reclaimable(part: string, reclaim: (bytes: number) => number): void {
    this.#reclaimers.set(part, reclaim);
  }

  report(): MemoryReport {
    const parts = Object.fromEntries([...this.#parts].sort(([a], [b]) => a < b ? -1 : 1));
    return {
      budget_bytes: this.limit,
      used_bytes: this.used(),
      parts,
      held: Object.keys(parts).filter((part) => parts[part] > 0),
      refused: Object.fromEntries(this.#refused),
    };
  }

  #set(part: string, bytes: number): void {
    if (bytes > 0) this.#parts.set(part, bytes);
    else this.#parts.delete(part);
  }
}

/** What /healthz says of the budget: its size, what is used, which parts are held or refused. */
export function memorySummary(report: MemoryReport): {
  budget_mb: number;
  used_mb: number;
  held: string[];
  refused: string[];
} {
  const mb = (bytes: number) => Math.round(bytes / 104857.6) / 10;
  return {
    budget_mb: mb(report.budget_bytes),
    used_mb: mb(report.used_bytes),
    held: report.held,
    refused: Object.keys(report.refused),
  };
}

/** The /metrics lines of the budget: each part's bytes, the budget, and the process's resident set. */
export function memoryMetricLines(report: MemoryReport): string[] {
  const out: string[] = [];
  const family = (name: string, type: string, help: string) =>
    out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
  family("oppintel_memory_bytes", "gauge", "Bytes held in memory, by part (within the budget).");
  for (const part of MEMORY_PARTS) {
    out.push(`oppintel_memory_bytes{part="${part}"} ${report.parts[part] ?? 0}`);
  }
  for (const [part, bytes] of Object.entries(report.parts)) {
    if (!MEMORY_PARTS.includes(part)) out.push(`oppintel_memory_bytes{part="${part}"} ${bytes}`);
  }
  family("oppintel_memory_budget_bytes", "gauge", "The memory budget (MEMORY_BUDGET_MB).");
  out.push(`oppintel_memory_budget_bytes ${report.budget_bytes}`);
  family("oppintel_memory_used_bytes", "gauge", "Bytes held by all parts together.");
  out.push(`oppintel_memory_used_bytes ${report.used_bytes}`);
  family("oppintel_memory_refused_bytes", "gauge", "What a part last asked and was refused.");
  for (const [part, bytes] of Object.entries(report.refused)) {
    out.push(`oppintel_memory_refused_bytes{part="${part}"} ${bytes}`);
  }
  const usage = Deno.memoryUsage();
  family("oppintel_process_resident_bytes", "gauge", "The process's resident memory (RSS).");
  out.push(`oppintel_process_resident_bytes ${usage.rss}`);
  family("oppintel_process_heap_bytes", "gauge", "V8's heap: used, and total (used and free).");
  out.push(`oppintel_process_heap_bytes{kind="used"} ${usage.heapUsed}`);
  out.push(`oppintel_process_heap_bytes{kind="total"} ${usage.heapTotal}`);
  out.push(`oppintel_process_heap_bytes{kind="external"} ${usage.external}`);
  return out;
}

/**
 * What is held per database (`key`) and per budget: two budgets in one process (tests, tools)
 * never use what the other one holds or refused.
 */
export class HeldPerBudget<K extends object, V> {
  #map = new WeakMap<K, Map<MemoryBudget | undefined, V>>();

  get(key: K, budget: MemoryBudget | undefined): V | undefined {
    return this.#map.get(key)?.get(budget);
  }

  set(key: K, budget: MemoryBudget | undefined, value: V): void {
    let held = this.#map.get(key);
    if (!held) this.#map.set(key, held = new Map());
    held.set(budget, value);
  }

  /** Forgets what every budget holds for `key`. */
  delete(key: K): void {
    this.#map.delete(key);
  }
}

/** A budget without a limit (a tool's process, a test that does not measure memory). */
export function unlimitedBudget(): MemoryBudget {
  return new MemoryBudget(Number.MAX_SAFE_INTEGER);
}

/**
 * The bytes of the typed arrays in `value` (a cube, an index), its own and those of the objects
 * and arrays it holds (a few levels down), with its Maps' and strings' entries at 64 bytes each.
 */
export function typedBytes(value: unknown, depth = 3): number {
  if (ArrayBuffer.isView(value)) return value.byteLength;
  if (value instanceof Map || value instanceof Set) return value.size * 64;
  if (typeof value === "string") return 64 + value.length * 2;
  if (depth === 0 || typeof value !== "object" || value === null) return 8;
  let sum = 0;
  for (const field of Object.values(value)) sum += typedBytes(field, depth - 1);
  return sum;
}

/**
 * About what an answer object holds in memory: its JSON's length and a quarter (a list page of 20,
 * 14,541 bytes of JSON, took 14,893 bytes of V8's heap as parsed objects; the service's own
 * objects carry a little more).
 */
export function answerBytes(value: unknown): number {
  try {
    return Math.ceil((JSON.stringify(value)?.length ?? 8) * 1.25);
  } catch {
    return 1024;
  }
}
