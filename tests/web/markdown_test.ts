/** Article headings fit under the page's h1. */
import assert from "node:assert/strict";
import { renderMarkdown } from "../../src/web/docs/markdown.ts";
import { generateDemoRecords } from "../../src/ingest/seed.ts";
import type { BlogPostRecord } from "../../src/ingest/records.ts";
import { dbTest } from "../helpers/db.ts";
import { webTestApp } from "../helpers/web.ts";

/** The heading levels of an HTML fragment, in order. */
function headingLevels(html: string): number[] {
  return [...html.matchAll(/<h([1-6])[\s>]/g)].map((m) => Number(m[1]));
}

/** What is wrong with an outline: more or fewer than one h1, or a level skipped going down. */
function outlineProblems(levels: number[]): string[] {
  const problems: string[] = [];
  const h1s = levels.filter((l) => l === 1).length;
  if (h1s !== 1) problems.push(`${h1s} h1 elements`);
  if (levels[0] !== 1) problems.push("the first heading is not the h1");
  for (let i = 1; i < levels.length; i++) {
    if (levels[i] > levels[i - 1] + 1) problems.push(`h${levels[i - 1]} then h${levels[i]}`);
  }
  return problems;
}

Deno.test("renderMarkdown maps the body's highest level to h2 and skips no level", async (t) => {
  const cases: [string, string, string | undefined, number[]][] = [
    ["a body starting at ##", "## A\n\n### B\n\n## C", undefined, [2, 3, 2]],
    ["a body starting at #", "# A\n\n## B\n\n### C", undefined, [2, 3, 4]],
    ["a body starting at ###", "### A\n\n#### B", undefined, [2, 3]],
    ["a skipped level is closed up", "## A\n\n#### B\n\n##### C\n\n### D", undefined, [2, 3, 4, 3]],
    ["a first heading below the highest", "### A\n\n## B", undefined, [2, 2]],
    ["h6 stays the deepest", "# A\n\n## B\n\n### C\n\n#### D\n\n##### E\n\n###### F", undefined, [
      2,
      3,
      4,
      5,
      6,
      6,
    ]],
    ["the title repeated first is dropped", "# Why CI flakes\n\n## Cause", "Why CI flakes", [2]],
    ["compared loosely", "#  why CI  flakes \n\ntext\n\n### Cause", "Why CI flakes", [2]],
    ["not when it is not first", "Intro.\n\n# Why CI flakes", "Why CI flakes", [2]],
    ["not another heading", "# Something else\n\n## Cause", "Why CI flakes", [2, 3]],
    ["no headings", "Just text.", "T", []],
  ];
  for (const [name, markdown, title, levels] of cases) {
    await t.step(name, () => {
      assert.deepEqual(headingLevels(renderMarkdown(markdown, { title })), levels);
    });
  }
  const dropped = renderMarkdown("# Why CI flakes\n\nBecause.", { title: "Why CI flakes" });
  assert.equal(dropped.trim(), "<p>Because.</p>");
});

Deno.test("every demo article renders an outline without skipped levels", () => {
  const posts = [...generateDemoRecords({ opportunities: 200 })].filter((r): r is BlogPostRecord =>
    r.type === "blog_post"
  );
  assert.ok(posts.length >= 5, `${posts.length} demo articles`);
  for (const post of posts) {
    const levels = [1, ...headingLevels(renderMarkdown(post.body_md, { title: post.title }))];
    assert.deepEqual(outlineProblems(levels), [], post.slug);
    assert.ok(levels.length > 1, `${post.slug} has sections`);
  }
});

dbTest("every demo article page has one h1 and no skipped heading level", async (db, t) => {
  const app = webTestApp(db);
  const slugs = await db.sql<{ slug: string; title: string }[]>`
    select slug, title from blog_posts where published_at <= now() order by slug`;
  assert.ok(slugs.length >= 5);
  for (const { slug, title } of slugs) {
    await t.step(slug, async () => {
      const res = await app.handler(new Request(`${app.base}/blog/${slug}`));
      assert.equal(res.status, 200);
      const page = await res.text();
      assert.deepEqual(outlineProblems(headingLevels(page)), []);
      // The title is shown once, as the page's h1, not again from the body.
      const escaped = title.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/&/g, "&amp;");
      assert.equal([...page.matchAll(new RegExp(`<h\\d>${escaped}</h\\d>`, "g"))].length, 1);
    });
  }
}, { seed: { opportunities: 200 } });
