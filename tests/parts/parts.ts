/**
 * The suite in parts. `deno task test` runs the sixteen files of this folder (part_01.ts to
 * part_16.ts), each of which imports a sixteenth of the test files: every `*_test.ts` under tests/,
 * in path order, the first to part 1, the second to part 2, and so on. Each module `deno test` is given
 * runs in a worker of its own, which loads the service's 200 modules and its npm packages again
 * (0.5-1 s a file on this project's 2-core machine, for 164 files); a part loads them once for
 * its ten files. A test file still runs alone: `deno test --config deno.dev.json --allow-all
 * tests/x_test.ts`. The files are not named `*_test.ts`, so that `deno test tests/` does not run
 * every test twice.
 */

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

/** The test files of part `n` (1 to PARTS). */
export function partFiles(n: number): string[] {
  return testFiles().filter((_, i) => i % PARTS === n - 1);
}

/** Registers the tests of part `n`: imports its files in order. */
export async function loadPart(n: number): Promise<void> {
  for (const file of partFiles(n)) await import(new URL(file, TESTS).href);
}
