/**
 * The public page of every theme and category an answer carries (issue #49): overview, categories,
 * trending themes, a theme and its history, idea match and the suggestions of a question or an
 * idea; each `url` is `{PUBLIC_BASE_URL}/themes/{slug}` or `/categories/{slug}`, and that page
 * answers 200.
 */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { callTool, loadFixture, makeKey, type TestApp, testApp } from "../helpers/app.ts";

const PUBLIC = "https://oppintel.example";

/** Checks that `url` is the public page `path` and that the page answers 200. */
async function assertPage(app: TestApp, url: unknown, path: string): Promise<void> {
  assert.equal(url, `${PUBLIC}${path}`);
  const page = await app.get(path);
  assert.equal(page.status, 200, path);
  assert.match(page.headers.get("content-type") ?? "", /text\/html/);
  await page.body?.cancel();
}

dbTest("every theme and category in an answer carries its public page as url", async (db, t) => {
  const app = testApp(db);
  await loadFixture(db.sql);
  const { key } = await makeKey(db.sql, "pro");
  const ids = Object.fromEntries(
    (await db.sql<{ slug: string; id: number }[]>`select slug, id from themes`)
      .map((r) => [r.slug, r.id]),
  );
  const json = async (path: string) => {
    const res = await app.get(path, key);
    assert.equal(res.status, 200, path);
    return await res.json();
  };
  type Named = { slug: string; url: string };
  const themes = (list: Named[]) =>
    Promise.all(list.map((x) => assertPage(app, x.url, `/themes/${x.slug}`)));
  const categories = (list: Named[]) =>
    Promise.all(list.map((x) => assertPage(app, x.url, `/categories/${x.slug}`)));

  await t.step("overview: its categories and trending themes", async () => {
    const overview = await json("/api/v1/overview");
    assert.equal(overview.categories.length, 2);
    await categories(overview.categories);
    assert.ok(overview.trending.length > 0);
    await themes(overview.trending);
  });
  await t.step("/api/v1/categories", async () => {
    const { items } = await json("/api/v1/categories");
    assert.equal(items.length, 2);
    await categories(items);
  });
  await t.step("trending themes, a theme, its history", async () => {
    const { items } = await json("/api/v1/themes/trending?status=steady&limit=50");
    const trending = await json("/api/v1/themes/trending");
    assert.ok(items.length + trending.items.length > 0);
    await themes([...items, ...trending.items]);
    const id = ids["invoice-chasing"];
    await themes([(await json(`/api/v1/themes/${id}`)).theme]);
    await themes([(await json(`/api/v1/themes/${id}/history`)).theme]);
  });
  await t.step("idea match: its themes, and its suggestions", async () => {
    const match = await json("/api/v1/ideas/match?text=" + encodeURIComponent("flaky builds"));
    assert.ok(match.themes.length > 0);
    await themes(match.themes);
    const far = await json(
      "/api/v1/ideas/match?text=" + encodeURIComponent("dentists chasing their patients"),
    );
    assert.ok(far.confidence < 0.5, `${far.confidence}`);
    assert.ok(far.suggestions.length > 0);
    for (const s of far.suggestions) {
      await assertPage(app, s.url, `/${s.kind === "theme" ? "themes" : "categories"}/${s.slug}`);
    }
  });
  await t.step("a question's suggestions: themes and categories", async () => {
    const kinds = new Set<string>();
    for (const q of ["dentists chasing invoices", "dentists"]) {
      const list = await json(`/api/v1/opportunities?q=${encodeURIComponent(q)}`);
      assert.ok(list.confidence < 0.5, `${q}: ${list.confidence}`);
      assert.ok(list.suggestions.length > 0, q);
      for (const s of list.suggestions) {
        kinds.add(s.kind);
        await assertPage(app, s.url, `/${s.kind === "theme" ? "themes" : "categories"}/${s.slug}`);
      }
    }
    assert.deepEqual([...kinds].sort(), ["category", "theme"]);
  });
  await t.step("MCP answers carry the same urls", async () => {
    const overview = await callTool(app, key, "get_overview", {});
    await categories((overview.structuredContent as { categories: Named[] }).categories);
    const theme = await callTool(app, key, "get_theme", { id: ids["legacy-docs"] });
    await themes([(theme.structuredContent as { theme: Named }).theme]);
  });
});
