/**
 * A HEAD of the export is free, so it must be cheap: it answers the price (X-Total-Count,
 * X-Export-Calls) from the list's total, read with a page of one row, and never reads a chunk of
 * the export's rows (1,000 of them, 0.14-1.4 s each at a million rows). serveExport is called
 * with the service's own Content, counting what it is asked.
 */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { makeKey, usedOf } from "../helpers/app.ts";
import { createContent } from "../../src/catalog/content.ts";
import { serveExport } from "../../src/rest/export.ts";
import { getOfHead } from "../../src/platform/head.ts";

dbTest("HEAD /api/v1/opportunities/export reads no chunk of rows", async (db, t) => {
  const { key, accountId } = await makeKey(db.sql, "business");
  const content = createContent(db.sql, { publicBaseUrl: "https://oppintel.example" });
  const asked = { chunks: 0, pageSizes: [] as number[] };
  const counting = {
    ...content,
    exportPages: (...args: Parameters<typeof content.exportPages>) => {
      asked.chunks++;
      return content.exportPages(...args);
    },
    listOpportunities: (...args: Parameters<typeof content.listOpportunities>) => {
      asked.pageSizes.push(args[1].page_size);
      return content.listOpportunities(...args);
    },
  };
  const head = (query: string) => {
    const url = new URL(`https://oppintel.example/api/v1/opportunities/export?${query}`);
    const request = getOfHead(
      new Request(url, { method: "HEAD", headers: { "X-API-Key": key } }),
    );
    return serveExport(request, url, { sql: db.sql, content: counting });
  };
  for (const query of ["online_only=false", "online_only=false&q=invoices", "min_score=50"]) {
    await t.step(`HEAD ?${query}: the price, no chunk read`, async () => {
      const before = { ...asked, pageSizes: [...asked.pageSizes] };
      const { response } = await head(query);
      assert.equal(response.status, 200);
      const total = Number(response.headers.get("x-total-count"));
      assert.ok(total > 0, query);
      assert.equal(response.headers.get("x-export-calls"), String(Math.ceil(total / 1000)));
      assert.equal(asked.chunks, before.chunks, "no chunk of the export is read");
      assert.ok(asked.pageSizes.slice(before.pageSizes.length).every((n) => n <= 1));
    });
  }
  await t.step("the HEAD's total is the GET's", async () => {
    const url = new URL("https://oppintel.example/api/v1/opportunities/export?online_only=false");
    const get = await serveExport(
      new Request(url, { headers: { "X-API-Key": key } }),
      url,
      { sql: db.sql, content },
    );
    const { response } = await head("online_only=false");
    assert.equal(response.headers.get("x-total-count"), get.response.headers.get("x-total-count"));
    await get.response.body?.cancel();
  });
  assert.ok(await usedOf(db.sql, accountId) <= 2, "only the GET is charged");
}, { seed: { opportunities: 1100 } });
