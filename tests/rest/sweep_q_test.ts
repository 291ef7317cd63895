/**
 * Runs of the web-search operators in every `q`: PostgreSQL's query parser nests a NOT per dash
 * and fails past about 32, so every q-taking endpoint (from the OpenAPI document), tool (from
 * the tool listing, on both MCP eras) and watch creation or change gets runs of 40 and 100
 * characters of each operator, alone and mixed: they answer, never 500, and past q's 100
 * characters they are a 422 that writes nothing.
 */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { loadFixture, makeKey, testApp } from "../helpers/app.ts";
import { toolListing, TOOLS, WATCH_TOOLS } from "../../src/mcp/tools.ts";
import { sendJson } from "../helpers/watches.ts";
import { assertNoInternalError, mcpCallOfEra, restEndpoints } from "./sweep_helpers.ts";

/** The units of the operator runs in `q`: every operator character, alone and mixed. */
const OPERATOR_UNITS = ["-", '"', "|", "!", "&", "(", ":", "*", '-"', '"-', "- ", "-  ", " or -"];

/** `unit` repeated to exactly `length` characters. */
function run(unit: string, length: number): string {
  return unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
}

/** The `q` values of the operator sweep, each with whether it is within q's 100 characters. */
function operatorValues(): [string, string, boolean][] {
  return [
    ...OPERATOR_UNITS.flatMap((unit) =>
      [40, 100, 101].map((n): [string, string, boolean] => [
        `${n} x ${JSON.stringify(unit)}`,
        run(unit, n),
        n <= 100,
      ])
    ),
    ["a, 40 spaced dashes, b", `a ${run("- ", 80)}b`, true],
    ["a word after 98 dashes", `${run("-", 98)}ab`, true],
  ];
}

dbTest("runs of search operators in every q answer, never 500", async (db, t) => {
  const app = testApp(db);
  await loadFixture(db.sql);
  const { key } = await makeKey(db.sql, "business");
  const values = operatorValues();
  const restTargets = restEndpoints()
    .filter(({ parameters }) => parameters.some((p) => p.name === "q"))
    .flatMap(({ path, parameters }) => [
      path,
      // The relevance order ranks by q too.
      ...parameters.some((p) => p.name === "sort") ? [`${path}?sort=relevance&`] : [],
    ]);
  assert.ok(restTargets.includes("/api/v1/blog") && restTargets.includes("/api/v1/opportunities"));
  const tools = [...TOOLS, ...WATCH_TOOLS].map((tool) => ({
    name: tool.name,
    properties: (toolListing(tool).inputSchema as {
      properties?: Record<string, { type?: string }>;
    }).properties ?? {},
  }));
  // The keyword argument of a tool: `q`, or `query` when it is a string (search); a watch's
  // `query` is the list query, an object holding q.
  const qTools = tools.flatMap((tool) =>
    "q" in tool.properties
      ? [{ name: tool.name, arg: "q" }]
      : tool.properties.query?.type === "string"
      ? [{ name: tool.name, arg: "query" }]
      : []
  );
  assert.deepEqual(
    qTools.map((tool) => tool.name).sort(),
    ["list_blog_posts", "query_opportunities", "search"],
  );
  const watchTools = tools.filter((tool) => "query" in tool.properties && tool.name !== "search")
    .map((tool) => tool.name);
  assert.deepEqual(watchTools, ["create_watch"]);

  for (const target of restTargets) {
    await t.step(`GET ${target}`, async () => {
      for (const [what, q, fits] of values) {
        const join = target.includes("?") ? "" : "?";
        const res = await app.get(`${target}${join}q=${encodeURIComponent(q)}`, key);
        const body = await assertNoInternalError(res, what) as { details?: { param: string }[] };
        assert.equal(res.status, fits ? 200 : 422, `${target} q=${what}`);
        if (!fits) assert.deepEqual(body.details?.map((d) => d.param), ["q"], what);
      }
    });
  }
  for (const era of ["2025", "2026"] as const) {
    for (const { name, arg } of qTools) {
      await t.step(`MCP ${era} ${name}`, async () => {
        for (const [what, q, fits] of values) {
          const res = await mcpCallOfEra(app, key, era, name, { [arg]: q });
          const label = `${name} q=${what}`;
          const body = await assertNoInternalError(res, label) as {
            result?: { isError?: boolean; structuredContent?: { error?: string } };
          };
          assert.equal(res.status, 200, label);
          assert.equal(body.result?.isError ?? false, !fits, label);
          if (!fits) {
            assert.equal(body.result?.structuredContent?.error, "invalid_parameter", label);
          }
        }
      });
    }
  }
  const watchCount = async () =>
    (await db.sql<{ n: number }[]>`select count(*)::int as n from watches`)[0].n;
  const creations: [string, (q: string) => Promise<{ ok: boolean; id?: number }>][] = [
    ["POST /api/v1/watches", async (q) => {
      const body = { name: "Ops", query: { q }, deliveries: { feed: true } };
      const res = await sendJson(app, "POST", "/api/v1/watches", key, body);
      const answer = await assertNoInternalError(res, q) as { id?: number };
      assert.ok(res.status === 201 || res.status === 422, `${res.status}`);
      return { ok: res.status === 201, id: answer.id };
    }],
    ...(["2025", "2026"] as const).map((
      era,
    ): [string, (q: string) => Promise<{ ok: boolean; id?: number }>] => [
      `MCP ${era} create_watch`,
      async (q) => {
        const args = { name: "Ops", query: { q }, deliveries: { feed: true } };
        const res = await mcpCallOfEra(app, key, era, "create_watch", args);
        const body = await assertNoInternalError(res, q) as {
          result?: { isError?: boolean; structuredContent?: { id?: number } };
        };
        assert.equal(res.status, 200);
        return { ok: !body.result?.isError, id: body.result?.structuredContent?.id };
      },
    ]),
  ];
  for (const [label, create] of creations) {
    await t.step(label, async () => {
      for (const [what, q, fits] of values) {
        const before = await watchCount();
        const made = await create(q);
        assert.equal(made.ok, fits, `${label} q=${what}`);
        assert.equal(
          await watchCount(),
          before + (fits ? 1 : 0),
          `${what}: written only when made`,
        );
        if (made.id) await db.sql`delete from watches where id = ${made.id}`;
      }
    });
  }
  await t.step("PATCH /api/v1/watches/{id}", async () => {
    const body = { name: "Ops", query: { q: "invoice" }, deliveries: { feed: true } };
    const { id } = await (await sendJson(app, "POST", "/api/v1/watches", key, body)).json();
    for (const [what, q, fits] of values) {
      const before = await db.sql`select query, q from watches where id = ${id}`;
      const path = `/api/v1/watches/${id}`;
      const res = await sendJson(app, "PATCH", path, key, { query: { q } });
      await assertNoInternalError(res, what);
      assert.equal(res.status, fits ? 200 : 422, `PATCH q=${what}`);
      if (!fits) {
        assert.deepEqual(await db.sql`select query, q from watches where id = ${id}`, before);
      }
    }
  });
  assert.ok(!app.logs.some((entry) => entry.status === 500), "no 500 in the request log");
});
