/** src/platform/first_requests.ts: background work starts in the first quiet moment, or late. */
import assert from "node:assert/strict";
import { firstRequests } from "../../src/platform/first_requests.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether `promise` has resolved by now. */
async function isDone(promise: Promise<void>): Promise<boolean> {
  let done = false;
  promise.then(() => done = true);
  await sleep(0);
  return done;
}

Deno.test("first requests: settled after idleMs with nothing asked", async () => {
  const first = firstRequests({ idleMs: 50, maxMs: 5_000 });
  assert.equal(await isDone(first.settled()), false);
  await sleep(120);
  assert.equal(await isDone(first.settled()), true);
});

Deno.test("first requests: a request in flight holds it; its answer starts the idle wait", async () => {
  const first = firstRequests({ idleMs: 50, maxMs: 5_000 });
  const leave = first.enter();
  await sleep(150);
  assert.equal(await isDone(first.settled()), false, "not while a request is in flight");
  leave();
  leave(); // a second call counts once
  await sleep(20);
  assert.equal(await isDone(first.settled()), false, "not before idleMs");
  await sleep(100);
  assert.equal(await isDone(first.settled()), true);
});

Deno.test("first requests: under steady traffic, settled at maxMs between two answers", async () => {
  const first = firstRequests({ idleMs: 100, maxMs: 300 });
  const started = performance.now();
  // A request every 20 ms, each in flight for 10: never 100 ms of quiet.
  const traffic = (async () => {
    while (performance.now() - started < 600) {
      const leave = first.enter();
      await sleep(10);
      leave();
      await sleep(10);
    }
  })();
  await first.settled();
  const took = performance.now() - started;
  assert.ok(took >= 290, `not before maxMs (${took.toFixed(0)} ms)`);
  await traffic;
  // Once settled, enter() counts nothing and holds nothing.
  first.enter();
  assert.equal(await isDone(first.settled()), true);
});

Deno.test("first requests: past maxMs, a request in flight holds it until its answer", async () => {
  const first = firstRequests({ idleMs: 1_000, maxMs: 50, lastMs: 5_000 });
  const leave = first.enter();
  await sleep(150);
  assert.equal(await isDone(first.settled()), false, "not during the request");
  leave();
  assert.equal(await isDone(first.settled()), true, "right after its answer, not idleMs later");
});

Deno.test("first requests: requests that always overlap, settled at lastMs", async () => {
  const first = firstRequests({ idleMs: 100, maxMs: 50, lastMs: 300 });
  const started = performance.now();
  // Two requests in flight in turns: never a moment without one.
  let leave = first.enter();
  const traffic = (async () => {
    while (performance.now() - started < 600) {
      const next = first.enter();
      leave();
      leave = next;
      await sleep(10);
    }
    leave();
  })();
  await first.settled();
  const took = performance.now() - started;
  assert.ok(took >= 290, `not before lastMs (${took.toFixed(0)} ms)`);
  await traffic;
});
