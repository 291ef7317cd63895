/**
 * The suite's parts (tests/parts/parts.ts): every test file runs in exactly one part, the parts are
 * even by weight, and weigh.ts reads a JUnit report's seconds per file.
 */
import assert from "node:assert/strict";
import { fileWeights, partFiles, PARTS, splitIntoParts, testFiles } from "./parts/parts.ts";
import { weighReport } from "./parts/weigh.ts";

Deno.test("every test file is in exactly one part", () => {
  const files = testFiles();
  assert.ok(files.includes("suite_parts_test.ts"));
  const parted = Array.from({ length: PARTS }, (_, i) => partFiles(i + 1)).flat();
  assert.deepEqual([...parted].sort(), files);
});

Deno.test("parts are even by weight: heaviest first, each to the lightest part", () => {
  const weighed = new Map([["a", 10], ["b", 6], ["c", 5], ["d", 4], ["e", 1]]);
  const parts = splitIntoParts(weighed, 2);
  assert.deepEqual(parts, [["a", "d"], ["b", "c", "e"]]);
  // A file that was never weighed weighs the median of those that were.
  const weights = fileWeights(["x_test.ts", "new_test.ts"], { "x_test.ts": 3, "y": 1, "z": 9 });
  assert.equal(weights.get("new_test.ts"), 3);
});

Deno.test("weigh.ts sums a JUnit report's seconds per test file", () => {
  const xml = `<testsuites><testsuite name="./tests/parts/part_01.ts">
    <testcase name="one" classname="./tests/a/x_test.ts" time="1.25" line="5" col="6"></testcase>
    <testcase name="one &gt; a step" classname="./tests/a/x_test.ts" time="1" line="6" col="6">
    </testcase>
    <testcase name="two" classname="./tests/a/x_test.ts" time="0.5" line="9" col="6"></testcase>
    <testcase name="three" classname="./tests/y_test.ts" time="2" line="1" col="6"><skipped/></testcase>
    <testcase name="a db&apos;s test [postgres]" classname="./tests/helpers/db.ts" time="3"></testcase>
    <testcase name="a db&apos;s test [embedded]" classname="./tests/helpers/db.ts" time="4"></testcase>
    <testcase name="unknown [embedded]" classname="./tests/helpers/db.ts" time="9"></testcase>
  </testsuite></testsuites>`;
  const sources = new Map([
    ["a/x_test.ts", `Deno.test("one", () => {});`],
    ["z_test.ts", `dbTest("a db's test", async () => {});`],
  ]);
  assert.deepEqual(weighReport(xml, sources), {
    "a/x_test.ts": 1.8,
    "y_test.ts": 2,
    "z_test.ts": 7,
  });
});
