/**
 * The sub-score filters and orders of GET /api/v1/opportunities (src/catalog/lists/sub_scores.ts):
 * inclusive bounds, refusals (422 invalid_parameter, uncharged), each order equal to a plain
 * order by (with q too), cursor walks equal to page walks, a cursor of other bounds refused, the
 * same answers from MCP's query_opportunities and the export, on both engines.
 */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { callTool, makeKey, restTwinArgs, type TestApp, testApp, usedOf } from "../helpers/app.ts";
import type { Sql } from "../../src/db/open.ts";

interface Item {
  id: number;
  score: number;
  pain_point_intensity: number;
  willingness_to_pay_score: number;
  tech_difficulty: number;
  sustainability_score: number;
}

interface ListBody {
  items: Item[];
  total: number;
  page: number | null;
  next_cursor: string | null;
}

async function list(app: TestApp, key: string, query: string): Promise<ListBody> {
  const res = await app.get(`/api/v1/opportunities?${query}`, key);
  const text = await res.text();
  assert.equal(res.status, 200, `${query}: ${text}`);
  return JSON.parse(text);
}

/** Every page of `query` by page number, then by cursor: both must give the same ids. */
async function walks(app: TestApp, key: string, query: string): Promise<[number[], number[]]> {
  const byPage: number[] = [];
  for (let page = 1;; page++) {
    const body = await list(app, key, `${query}&page_size=7&page=${page}`);
    byPage.push(...body.items.map((i) => i.id));
    if (body.items.length < 7) break;
  }
  const byCursor: number[] = [];
  let cursor: string | null = null;
  do {
    const body: ListBody = await list(
      app,
      key,
      `${query}&page_size=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    );
    byCursor.push(...body.items.map((i) => i.id));
    cursor = body.next_cursor;
  } while (cursor);
  return [byPage, byCursor];
}

const ORDER: Record<string, string> = {
  pain_point_intensity: "pain_point_intensity desc",
  willingness_to_pay: "willingness_to_pay_score desc",
  tech_difficulty: "tech_difficulty asc",
  sustainability: "sustainability_score desc",
};

async function plainIds(sql: Sql, where: string, sort: string): Promise<number[]> {
  const rows = await sql.unsafe<{ id: number }[]>(
    `select id from opportunities o where ${where}
     order by ${ORDER[sort]}, score desc, created_at desc, id desc`,
  );
  return rows.map((r) => r.id);
}

dbTest("GET /api/v1/opportunities filters and sorts by the sub-scores", async (db, t) => {
  const app = testApp(db);
  const { key, accountId } = await makeKey(db.sql, "business");

  await t.step("bounds are inclusive and counted exactly", async () => {
    for (
      const [param, column, op] of [
        ["min_pain_point_intensity", "pain_point_intensity", ">="],
        ["min_willingness_to_pay", "willingness_to_pay_score", ">="],
        ["max_tech_difficulty", "tech_difficulty", "<="],
        ["min_sustainability", "sustainability_score", ">="],
      ] as const
    ) {
      for (const bound of [0, 4, 6, 10]) {
        const [{ n }] = await db.sql.unsafe<{ n: number }[]>(
          `select count(*)::int as n from opportunities where ${column} ${op} ${bound}`,
        );
        const body = await list(app, key, `online_only=false&${param}=${bound}&page_size=100`);
        assert.equal(body.total, n, `${param}=${bound}`);
        for (const item of body.items) {
          assert.ok(op === ">=" ? item[column] >= bound : item[column] <= bound);
        }
      }
      // The boundary value itself is in the list.
      const [{ v }] = await db.sql.unsafe<{ v: number }[]>(
        `select ${column} as v from opportunities where ${column} between 1 and 9 limit 1`,
      );
      const body = await list(app, key, `online_only=false&${param}=${v}&page_size=100`);
      assert.ok(body.total > 0);
      const [{ equal }] = await db.sql.unsafe<{ equal: number }[]>(
        `select count(*)::int as equal from opportunities where ${column} = ${v}`,
      );
      assert.ok(equal > 0 && body.total >= equal, `${param}=${v} holds the rows equal to it`);
    }
  });

  await t.step("refusals are 422 invalid_parameter, uncharged", async () => {
    const used = await usedOf(db.sql, accountId);
    for (const param of ["min_pain_point_intensity", "max_tech_difficulty"]) {
      for (
        const [value, message] of [
          ["-1", "must be at least 0"],
          ["11", "must be at most 10"],
          ["abc", "must be an integer"],
          ["5.5", "must be an integer"],
        ]
      ) {
        const res = await app.get(`/api/v1/opportunities?${param}=${value}`, key);
        assert.equal(res.status, 422);
        const body = await res.json();
        assert.equal(body.error, "invalid_parameter");
        assert.deepEqual(body.details, [{ param, message }], `${param}=${value}`);
      }
    }
    const res = await app.get("/api/v1/opportunities?sort=difficulty", key);
    assert.equal(res.status, 422);
    assert.equal((await res.json()).details[0].param, "sort");
    assert.equal(await usedOf(db.sql, accountId), used);
  });

  for (const sort of Object.keys(ORDER)) {
    await t.step(`sort=${sort} is a plain order by; pages and cursors agree`, async () => {
      const filters = "online_only=false&min_sustainability=3&platform=reddit";
      const expected = await plainIds(
        db.sql,
        "sustainability_score >= 3 and lower(platform) = 'reddit'",
        sort,
      );
      assert.ok(expected.length > 14, "several pages");
      const [byPage, byCursor] = await walks(app, key, `${filters}&sort=${sort}`);
      assert.deepEqual(byPage, expected);
      assert.deepEqual(byCursor, expected);
      const body = await list(app, key, `${filters}&sort=${sort}&page_size=3`);
      assert.equal(body.total, expected.length);
    });
  }

  await t.step("with q, in a sub-score order", async () => {
    const [{ word }] = await db.sql<{ word: string }[]>`
      select split_part(title, ' ', 1) as word from opportunities
      where length(split_part(title, ' ', 1)) > 3 group by 1 order by count(*) desc limit 1`;
    const body = await list(
      app,
      key,
      `q=${encodeURIComponent(word)}&online_only=false&sort=tech_difficulty&page_size=100` +
        "&max_tech_difficulty=7",
    );
    assert.ok(body.items.length > 1, `q=${word} finds rows`);
    assert.equal(body.total, body.items.length);
    for (let i = 1; i < body.items.length; i++) {
      const [a, b] = [body.items[i - 1], body.items[i]];
      assert.ok(a.tech_difficulty <= 7 && b.tech_difficulty <= 7);
      assert.ok(
        a.tech_difficulty < b.tech_difficulty ||
          (a.tech_difficulty === b.tech_difficulty && a.score >= b.score),
        "easiest first, then score",
      );
    }
  });

  await t.step("a cursor of other bounds or another order is invalid_cursor", async () => {
    const first = await list(app, key, "min_pain_point_intensity=3&sort=pain_point_intensity");
    const cursor = encodeURIComponent(first.next_cursor!);
    for (
      const other of [
        "min_pain_point_intensity=4&sort=pain_point_intensity",
        "min_pain_point_intensity=3&sort=sustainability",
        "min_pain_point_intensity=3",
      ]
    ) {
      const res = await app.get(`/api/v1/opportunities?${other}&cursor=${cursor}`, key);
      assert.equal(res.status, 422, other);
      const body = await res.json();
      assert.equal(body.error, "invalid_cursor");
      assert.equal(body.reason, "other_list");
    }
  });

  await t.step("MCP query_opportunities takes the same arguments", async () => {
    const call = (args: Record<string, unknown>) =>
      callTool(app, key, "query_opportunities", restTwinArgs("query_opportunities", args));
    const args = {
      online_only: false,
      min_willingness_to_pay: 5,
      max_tech_difficulty: 6,
      sort: "willingness_to_pay",
      page_size: 5,
    };
    const result = await call(args);
    assert.equal(result.isError, undefined, JSON.stringify(result.structuredContent));
    const rest = await list(
      app,
      key,
      "online_only=false&min_willingness_to_pay=5&max_tech_difficulty=6&sort=willingness_to_pay" +
        "&page_size=5",
    );
    assert.deepEqual(result.structuredContent.items, rest.items);
    assert.equal(result.structuredContent.total, rest.total);
    const refused = await call({ min_sustainability: 11 });
    assert.equal(refused.isError, true);
    assert.equal(refused.structuredContent.error, "invalid_parameter");
    assert.equal(refused.structuredContent.details[0].param, "min_sustainability");
    const fractional = await call({ min_sustainability: 5.5 });
    assert.equal(fractional.isError, true);
  });

  await t.step("the export holds the list's rows in its order", async () => {
    const filters = "online_only=false&min_pain_point_intensity=5&sort=tech_difficulty";
    const [, expected] = await walks(app, key, filters);
    const res = await app.get(`/api/v1/opportunities/export?${filters}`, key);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("x-total-count"), String(expected.length));
    const rows = (await res.text()).trimEnd().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(rows.map((r) => r.id), expected);
  });
}, { seed: { opportunities: 300 } });
