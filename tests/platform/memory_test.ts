/** The memory budget (src/platform/memory.ts) and the caches that draw from it (cache.ts). */
import assert from "node:assert/strict";
import {
  MemoryBudget,
  memoryMetricLines,
  memorySummary,
  typedBytes,
} from "../../src/platform/memory.ts";
import { VersionedCache } from "../../src/catalog/cache.ts";
import { readConfig } from "../../src/platform/config.ts";

Deno.test("a held part is claimed whole or refused, and replaces what it held", () => {
  const budget = new MemoryBudget(1000);
  assert.equal(budget.claim("index", 600), true);
  assert.equal(budget.claim("encoder", 500), false);
  assert.deepEqual(budget.report().refused, { encoder: 500 });
  assert.equal(budget.used(), 600);
  // A part's new size replaces its old one (a newer index in place of the older).
  assert.equal(budget.claim("index", 900), true);
  assert.equal(budget.used(), 900);
  assert.equal(budget.claim("encoder", 100), true);
  assert.deepEqual(budget.report().refused, {});
  budget.release("index");
  assert.deepEqual(budget.report().held, ["encoder"]);
});

Deno.test("a held part takes room back from the caches, oldest entries first", async () => {
  const budget = new MemoryBudget(1000);
  const cache = new VersionedCache(100, 60_000, undefined, {
    budget,
    part: "answers",
    sizeOf: () => 200,
  });
  for (const key of ["a", "b", "c", "d"]) await cache.get(1, key, () => Promise.resolve(key));
  assert.equal(budget.of("answers"), 800);
  // A hit keeps its bytes (and makes "a" the most recently used).
  await cache.get(1, "a", () => Promise.resolve("again"));
  assert.equal(budget.of("answers"), 800);
  assert.equal(budget.claim("index", 500), true);
  assert.equal(budget.of("answers"), 400);
  assert.equal(cache.has("b"), false);
  assert.equal(cache.has("c"), false);
  assert.equal(cache.has("a"), true);
  // A cache grows only into what is left, dropping its own oldest entries.
  await cache.get(1, "e", () => Promise.resolve("e"));
  assert.equal(budget.used(), 900);
  assert.equal(cache.has("d"), false);
  // A new data version gives all of it back.
  await cache.get(2, "f", () => Promise.resolve("f"));
  assert.equal(budget.of("answers"), 200);
});

Deno.test("an entry larger than the budget is not kept; in refuse mode it is kept as nothing", async () => {
  const budget = new MemoryBudget(100);
  let computed = 0;
  const compute = () => Promise.resolve(++computed);
  const answers = new VersionedCache(10, 60_000, undefined, {
    budget,
    part: "answers",
    sizeOf: () => 500,
  });
  assert.equal(await answers.get(1, "k", compute), 1);
  assert.equal(await answers.get(1, "k", compute), 2);
  assert.equal(budget.used(), 0);
  const cubes = new VersionedCache(Infinity, Infinity, undefined, {
    budget,
    part: "cubes",
    sizeOf: () => 500,
    refuse: true,
  });
  assert.equal(await cubes.get(1, "summary", compute), 3);
  // Asked again: nothing, not a second build (the caller answers without it).
  assert.equal(await cubes.get(1, "summary", compute), undefined);
  assert.equal(computed, 3);
  assert.deepEqual(budget.report().refused, { cubes: 500 });
});

Deno.test("typedBytes counts typed arrays, nested ones included", () => {
  const value = {
    a: new Int32Array(10),
    nested: { b: new Float64Array(5), list: [new Uint8Array(7)] },
    n: 3,
  };
  assert.equal(typedBytes(value), 40 + 40 + 7 + 8);
});

Deno.test("the budget's metrics and health summary name every part", () => {
  const budget = MemoryBudget.ofMb(2);
  budget.claim("list_index", 1024 * 1024);
  budget.claim("encoder", 5 * 1024 * 1024);
  const lines = memoryMetricLines(budget.report()).join("\n");
  assert.match(lines, /^oppintel_memory_bytes\{part="list_index"\} 1048576$/m);
  assert.match(lines, /^oppintel_memory_bytes\{part="answers"\} 0$/m);
  assert.match(lines, /^oppintel_memory_budget_bytes 2097152$/m);
  assert.match(lines, /^oppintel_memory_refused_bytes\{part="encoder"\} 5242880$/m);
  assert.match(lines, /^oppintel_process_resident_bytes \d+$/m);
  assert.deepEqual(memorySummary(budget.report()), {
    budget_mb: 2,
    used_mb: 1,
    held: ["list_index"],
    refused: ["encoder"],
  });
});

Deno.test("MEMORY_BUDGET_MB: a whole number of megabytes, with a default", () => {
  const read = (value?: string) =>
    readConfig({ DATA_DIR: "memory://", MEMORY_BUDGET_MB: value }).memoryBudgetMb;
  assert.equal(read(), 288);
  assert.equal(read("0"), 0);
  assert.equal(read("1024"), 1024);
  assert.throws(() => read("lots"), /MEMORY_BUDGET_MB/);
  assert.throws(() => read("-1"), /MEMORY_BUDGET_MB/);
});
