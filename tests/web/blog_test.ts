import assert from "node:assert/strict";
import { HtmlValidate } from "html-validate";
import { createWebHandler, forwardedClientIp } from "../../src/web/handler.ts";
import { dbTest } from "../helpers/db.ts";
import { loadFixture } from "../helpers/app.ts";
import { webTestApp } from "../helpers/web.ts";

const BASE = "https://oppintel.example";

function get(
  app: { handler: (r: Request) => Promise<Response> },
  path: string,
  init?: RequestInit,
) {
  return app.handler(new Request(BASE + path, init));
}

async function bumpVersion(sql: import("../../src/db/open.ts").Sql) {
  await sql`update data_version set version = version + 1, changed_at = now()`;
}

dbTest("GET /blog/{slug} renders a published article with its metadata", async (db, t) => {
  const ids = await loadFixture(db.sql);
  const app = webTestApp(db, { base: BASE });
  const response = await get(app, "/blog/ci-analysis");
  const page = await response.text();

  await t.step("status, content type and security headers", () => {
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "text/html; charset=utf-8");
    const csp = response.headers.get("content-security-policy") ?? "";
    assert.match(csp, /default-src 'none'/);
    assert.doesNotMatch(csp, /unsafe-inline/);
    assert.equal(response.headers.get("x-content-type-options"), "nosniff");
    assert.equal(response.headers.get("referrer-policy"), "strict-origin-when-cross-origin");
  });

  await t.step("canonical URL, Open Graph, title, tags, date, body", () => {
    assert.match(
      page,
      /<link rel="canonical" href="https:\/\/oppintel.example\/blog\/ci-analysis">/,
    );
    assert.match(page, /<meta property="og:title" content="Why CI flakes">/);
    assert.match(
      page,
      /<meta property="og:url" content="https:\/\/oppintel.example\/blog\/ci-analysis">/,
    );
    assert.match(page, /<meta property="og:description" content="A look at flaky pipelines">/);
    assert.match(page, /<h1>Why CI flakes<\/h1>/);
    assert.match(page, /<time datetime="2026-06-01T00:00:00.000Z">1 June 2026<\/time>/);
    assert.match(page, /<li>ci<\/li>/);
    // The body's own "# Why CI flakes" repeats the page's h1: it is left out.
    assert.match(page, /<div class="article-body">\s*<p>Because.<\/p>/);
    assert.doesNotMatch(page, /<h2>Why CI flakes<\/h2>/);
    assert.doesNotMatch(page, /<script/);
  });

  await t.step("the related opportunity's summary", () => {
    assert.match(page, /id="related-opportunity"/);
    assert.match(page, /Retry-aware CI dashboard for flaky tests/);
    assert.match(page, new RegExp(`/api/v1/opportunities/${ids["opp-1"]}`));
    assert.match(
      page,
      new RegExp(
        `<a href="https://oppintel.example/opportunities/${
          ids["opp-1"]
        }/retry-aware-ci-dashboard-for-flaky-tests">`,
      ),
      "its title links to its public page",
    );
  });

  await t.step("the page is valid HTML", async () => {
    const validator = new HtmlValidate({ extends: ["html-validate:recommended"] });
    const report = await validator.validateString(page);
    const messages = report.results.flatMap((r) =>
      r.messages.map((m) => `${m.line}:${m.column} ${m.ruleId} ${m.message}`)
    );
    assert.deepEqual(messages, []);
    assert.equal(report.valid, true);
  });

  await t.step("a cover image is shown and shared", async () => {
    const other = await (await get(app, "/blog/invoices")).text();
    assert.match(other, /<img class="cover" src="https:\/\/img.example\/x.png" alt="">/);
    assert.match(other, /<meta property="og:image" content="https:\/\/img.example\/x.png">/);
    assert.doesNotMatch(other, /related-opportunity/);
  });
});

dbTest("GET /blog/{slug} answers 404 for drafts, scheduled and unknown articles", async (db) => {
  await loadFixture(db.sql);
  await db
    .sql`update blog_posts set published_at = now() + interval '1 day' where slug = 'invoices'`;
  const app = webTestApp(db, { base: BASE });
  for (
    const path of [
      "/blog/draft-post",
      "/blog/invoices",
      "/blog/nothing",
      "/blog/Bad_Slug",
      "/blog/a/b",
    ]
  ) {
    const response = await get(app, path);
    assert.equal(response.status, 404, path);
    assert.equal(response.headers.get("content-type"), "text/html; charset=utf-8");
    assert.match(await response.text(), /Page not found/);
  }
});

dbTest("article bodies: raw HTML and script links are shown as text, never run", async (db) => {
  await db.sql`
    insert into blog_posts (slug, title, excerpt, body_md, published_at)
    values ('evil', 'Evil <b>title</b>', 'x" onmouseover="y',
      ${"Hi <script>alert(1)</script> <img src=x onerror=alert(2)>\n\n[click](javascript:alert(3))"},
      now() - interval '1 hour')`;
  const app = webTestApp(db, { base: BASE });
  const page = await (await get(app, "/blog/evil")).text();
  assert.doesNotMatch(page, /<script>alert/);
  assert.doesNotMatch(page, /<img src=x/);
  assert.doesNotMatch(page, /href="javascript:/);
  assert.match(page, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
  assert.match(page, /<h1>Evil &lt;b&gt;title&lt;\/b&gt;<\/h1>/);
  assert.match(page, /content="x&quot; onmouseover=&quot;y"/);
});

dbTest("GET /blog lists published articles, newest first; the feed is Atom", async (db, t) => {
  await loadFixture(db.sql);
  const app = webTestApp(db, { base: BASE });

  await t.step("the list", async () => {
    const response = await get(app, "/blog");
    assert.equal(response.status, 200);
    const page = await response.text();
    const links = [...page.matchAll(/<h2><a href="\/blog\/([a-z0-9-]+)">/g)].map((m) => m[1]);
    assert.deepEqual(links, ["invoices", "ci-analysis"]);
    assert.equal((await get(app, "/blog?page=2")).status, 404);
    assert.equal((await get(app, "/blog?page=x")).status, 404);
  });

  await t.step("the feed", async () => {
    const response = await get(app, "/blog/feed.xml");
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "application/atom+xml; charset=utf-8");
    const feed = await response.text();
    assert.match(
      feed,
      /^<\?xml version="1.0" encoding="utf-8"\?>\n<feed xmlns="http:\/\/www.w3.org\/2005\/Atom">/,
    );
    const ids = [...feed.matchAll(/<id>([^<]+)<\/id>/g)].map((m) => m[1]);
    assert.deepEqual(ids, [
      "https://oppintel.example/blog",
      "https://oppintel.example/blog/invoices",
      "https://oppintel.example/blog/ci-analysis",
    ]);
    assert.match(feed, /<updated>2026-06-02T00:00:00.000Z<\/updated>/);
    assert.doesNotMatch(feed, /draft-post/);
  });
});

dbTest("article pages are cached until the content version changes", async (db) => {
  await loadFixture(db.sql);
  const app = webTestApp(db, { base: BASE });
  const first = await get(app, "/blog/ci-analysis");
  const etag = first.headers.get("etag")!;
  assert.match(await first.text(), /Because\./);

  await db.sql`update blog_posts set body_md = 'Rewritten.' where slug = 'ci-analysis'`;
  // Unchanged version: the cached page (no query of the article) is served.
  assert.match(await (await get(app, "/blog/ci-analysis")).text(), /Because\./);
  const notModified = await get(app, "/blog/ci-analysis", { headers: { "If-None-Match": etag } });
  assert.equal(notModified.status, 304);

  await bumpVersion(db.sql);
  const fresh = await get(app, "/blog/ci-analysis");
  const text = await fresh.text();
  assert.match(text, /Rewritten\./);
  assert.doesNotMatch(text, /Because\./);
  assert.notEqual(fresh.headers.get("etag"), etag);
});

dbTest(
  "the web answers only its own paths, and only GET on pages (the app answers HEAD)",
  async (db) => {
    await loadFixture(db.sql);
    const web = createWebHandler({ sql: db.sql, context: { publicBaseUrl: BASE }, log: () => {} });
    assert.equal(await web(new Request(`${BASE}/api/v1/blog`)), undefined);
    assert.equal(await web(new Request(`${BASE}/blogger`)), undefined);
    assert.equal(await web(new Request(`${BASE}/nothing`)), undefined);
    assert.equal((await web(new Request(`${BASE}/`)))?.status, 200, "the home page is the web's");
    const post = await web(new Request(`${BASE}/blog/ci-analysis`, { method: "POST" }));
    assert.equal(post?.status, 405);
    assert.equal(post?.headers.get("allow"), "GET, HEAD");
    assert.equal(post?.headers.get("content-type"), "application/json; charset=utf-8");
    await post?.body?.cancel();
    const css = await web(new Request(`${BASE}/assets/web.css`));
    assert.equal(css?.headers.get("content-type"), "text/css; charset=utf-8");
    assert.match(await css!.text(), /font-family/);
    const js = await web(new Request(`${BASE}/assets/copy.js`));
    assert.equal(js?.headers.get("content-type"), "text/javascript; charset=utf-8");
    assert.match(await js!.text(), /clipboard/);
  },
);

Deno.test("forwardedClientIp takes the proxy's entry, not the client's", () => {
  const request = new Request(`${BASE}/account`, {
    headers: { "X-Forwarded-For": "203.0.113.9, 198.51.100.7" },
  });
  assert.equal(forwardedClientIp(request), "198.51.100.7");
  assert.equal(forwardedClientIp(new Request(`${BASE}/account`)), "unknown");
});
