/**
 * Idea matches and similar lists that miss the cache wait their turn at the search gate
 * (DB_SEARCH_CONCURRENCY), as keyword searches do: fifty callers at once must not share the
 * database's cores until each passes the statement time-out. On both engines.
 */
import assert from "node:assert/strict";
import { createContent } from "../../src/catalog/content.ts";
import { readDataVersion } from "../../src/catalog/common.ts";
import { IdeaQuerySchema, SimilarQuerySchema } from "../../src/catalog/similar/similar_schemas.ts";
import type { ReadRouter } from "../../src/db/replicas.ts";
import type { Sql } from "../../src/db/open.ts";
import { dbTest } from "../helpers/db.ts";
import { loadFixture } from "../helpers/app.ts";

/** A read router that runs every read on `sql` and counts the reads running at once. */
function countingReads(sql: Sql) {
  const seen = { now: 0, most: 0, reads: 0 };
  const reads: ReadRouter = {
    async run(_version, read) {
      seen.reads++;
      seen.most = Math.max(seen.most, ++seen.now);
      try {
        await new Promise((resolve) => setTimeout(resolve, 10));
        return await read(sql);
      } finally {
        seen.now--;
      }
    },
    check: () => Promise.resolve([]),
    primaryReads: () => ({ none_ready: 0, failed: 0 }),
    close: () => Promise.resolve(),
  };
  return { reads, seen };
}

const IDEAS = [
  "An app that helps freelance designers chase late invoices",
  "A tool that reminds dentists' patients to rebook cleanings",
  "Track the cost of every cloud bill",
  "Help Etsy sellers edit product photos",
  "A scheduler for podcast guests",
  "Sync stock counts between online shops",
];

for (const limit of [1, 2]) {
  dbTest(
    `idea matches and similar lists run ${limit} at a time at a gate of ${limit}`,
    async ({ sql }) => {
      const ids = await loadFixture(sql);
      const version = await readDataVersion(sql);
      const { reads, seen } = countingReads(sql);
      const content = createContent(sql, { publicBaseUrl: "x" }, {
        maxEntries: 0,
        searchConcurrency: limit,
        reads,
      });
      const answers = await Promise.all([
        ...IDEAS.map((text) => content.matchIdea(version, IdeaQuerySchema.parse({ text }))),
        ...Object.values(ids).slice(0, 4).map((id) =>
          content.findSimilar(version, SimilarQuerySchema.parse({ id }))
        ),
      ]);
      assert.equal(answers.length, IDEAS.length + Math.min(4, Object.keys(ids).length));
      assert.equal(seen.reads, answers.length, "each answer is one read");
      assert.equal(seen.most, limit, `at most ${limit} at once, and the gate was filled`);
    },
  );
}

dbTest("without a gate, idea matches run all at once", async ({ sql }) => {
  await loadFixture(sql);
  const version = await readDataVersion(sql);
  const { reads, seen } = countingReads(sql);
  const content = createContent(sql, { publicBaseUrl: "x" }, { maxEntries: 0, reads });
  await Promise.all(
    IDEAS.map((text) => content.matchIdea(version, IdeaQuerySchema.parse({ text }))),
  );
  assert.equal(seen.most, IDEAS.length);
});
