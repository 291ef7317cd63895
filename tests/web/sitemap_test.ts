/**
 * /sitemap.xml, its parts and /robots.txt: valid XML in the sitemaps.org namespace listing the
 * public pages, every category's and theme's page, every published article and every
 * opportunity's canonical url (as the API answers
 * it), and nothing else: no draft, no scheduled article. Past the URL limit (made small here) the
 * sitemap is an index whose parts hold the same URLs, none over the limit.
 */
import assert from "node:assert/strict";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { dbTest, type TestDb } from "../helpers/db.ts";
import { loadFixture, makeKey, testApp } from "../helpers/app.ts";
import { webTestApp } from "../helpers/web.ts";
import { DOC_PAGES } from "../../src/web/docs_pages.ts";

/** The public pages the sitemap lists before the articles. */
const PAGES = [
  "/",
  "/opportunities",
  "/blog",
  "/docs",
  ...DOC_PAGES.map((p) => `/docs/${p.slug}`),
  "/docs/api",
];

/** The fixture's category and theme pages (2 categories, 3 themes), listed after PAGES. */
const CATALOGUE = [
  "/categories/developer-tools",
  "/categories/small-business",
  "/themes/flaky-ci",
  "/themes/invoice-chasing",
  "/themes/legacy-docs",
];

const BASE = "https://oppintel.example";
const XMLNS = "http://www.sitemaps.org/schemas/sitemap/0.9";

/** The `loc`s of a urlset, after checking it is well-formed and in the protocol's namespace. */
function locsOf(text: string, root: "urlset" | "sitemapindex" = "urlset"): string[] {
  assert.equal(XMLValidator.validate(text), true, text.slice(0, 300));
  const doc = new XMLParser({ ignoreAttributes: false }).parse(text);
  assert.ok(doc[root], `a ${root}`);
  assert.equal(doc[root]["@_xmlns"], XMLNS);
  const child = root === "urlset" ? "url" : "sitemap";
  return [doc[root][child] ?? []].flat().map((entry: { loc: string }) => entry.loc);
}

/** What the sitemap must list: public pages, published articles, every opportunity's url. */
async function expected(db: TestDb): Promise<string[]> {
  const app = testApp(db);
  const { key } = await makeKey(db.sql, "pro");
  const list = await (await app.get("/api/v1/opportunities?online_only=false&page_size=100", key))
    .json();
  const blog = await (await app.get("/api/v1/blog?page_size=100", key)).json();
  return [
    ...[...PAGES, ...CATALOGUE].map((path) => BASE + path),
    ...blog.items.map((i: { url: string }) => i.url),
    ...list.items.map((i: { url: string }) => i.url),
  ].sort();
}

dbTest("GET /sitemap.xml lists what is published and nothing else", async (db, t) => {
  await loadFixture(db.sql);
  // A scheduled article: published tomorrow, so not yet.
  await db.sql`
    insert into blog_posts (slug, title, body_md, published_at)
    values ('scheduled-post', 'Soon', 'x', now() + interval '1 day')`;
  const app = testApp(db);
  const want = await expected(db);

  await t.step("one document: the pages, articles and opportunities", async () => {
    const response = await app.get("/sitemap.xml");
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "application/xml; charset=utf-8");
    const locs = locsOf(await response.text());
    assert.deepEqual([...locs].sort(), want);
    assert.equal(want.filter((l) => l.includes("/opportunities/")).length, 6);
    assert.ok(!locs.some((l) => /draft-post|scheduled-post/.test(l)), "no unpublished article");
  });

  await t.step("every URL in it answers 200", async () => {
    for (const loc of want) {
      const response = await app.get(new URL(loc).pathname);
      assert.equal(response.status, 200, loc);
      await response.body?.cancel();
    }
  });

  await t.step("304 for its ETag, a new ETag once the scheduled article is out", async () => {
    const etag = (await app.get("/sitemap.xml")).headers.get("etag")!;
    const again = await app.get("/sitemap.xml", undefined, { headers: { "If-None-Match": etag } });
    assert.equal(again.status, 304);
    // Its time comes: no import, no data version change.
    await db.sql`update blog_posts set published_at = now() - interval '1 minute'
      where slug = 'scheduled-post'`;
    const now = await app.get("/sitemap.xml", undefined, { headers: { "If-None-Match": etag } });
    assert.equal(now.status, 200);
    assert.ok(locsOf(await now.text()).includes(`${BASE}/blog/scheduled-post`));
  });

  await t.step("no parts without an index; robots.txt points to the sitemap", async () => {
    const part = await app.get("/sitemaps/opportunities-1.xml");
    assert.equal(part.status, 404);
    await part.body?.cancel();
    const robots = await app.get("/robots.txt");
    assert.equal(robots.headers.get("content-type"), "text/plain; charset=utf-8");
    const text = await robots.text();
    assert.match(text, /^Sitemap: https:\/\/oppintel\.example\/sitemap\.xml$/m);
    assert.match(text, /^Disallow: \/account$/m);
  });
});

dbTest("past the URL limit the sitemap is an index of parts", async (db, t) => {
  await loadFixture(db.sql);
  const want = await expected(db);
  // 3 URLs a file: the pages, categories, themes and the 2 articles make page parts; ids 1-3 and
  // 4-6 two more.
  const app = webTestApp(db, { base: BASE, web: { sitemapMaxUrls: 3 } });
  const get = (path: string) => app.handler(new Request(`${BASE}${path}`));
  const pageParts = Math.ceil((PAGES.length + CATALOGUE.length + 2) / 3);

  const index = await get("/sitemap.xml");
  assert.equal(index.status, 200);
  const parts = locsOf(await index.text(), "sitemapindex");
  await t.step("the index names the parts", () => {
    assert.deepEqual(parts.map((p) => new URL(p).pathname), [
      ...Array.from({ length: pageParts }, (_, i) => `/sitemaps/pages-${i + 1}.xml`),
      "/sitemaps/opportunities-1.xml",
      "/sitemaps/opportunities-2.xml",
    ]);
  });

  await t.step("the parts hold every URL once, none more than 3", async () => {
    const all: string[] = [];
    for (const part of parts) {
      const response = await get(new URL(part).pathname);
      assert.equal(response.status, 200, part);
      const locs = locsOf(await response.text());
      assert.ok(locs.length >= 1 && locs.length <= 3, `${part}: ${locs.length}`);
      all.push(...locs);
    }
    assert.deepEqual(all.sort(), want);
  });

  await t.step("a part past the last is a 404", async () => {
    for (const path of [`/sitemaps/pages-${pageParts + 1}.xml`, "/sitemaps/opportunities-3.xml"]) {
      const response = await get(path);
      assert.equal(response.status, 404, path);
      await response.body?.cancel();
    }
  });
});
