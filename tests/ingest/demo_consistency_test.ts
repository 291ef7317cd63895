/**
 * What a visitor of the demo sees agrees with itself:
 * - no article shows a cover from a host that does not exist (covers are the instance's own, or
 *   none);
 * - one idea, one verdict band: the rewordings of one theme, audience and job ("A mobile app for
 *   independent consultants who need to prepare expense reports..." and "... that helps
 *   independent consultants prepare expense reports...") score within a small spread and are
 *   never both Build and Skip;
 * - the weeks end at the seed date: seeded on a date, the newest week of mentions is the last
 *   whole week before it, and nothing is dated after it; the texts are the same whatever the date.
 */
import assert from "node:assert/strict";
import { generateDemoRecords } from "../../src/ingest/seed.ts";
import type {
  BlogPostRecord,
  OpportunityRecord,
  ThemeMentionsRecord,
} from "../../src/ingest/records.ts";
import { DEFAULT_SEED, themeInfos } from "../../src/ingest/demo.ts";
import { titleAt } from "../../src/ingest/demo_titles.ts";

const records = [...generateDemoRecords()];
const ofType = <T>(type: string, from = records) => from.filter((r) => r.type === type) as T[];

/**
 * The largest spread of score among the rewordings of one idea: less than the 25 points of the
 * Validate band between Build and Skip. Most of it is the evidence bonus (-4 to +5), which
 * follows each row's evidence count.
 */
const MAX_SPREAD = 20;

Deno.test("demo data: no article cover from a host that does not exist", () => {
  const posts = ofType<BlogPostRecord>("blog_post");
  assert.ok(posts.length > 0);
  const foreign = posts.filter((p) => p.cover_image_url !== null).map((p) =>
    `${p.slug}: ${p.cover_image_url}`
  );
  assert.deepEqual(foreign, []);
});

Deno.test("demo data: one idea, one verdict band", () => {
  const opportunities = ofType<OpportunityRecord>("opportunity");
  const themes = themeInfos(DEFAULT_SEED);
  const total = themes.reduce((sum, t) => sum + t.weight, 0);
  const groups = new Map<string, OpportunityRecord[]>();
  for (const [i, o] of opportunities.entries()) {
    const { info, audience, job } = titleAt(DEFAULT_SEED, i, themes, total);
    const key = `${info.theme.slug} | ${audience} | ${job}`;
    groups.set(key, [...groups.get(key) ?? [], o]);
  }
  const shared = [...groups.entries()].filter(([, rows]) => rows.length > 1);
  assert.ok(shared.length > 100, `${shared.length} groups of rewordings`);
  const contradicting: string[] = [];
  const wide: string[] = [];
  for (const [key, rows] of shared) {
    const verdicts = new Set(rows.map((o) => o.recommendation));
    if (verdicts.has("Build") && verdicts.has("Skip")) contradicting.push(key);
    const scores = rows.map((o) => o.score);
    const spread = Math.max(...scores) - Math.min(...scores);
    if (spread > MAX_SPREAD) wide.push(`${key}: ${scores.join(", ")}`);
  }
  assert.deepEqual(contradicting.slice(0, 5), [], `${contradicting.length} groups`);
  assert.deepEqual(wide.slice(0, 5), [], `${wide.length} groups`);
  // Still every verdict in the demo, in earnest numbers.
  for (const verdict of ["Build", "Validate", "Skip"]) {
    const n = opportunities.filter((o) => o.recommendation === verdict).length;
    assert.ok(n >= 150, `${verdict}: ${n}`);
  }
});

Deno.test("demo data: seeded on a date, the weeks end there and the texts stay", () => {
  const anchor = new Date("2026-12-01T10:00:00Z");
  const dated = [...generateDemoRecords({ anchor })];
  const weeks = ofType<ThemeMentionsRecord>("theme_mentions", dated).map((r) => r.date).sort();
  assert.equal(weeks.at(-1), "2026-11-23", "the last whole week before the seed date");
  assert.equal(new Date(`${weeks.at(-1)}T00:00:00Z`).getUTCDay(), 1, "a Monday");
  const times = [
    ...ofType<OpportunityRecord>("opportunity", dated).flatMap((o) => [
      o.created_at,
      ...(o.evidence ?? []).map((e) => e.posted_at),
    ]),
    ...ofType<BlogPostRecord>("blog_post", dated).map((p) => p.published_at)
      .filter((p): p is string => typeof p === "string" && !p.startsWith("2099")),
  ];
  assert.ok(times.every((t) => Date.parse(t) <= anchor.getTime()), "nothing after the seed date");
  const newest = Math.max(...times.map((t) => Date.parse(t)));
  assert.ok(anchor.getTime() - newest < 14 * 86_400_000, "the newest item is recent");
  const text = (all: typeof records) =>
    all.map((r) =>
      JSON.stringify(
        r,
        (k, v) => ["created_at", "posted_at", "published_at", "date"].includes(k) ? undefined : v,
      )
    );
  assert.deepEqual(text(dated), text(records), "every text and number but the dates is the same");
});
