/**
 * Words longer than PostgreSQL's text search takes (2,047 bytes a word): scripts that write
 * without spaces (Chinese, Japanese, Thai) make one "word" of a whole paragraph. Idea match reads
 * such a paragraph (REST and MCP alike): its over-long runs are split into words the search takes,
 * never a 500 (`word is too long in tsquery`).
 */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { callTool, loadFixture, makeKey, testApp } from "../helpers/app.ts";

/** `n` characters of `unit` repeated. */
function chars(unit: string, n: number): string {
  return [...unit.repeat(Math.ceil(n / [...unit].length))].slice(0, n).join("");
}

const LONG_TEXTS: [string, string][] = [
  ["683 Chinese characters", chars("帮助独立顾问在报税季之前准备费用报告", 683)],
  ["1,000 Chinese characters", chars("帮助独立顾问在报税季之前准备费用报告", 1000)],
  ["900 Japanese kana and kanji", chars("請求書の催促を自動化するアプリ", 900)],
  ["1,000 Thai characters", chars("แอปช่วยติดตามใบแจ้งหนี้", 1000)],
  ["a word of 700 Chinese characters amid English", `invoice ${chars("请求书", 700)} reminders`],
];

dbTest("idea match reads words past the text search's 2,047 bytes, never 500", async (db, t) => {
  const app = testApp(db);
  await loadFixture(db.sql);
  const { key } = await makeKey(db.sql, "pro");
  for (const [what, text] of LONG_TEXTS) {
    assert.ok(new TextEncoder().encode(text).length > 2047, what);
    await t.step(`GET /api/v1/ideas/match: ${what}`, async () => {
      const res = await app.get(`/api/v1/ideas/match?text=${encodeURIComponent(text)}`, key);
      assert.equal(res.status, 200, what);
      const body = await res.json();
      assert.ok(Array.isArray(body.opportunities), what);
    });
    await t.step(`MCP match_idea: ${what}`, async () => {
      const result = await callTool(app, key, "match_idea", { text });
      assert.equal(result.isError ?? false, false, `${what}: ${JSON.stringify(result)}`);
    });
  }
  await t.step("a long English idea still finds its words", async () => {
    const text = `invoice ${chars("请求书", 700)} reminders`;
    const res = await app.get(`/api/v1/ideas/match?text=${encodeURIComponent(text)}`, key);
    const body = await res.json();
    assert.ok(body.terms.some((term: string) => term.startsWith("invoic")), body.terms.join());
  });
  assert.ok(!app.logs.some((entry) => entry.status === 500), "no 500 in the request log");
});
