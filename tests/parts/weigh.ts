/**
 * Writes tests/parts/weights.json, the seconds each test file took, from the JUnit report of a run
 * of the whole suite: `deno task test --junit-path=.ci/junit.xml`, then
 * `deno run --allow-read --allow-write tests/parts/weigh.ts .ci/junit.xml`. The parts
 * (tests/parts/parts.ts) are made even by these weights; rewrite them when files come, go or
 * change much.
 */
import { testFiles } from "./parts.ts";

/** The XML entities a JUnit report escapes in a test's name. */
const ENTITIES: Record<string, string> = {
  "&amp;": "&",
  "&lt;": "<",
  "&gt;": ">",
  "&quot;": '"',
  "&apos;": "'",
};

/**
 * Seconds per test file (`./tests/x_test.ts` as `x_test.ts`) from a JUnit report's tests; its
 * steps (`name > step`) are already in their test's time. A test registered by a helper
 * (`dbTest` in tests/helpers/db.ts: the report names the helper's file) is the file's whose
 * source (`sources`, by file) holds its name, less the engine, as a string; none or several: left
 * out.
 */
export function weighReport(
  xml: string,
  sources: Map<string, string> = new Map(),
): Record<string, number> {
  const seconds: Record<string, number> = {};
  const testcase = /<testcase\b[^>]*>/g;
  for (const [tag] of xml.matchAll(testcase)) {
    const name = (/\bname="([^"]*)"/.exec(tag)?.[1] ?? "")
      .replace(/&(amp|lt|gt|quot|apos);/g, (e) => ENTITIES[e]);
    if (name.includes(" > ")) continue;
    let file = /classname="\.\/tests\/([^"]+)"/.exec(tag)?.[1];
    if (file && !file.endsWith("_test.ts")) file = fileNaming(name, sources);
    const time = Number(/\btime="([0-9.]+)"/.exec(tag)?.[1] ?? 0);
    if (file) seconds[file] = (seconds[file] ?? 0) + time;
  }
  return Object.fromEntries(
    Object.entries(seconds).sort(([a], [b]) => a.localeCompare(b))
      .map(([file, s]) => [file, Math.round(s * 10) / 10]),
  );
}

/** The one file whose source holds test `name` (less ` [engine]`) as a string literal. */
function fileNaming(name: string, sources: Map<string, string>): string | undefined {
  const base = name.replace(/ \[(postgres|embedded)\]$/, "");
  const literals = [JSON.stringify(base), `'${base}'`, `\`${base}\``];
  const found = [...sources].filter(([, text]) => literals.some((l) => text.includes(l)));
  return found.length === 1 ? found[0][0] : undefined;
}

if (import.meta.main) {
  const [report] = Deno.args;
  if (!report || report === "--help") {
    console.error("Usage: deno run --allow-read --allow-write tests/parts/weigh.ts JUNIT_XML");
    Deno.exit(report ? 0 : 2);
  }
  const tests = new URL("../", import.meta.url);
  const sources = new Map(
    testFiles().map((file) => [file, Deno.readTextFileSync(new URL(file, tests))]),
  );
  const weights = weighReport(await Deno.readTextFile(report), sources);
  const files = Object.keys(weights).length;
  if (files === 0) {
    console.error(`${report} holds no test case of a file under tests/`);
    Deno.exit(1);
  }
  const out = new URL("./weights.json", import.meta.url);
  await Deno.writeTextFile(out, JSON.stringify(weights, null, 2) + "\n");
  const missing = sources.size - files;
  console.error(
    `${out.pathname}: ${files} files${missing ? ` (${missing} not in the report)` : ""}`,
  );
}
