/**
 * Writes tests/parts/weights.json, the seconds each test file took, from the JUnit report of a run
 * of the whole suite: `deno task test --junit-path=.ci/junit.xml`, then
 * `deno run --allow-read --allow-write tests/parts/weigh.ts .ci/junit.xml`. The parts
 * (tests/parts/parts.ts) are made even by these weights; rewrite them when files come, go or
 * change much.
 */

/** Seconds per test file (`./tests/x_test.ts` as `x_test.ts`) from a JUnit report's test cases. */
export function weighReport(xml: string): Record<string, number> {
  const seconds: Record<string, number> = {};
  const testcase = /<testcase\b[^>]*>/g;
  for (const [tag] of xml.matchAll(testcase)) {
    const file = /classname="\.\/tests\/([^"]+)"/.exec(tag)?.[1];
    const time = Number(/\btime="([0-9.]+)"/.exec(tag)?.[1] ?? 0);
    if (file) seconds[file] = (seconds[file] ?? 0) + time;
  }
  return Object.fromEntries(
    Object.entries(seconds).sort(([a], [b]) => a.localeCompare(b))
      .map(([file, s]) => [file, Math.round(s * 10) / 10]),
  );
}

if (import.meta.main) {
  const [report] = Deno.args;
  if (!report || report === "--help") {
    console.error("Usage: deno run --allow-read --allow-write tests/parts/weigh.ts JUNIT_XML");
    Deno.exit(report ? 0 : 2);
  }
  const weights = weighReport(await Deno.readTextFile(report));
  const files = Object.keys(weights).length;
  if (files === 0) {
    console.error(`${report} holds no test case of a file under tests/`);
    Deno.exit(1);
  }
  const out = new URL("./weights.json", import.meta.url);
  await Deno.writeTextFile(out, JSON.stringify(weights, null, 2) + "\n");
  console.error(`${out.pathname}: ${files} files`);
}
