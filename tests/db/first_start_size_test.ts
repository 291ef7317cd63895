/**
 * The first start on the embedded database (`deno task start`: migrate, seed 2,000 demo
 * opportunities) leaves `.data/` small, and the README's numbers are what it holds. PGlite runs
 * PostgreSQL in single-user mode, where nothing checkpoints by the volume of WAL, so the seed's
 * write-ahead log stayed (257 MB of 298 MB) until the service checkpoints after seeding with a
 * small max_wal_size.
 */
import assert from "node:assert/strict";
import { prepare } from "../../main.ts";
import { readConfig } from "../../src/platform/config.ts";

/** The bytes of the files under `dir`. */
async function sizeOf(dir: string): Promise<number> {
  let total = 0;
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) total += await sizeOf(path);
    else if (entry.isFile) total += (await Deno.stat(path)).size;
  }
  return total;
}

Deno.test({
  name: "the first start leaves .data/ under 100 MB, holding the README's numbers",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "oppintel_first_start_" });
    try {
      const { db, firstStart } = await prepare(readConfig({ DATA_DIR: dir }));
      let online: number;
      try {
        assert.equal(firstStart?.opportunities, 2000);
        [{ online }] = await db.sql<{ online: number }[]>`
          select count(*)::int as online from opportunities where is_online_deliverable`;
      } finally {
        await db.close();
      }
      const megabytes = await sizeOf(dir) / 1_000_000;
      assert.ok(megabytes < 100, `.data/ holds ${megabytes.toFixed(0)} MB`);
      const readme = await Deno.readTextFile(new URL("../../README.md", import.meta.url));
      assert.match(readme, new RegExp(`"total": ${online}\\b`), "the first list's total");
      assert.match(readme, new RegExp(`\\b${2000 - online} demo\\s+opportunities cannot`));
      const stated = /`\.data\/` holds about (\d+) MB/.exec(readme);
      assert.ok(stated, "the README says how large .data/ is");
      assert.ok(Math.abs(Number(stated[1]) - megabytes) <= 15, `${stated[1]} MB stated`);
    } finally {
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
