/**
 * MEMORY_BUDGET_MB (src/platform/memory.ts): with a budget that holds nothing, every answer of
 * the service is the one a roomy budget gives (PostgreSQL answers what memory would have), and
 * /metrics and /healthz say what the budget holds and what it refused. The list sweep with a tiny
 * budget is in list_sweep_test.ts.
 */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { makeKey, testApp } from "../helpers/app.ts";

/** The value of the sample `series` in a Prometheus text body. */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(series + " "));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** An answer without the time it was made at (`generated_at`), which two answers never share. */
function timeless(body: Record<string, unknown>): Record<string, unknown> {
  const { generated_at: _at, ...rest } = body;
  return rest;
}

dbTest("a budget that holds nothing answers every operation as a roomy one does", async (db) => {
  const { key } = await makeKey(db.sql, "business");
  const [{ id, slug, category }] = await db.sql<{ id: number; slug: string; category: string }[]>`
    select o.id, t.slug, c.slug as category from opportunities o
    join themes t on t.id = o.theme_id join categories c on c.id = t.category_id
    order by o.score desc, o.id limit 1`;
  const tiny = testApp(db, { MEMORY_BUDGET_MB: "0", METRICS_TOKEN: "token" });
  const roomy = testApp(db, { MEMORY_BUDGET_MB: "1024", METRICS_TOKEN: "token" });
  const paths = [
    "/api/v1/opportunities?page_size=20",
    "/api/v1/opportunities?sort=newest&min_score=40&page=2",
    "/api/v1/opportunities?sort=pain_point_intensity&min_willingness_to_pay=5",
    `/api/v1/opportunities?category=${category}&max_tech_difficulty=6&sort=sustainability`,
    `/api/v1/opportunities?theme=${slug}&min_pain_point_intensity=3`,
    `/api/v1/opportunities/${id}`,
    `/api/v1/opportunities/${id}/similar`,
    "/api/v1/ideas/match?text=a%20tool%20that%20chases%20unpaid%20invoices",
    "/api/v1/overview",
    "/api/v1/categories",
    "/api/v1/themes/trending",
    `/api/v1/themes/${slug}`,
    `/api/v1/themes/${slug}/history`,
    "/api/v1/blog",
  ];
  for (const path of paths) {
    const want = await roomy.get(path, key);
    assert.equal(want.status, 200, path);
    const expected = timeless(await want.json());
    // Twice: the second answer is computed again (nothing was kept), and still the same.
    for (const time of ["first", "second"]) {
      const got = await tiny.get(path, key);
      assert.equal(got.status, 200, `${path} (${time})`);
      assert.deepEqual(timeless(await got.json()), expected, `${path} (${time})`);
    }
  }
  // A question: the same rows and total (without the reading of word vectors the budget refused,
  // they may come in another order).
  const question = "/api/v1/opportunities?q=invoice%20payments&page_size=100";
  const [a, b] = [
    await (await roomy.get(question, key)).json(),
    await (await tiny.get(question, key)).json(),
  ];
  assert.ok(a.total > 0, "the question finds rows");
  assert.equal(b.total, a.total);
  const ids = (x: { items: { id: number }[] }) => x.items.map((i) => i.id).sort((p, q) => p - q);
  assert.deepEqual(ids(b), ids(a));

  const metrics = async (app: typeof tiny) =>
    await (await app.get("/metrics", undefined, { headers: { authorization: "Bearer token" } }))
      .text();
  const held = await metrics(tiny);
  assert.equal(sample(held, "oppintel_memory_budget_bytes"), 0);
  assert.equal(sample(held, "oppintel_memory_used_bytes"), 0);
  assert.equal(sample(held, 'oppintel_memory_bytes{part="answers"}'), 0);
  assert.ok((sample(held, 'oppintel_memory_refused_bytes{part="question_reading"}') ?? 0) > 0);
  const full = await metrics(roomy);
  assert.equal(sample(full, "oppintel_memory_budget_bytes"), 1024 * 1024 * 1024);
  assert.ok((sample(full, 'oppintel_memory_bytes{part="answers"}') ?? 0) > 0);
  assert.ok((sample(full, 'oppintel_memory_bytes{part="question_reading"}') ?? 0) > 0);

  const health = async (app: typeof tiny) => (await (await app.get("/healthz")).json()).memory;
  const small = await health(tiny);
  assert.equal(small.budget_mb, 0);
  assert.deepEqual(small.held, []);
  assert.ok(small.refused.includes("question_reading"), JSON.stringify(small));
  const large = await health(roomy);
  assert.ok(large.held.includes("answers") && large.held.includes("question_reading"));
  assert.deepEqual(large.refused, []);
}, { seed: { opportunities: 600 } });
