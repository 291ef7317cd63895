import assert from "node:assert/strict";
import { createGate } from "../../src/platform/gate.ts";

Deno.test("a gate runs at most its limit at once, in arrival order, and frees a place on failure", async () => {
  const gate = createGate(2);
  let now = 0;
  let most = 0;
  const started: number[] = [];
  const work = (i: number) =>
    gate.run(async () => {
      started.push(i);
      most = Math.max(most, ++now);
      await new Promise((resolve) => setTimeout(resolve, 5));
      now--;
      if (i === 1) throw new Error("boom");
      return i;
    });
  const results = await Promise.allSettled([0, 1, 2, 3, 4, 5].map(work));
  assert.equal(most, 2, "never more than two at once");
  assert.deepEqual(started, [0, 1, 2, 3, 4, 5], "first come, first served");
  assert.equal(results[1].status, "rejected");
  assert.deepEqual(
    results.filter((r) => r.status === "fulfilled").map((r) => r.value),
    [0, 2, 3, 4, 5],
  );
  assert.equal(gate.running, 0);
  assert.equal(gate.waiting, 0);
});

Deno.test("a gate of 0 lets everything through at once", async () => {
  const gate = createGate(0);
  let now = 0;
  let most = 0;
  await Promise.all([1, 2, 3].map(() =>
    gate.run(async () => {
      most = Math.max(most, ++now);
      await new Promise((resolve) => setTimeout(resolve, 5));
      now--;
    })
  ));
  assert.equal(most, 3);
});
