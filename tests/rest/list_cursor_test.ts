/**
 * Cursors and the depth limit of the paged lists: next_cursor walks a filter exactly
 * once while rows are imported meanwhile, in every order; a cursor of other filters or a forged
 * one is a 422 invalid_cursor; a page past the depth limit is a 422 page_too_deep naming cursor;
 * neither is charged; MCP's query_opportunities answers the same.
 */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import {
  callTool,
  loadFixture,
  makeKey,
  restTwinArgs,
  type TestApp,
  testApp,
  usedOf,
} from "../helpers/app.ts";
import { seedDemo } from "../../src/ingest/seed.ts";
import type { Sql } from "../../src/db/open.ts";
import { MAX_PAGE_DEPTH } from "../../src/catalog/cursor.ts";

interface ListBody {
  items: { id: number; slug: string }[];
  total: number;
  page: number | null;
  page_size: number;
  next_cursor: string | null;
}

async function list(app: TestApp, key: string, path: string): Promise<ListBody> {
  const res = await app.get(path, key);
  const text = await res.text();
  assert.equal(res.status, 200, text);
  return JSON.parse(text);
}

/** The ids of every row of the filter, in the order of `sort`, straight from the database. */
async function expectedIds(
  sql: Sql,
  minScore: number,
  sort: "score" | "newest",
): Promise<number[]> {
  const rows = await sql<{ id: number }[]>`
    select id from opportunities where score >= ${minScore}
    order by ${
    sort === "score" ? sql`score desc, created_at desc, id desc` : sql`created_at desc, id desc`
  }`;
  return rows.map((r) => r.id);
}

dbTest("a cursor walk visits every item once while rows are imported meanwhile", async (db, t) => {
  const app = testApp(db);
  const { key } = await makeKey(db.sql, "pro");
  await seedDemo(db.sql, { opportunities: 150 });
  for (const sort of ["score", "newest"] as const) {
    await t.step(`sort=${sort}`, async () => {
      const before = await expectedIds(db.sql, 30, sort);
      assert.ok(before.length > 60, "enough rows for many pages");
      const seen: number[] = [];
      let cursor: string | null = null;
      let pages = 0;
      let grown = 150;
      do {
        const path: string = `/api/v1/opportunities?online_only=false&min_score=30&sort=${sort}` +
          `&page_size=9${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
        const body = await list(app, key, path);
        assert.equal(body.page, cursor ? null : 1);
        assert.ok(body.items.length <= 9);
        seen.push(...body.items.map((i) => i.id));
        cursor = body.next_cursor;
        // Rows arrive between pages: new ones anywhere in the order, old ones left alone.
        if (pages++ % 2 === 0) await seedDemo(db.sql, { opportunities: grown += 7 });
      } while (cursor !== null);
      assert.equal(new Set(seen).size, seen.length, "no item twice");
      const missed = before.filter((id) => !seen.includes(id));
      assert.deepEqual(missed, [], "every item that existed before the walk was visited");
      assert.ok(pages > 7);
    });
  }
  await t.step("sort=relevance with q", async () => {
    const all = await list(app, key, "/api/v1/opportunities?online_only=false&q=a&page_size=100");
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const path: string = "/api/v1/opportunities?online_only=false&q=a&sort=relevance" +
        `&page_size=4${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
      const body = await list(app, key, path);
      seen.push(...body.items.map((i) => i.id));
      cursor = body.next_cursor;
    } while (cursor !== null);
    assert.equal(new Set(seen).size, seen.length, "no item twice");
    assert.equal(seen.length, all.total, "every match once");
  });
});

dbTest("a cursor page equals the page of the same number", async (db) => {
  const app = testApp(db);
  const { key } = await makeKey(db.sql, "pro");
  const base = "/api/v1/opportunities?online_only=false&recommendation=Build&page_size=5";
  const first = await list(app, key, base);
  const second = await list(app, key, `${base}&page=2`);
  const byCursor = await list(app, key, `${base}&cursor=${first.next_cursor}`);
  assert.deepEqual(byCursor.items, second.items);
  assert.equal(byCursor.total, first.total, "the total is the list's, whatever the page");
  assert.equal(byCursor.next_cursor, second.next_cursor);
  const last = await list(app, key, `${base}&page=${Math.ceil(first.total / 5)}`);
  assert.equal(last.next_cursor, null, "the last page has no next_cursor");
}, { seed: { opportunities: 80 } });

dbTest(
  "a cursor of other filters, a forged one and a cursor with a page: 422, uncharged",
  async (db, t) => {
    const app = testApp(db);
    await loadFixture(db.sql);
    const { key, accountId } = await makeKey(db.sql, "pro");
    const first = await list(app, key, "/api/v1/opportunities?online_only=false&page_size=2");
    const cursor = first.next_cursor!;
    assert.equal(typeof cursor, "string");
    const used = await usedOf(db.sql, accountId);
    const refused = async (query: string, code: string, reason?: string) => {
      const res = await app.get(`/api/v1/opportunities?${query}`, key);
      assert.equal(res.status, 422);
      const body = await res.json();
      assert.equal(body.error, code, JSON.stringify(body));
      if (reason) assert.equal(body.reason, reason);
      assert.match(body.message, /cursor/);
    };
    await t.step("other filters or another sort", async () => {
      await refused(
        `online_only=false&page_size=2&min_score=10&cursor=${cursor}`,
        "invalid_cursor",
        "other_list",
      );
      await refused(
        `online_only=false&page_size=2&sort=newest&cursor=${cursor}`,
        "invalid_cursor",
        "other_list",
      );
      await refused(`page_size=2&cursor=${cursor}`, "invalid_cursor", "other_list");
    });
    await t.step("forged or damaged", async () => {
      // `<payload>.<mac>`: the payload edited, the mac kept.
      const [payload, mac] = cursor.split(".");
      const decoded = JSON.parse(atob(payload.replaceAll("-", "+").replaceAll("_", "/")));
      decoded.k[decoded.k.length - 1] += 1;
      const edited = `${btoa(JSON.stringify(decoded)).replace(/=+$/, "")}.${mac}`;
      for (const bad of [edited, "abc", "!!!", cursor.slice(0, -2), btoa("{}")]) {
        await refused(
          `online_only=false&page_size=2&cursor=${encodeURIComponent(bad)}`,
          "invalid_cursor",
          "malformed",
        );
      }
    });
    await t.step("a cursor of the blog is not a cursor of opportunities", async () => {
      const blog = await list(app, key, "/api/v1/blog?page_size=1");
      assert.ok(blog.next_cursor);
      await refused(
        `online_only=false&page_size=2&cursor=${blog.next_cursor}`,
        "invalid_cursor",
        "other_list",
      );
    });
    await t.step("cursor with a page number", async () => {
      const res = await app.get(
        `/api/v1/opportunities?online_only=false&page_size=2&page=2&cursor=${cursor}`,
        key,
      );
      assert.equal(res.status, 422);
      const body = await res.json();
      assert.equal(body.error, "invalid_parameter");
      assert.equal(body.details[0].param, "page");
    });
    assert.equal(await usedOf(db.sql, accountId), used, "no refusal was charged");
  },
);

dbTest("page_too_deep past the documented depth names cursor, uncharged", async (db) => {
  const app = testApp(db);
  await loadFixture(db.sql);
  const { key, accountId } = await makeKey(db.sql, "pro");
  const deepest = await app.get(
    `/api/v1/opportunities?page=${MAX_PAGE_DEPTH / 100}&page_size=100`,
    key,
  );
  assert.equal(deepest.status, 200, "the deepest page is answered");
  const used = await usedOf(db.sql, accountId);
  for (
    const path of [
      `/api/v1/opportunities?page=${MAX_PAGE_DEPTH / 100 + 1}&page_size=100`,
      `/api/v1/opportunities?page=${MAX_PAGE_DEPTH + 1}`,
      `/api/v1/blog?page=${MAX_PAGE_DEPTH}&page_size=2`,
    ]
  ) {
    const res = await app.get(path, key);
    assert.equal(res.status, 422, path);
    assert.equal(res.headers.get("content-type"), "application/json; charset=utf-8");
    const body = await res.json();
    assert.equal(body.error, "page_too_deep");
    assert.equal(body.param, "cursor");
    assert.equal(body.max_depth, MAX_PAGE_DEPTH);
    assert.match(body.message, /next_cursor/);
  }
  assert.equal(await usedOf(db.sql, accountId), used, "not charged");
});

dbTest("the blog walks by cursor as by page", async (db) => {
  const app = testApp(db);
  await loadFixture(db.sql);
  const { key } = await makeKey(db.sql, "free");
  const all = await list(app, key, "/api/v1/blog?page_size=100");
  assert.ok(all.items.length >= 2);
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const body: ListBody = await list(
      app,
      key,
      `/api/v1/blog?page_size=1${cursor ? `&cursor=${cursor}` : ""}`,
    );
    seen.push(...body.items.map((i) => i.slug));
    cursor = body.next_cursor;
  } while (cursor !== null);
  assert.deepEqual(seen, all.items.map((i) => i.slug));
});

dbTest(
  "query_opportunities answers next_cursor, takes cursor, refuses a page too deep",
  async (db) => {
    const app = testApp(db);
    await loadFixture(db.sql);
    const { key, accountId } = await makeKey(db.sql, "pro");
    const call = (args: Record<string, unknown>) =>
      callTool(app, key, "query_opportunities", restTwinArgs("query_opportunities", args));
    const first = await call({ online_only: false, page_size: 2 });
    assert.equal(first.isError, undefined, JSON.stringify(first.structuredContent));
    const cursor = first.structuredContent.next_cursor;
    const next = await call({ online_only: false, page_size: 2, cursor });
    const rest = await list(
      app,
      key,
      `/api/v1/opportunities?online_only=false&page_size=2&cursor=${cursor}`,
    );
    assert.deepEqual(next.structuredContent, rest);
    const used = await usedOf(db.sql, accountId);
    const deep = await call({ page: 500, page_size: 100 });
    assert.equal(deep.isError, true);
    assert.equal(deep.structuredContent.error, "page_too_deep");
    const forged = await call({ online_only: true, page_size: 2, cursor });
    assert.equal(forged.isError, true);
    assert.equal(forged.structuredContent.error, "invalid_cursor");
    assert.equal(await usedOf(db.sql, accountId), used, "refusals are not charged");
  },
);
