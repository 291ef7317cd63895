/**
 * What a visitor of the demo sees agrees with itself: no article shows a cover from a host that
 * does not exist (covers are the instance's own, or none).
 */
import assert from "node:assert/strict";
import { generateDemoRecords } from "../../src/ingest/seed.ts";
import type { BlogPostRecord } from "../../src/ingest/records.ts";

const records = [...generateDemoRecords()];

Deno.test("demo data: no article cover from a host that does not exist", () => {
  const posts = records.filter((r) => r.type === "blog_post") as BlogPostRecord[];
  assert.ok(posts.length > 0);
  const foreign = posts.filter((p) => p.cover_image_url !== null).map((p) =>
    `${p.slug}: ${p.cover_image_url}`
  );
  assert.deepEqual(foreign, []);
});
