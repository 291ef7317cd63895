/**
 * The suite in parts. `deno task test` runs the sixteen files of this folder (part_01.ts to
 * part_16.ts), each of which imports some of the test files. Each module `deno test` is given runs
 * in a worker of its own, which loads the service's 200 modules and its npm packages again (0.5-1 s
 * a file on this project's 2-core machine, for 164 files); a part loads them once for its ten
 * files. A test file still runs alone: `deno test --config deno.dev.json --allow-all
 * tests/x_test.ts`. The files are not named `*_test.ts`, so that `deno test tests/` does not run
 * every test twice.
 *
 * Parts are made even by weight, so that neither of the two cores waits alone at the end: every
 * `*_test.ts` under tests/ goes, heaviest first, to the part with the least weight so far. A file's
 * weight is its seconds in `weights.json` (written by `weigh.ts` from a run's JUnit report); a file
 * not in it (a new one) weighs the median.
 */
import weights from "./weights.json" with { type: "json" };

/** How many parts: part_01.ts to part_16.ts. */
export const PARTS = 16;

const TESTS = new URL("../", import.meta.url);

/** Every test file under tests/ (relative paths, sorted). */
export function testFiles(): string[] {
  const found: string[] = [];
  const walk = (dir: URL, prefix: string) => {
    for (const entry of Deno.readDirSync(dir)) {
      if (entry.isDirectory) walk(new URL(`${entry.name}/`, dir), `${prefix}${entry.name}/`);
      else if (entry.name.endsWith("_test.ts")) found.push(`${prefix}${entry.name}`);
    }
  };
  walk(TESTS, "");
  return found.sort();
}

/** The seconds each file is expected to take: weights.json, or the median for a file not in it. */
export function fileWeights(
  files: string[],
  known: Record<string, number> = weights,
): Map<string, number> {
  const measured = Object.values(known).sort((a, b) => a - b);
  const median = measured.length > 0 ? measured[Math.floor(measured.length / 2)] : 1;
  return new Map(files.map((file) => [file, known[file] ?? median]));
}

/** The files of each part, even by weight (heaviest first to the lightest part so far). */
export function splitIntoParts(weighed: Map<string, number>, parts = PARTS): string[][] {
  const members: string[][] = Array.from({ length: parts }, () => []);
  const loads = new Array<number>(parts).fill(0);
  const order = [...weighed].sort(([a, x], [b, y]) => y - x || a.localeCompare(b));
  for (const [file, weight] of order) {
    const lightest = loads.indexOf(Math.min(...loads));
    members[lightest].push(file);
    loads[lightest] += weight;
  }
  return members.map((files) => files.sort());
}

/** The test files of part `n` (1 to PARTS). */
export function partFiles(n: number): string[] {
  return splitIntoParts(fileWeights(testFiles()))[n - 1];
}

/** Registers the tests of part `n`: imports its files in order. */
export async function loadPart(n: number): Promise<void> {
  for (const file of partFiles(n)) await import(new URL(file, TESTS).href);
}
