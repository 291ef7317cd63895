import assert from "node:assert/strict";
import { VersionedCache } from "../../src/catalog/cache.ts";

function counter() {
  let calls = 0;
  return {
    get calls() {
      return calls;
    },
    compute: (value: string) => () => {
      calls++;
      return Promise.resolve(value);
    },
  };
}

Deno.test("VersionedCache", async (t) => {
  await t.step("the bound holds the entries' weight, not their number", async () => {
    const cache = new VersionedCache(4);
    const c = counter();
    for (const key of ["a", "b", "c", "d"]) await cache.get(1, key, c.compute(key));
    assert.equal(cache.stats().entries, 4);
    // A heavy entry pushes out the least recently used ones until the weight fits.
    await cache.get(1, "heavy", c.compute("heavy"), 3);
    assert.equal(cache.stats().entries, 2);
    assert.ok(cache.has("d") && cache.has("heavy") && !cache.has("a") && !cache.has("c"));
    // A hit keeps its weight: nothing more is evicted.
    await cache.get(1, "d", c.compute("d"));
    assert.equal(cache.stats().entries, 2);
    // One more light entry: the heavy one, now the least recently used, goes.
    await cache.get(1, "e", c.compute("e"));
    assert.ok(!cache.has("heavy") && cache.has("d") && cache.has("e"));
  });
  await t.step("concurrent calls for one key share one computation", async () => {
    const cache = new VersionedCache();
    const c = counter();
    const results = await Promise.all(
      Array.from({ length: 5 }, () => cache.get(1, "k", c.compute("a"))),
    );
    assert.deepEqual(results, ["a", "a", "a", "a", "a"]);
    assert.equal(c.calls, 1);
    assert.deepEqual(cache.stats(), { hits: 4, misses: 1, entries: 1, version: 1 });
  });
  await t.step("a newer version drops every entry", async () => {
    const cache = new VersionedCache();
    const c = counter();
    await cache.get(1, "k", c.compute("old"));
    assert.equal(await cache.get(2, "k", c.compute("new")), "new");
    assert.equal(c.calls, 2);
  });
  await t.step("an older version is computed but never stored", async () => {
    const cache = new VersionedCache();
    const c = counter();
    await cache.get(5, "k", c.compute("v5"));
    assert.equal(await cache.get(4, "k", c.compute("v4")), "v4");
    assert.equal(await cache.get(5, "k", c.compute("again")), "v5");
  });
  await t.step("a failed computation is not kept", async () => {
    const cache = new VersionedCache();
    await assert.rejects(cache.get(1, "k", () => Promise.reject(new Error("boom"))));
    assert.equal(await cache.get(1, "k", () => Promise.resolve("ok")), "ok");
  });
  await t.step("the least recently used entry goes first", async () => {
    const cache = new VersionedCache(2);
    const c = counter();
    await cache.get(1, "a", c.compute("a"));
    await cache.get(1, "b", c.compute("b"));
    await cache.get(1, "a", c.compute("a"));
    await cache.get(1, "c", c.compute("c"));
    assert.equal(c.calls, 3);
    await cache.get(1, "a", c.compute("a"));
    assert.equal(c.calls, 3, "a was used recently and stays");
    await cache.get(1, "b", c.compute("b"));
    assert.equal(c.calls, 4, "b was evicted");
  });
  await t.step("entries expire after the time-to-live", async () => {
    const cache = new VersionedCache(10, 20);
    const c = counter();
    await cache.get(1, "k", c.compute("x"));
    await new Promise((r) => setTimeout(r, 40));
    await cache.get(1, "k", c.compute("x"));
    assert.equal(c.calls, 2);
  });
});
