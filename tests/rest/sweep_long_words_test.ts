/**
 * Long words in every script, on every route, both engines: PostgreSQL's text search refuses a
 * word over 2,047 bytes, and Chinese, Japanese and Thai write a sentence as one word. Every GET
 * endpoint of the OpenAPI document (each query and path parameter), every MCP tool's string
 * arguments (both protocol eras), the watches' writes, the public pages and the account area get
 * words in Latin, Chinese, Thai, Arabic and emoji, at 100 characters and past 2,047 bytes: they
 * answer or refuse, never a 5xx (nor an internal error inside a tool result), and nothing is
 * logged as a failure.
 */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { loadFixture, makeKey, setUsed, type TestApp } from "../helpers/app.ts";
import { Browser, csrfIn, signUp, webTestApp } from "../helpers/web.ts";
import { toolListing, TOOLS, WATCH_TOOLS } from "../../src/mcp/tools.ts";
import { mcpCallOfEra, restEndpoints } from "./sweep_helpers.ts";

const SCRIPTS: [string, string][] = [
  ["Latin", "invoice"],
  ["Chinese", "帮助独立顾问准备费用报告"],
  ["Thai", "แอปช่วยติดตามใบแจ้งหนี้"],
  ["Arabic", "تطبيقلتتبعالفواتير"],
  ["emoji", "🧾💸📈"],
];

/** `n` characters (code points) of `unit` repeated. */
function chars(unit: string, n: number): string {
  const points = [...unit];
  return Array.from({ length: n }, (_, i) => points[i % points.length]).join("");
}

const encoder = new TextEncoder();

/** Per script: a word of 100 characters (q's limit) and one word past 2,047 bytes. */
const VALUES: [string, string][] = SCRIPTS.flatMap(([script, unit]) => {
  const bytes = encoder.encode(chars(unit, 1)).length;
  const long = chars(unit, Math.ceil(2100 / bytes));
  assert.ok(encoder.encode(long).length > 2047);
  return [[`${script} x 100`, chars(unit, 100)], [`${script} past 2,047 bytes`, long]];
});

/** Fails on a 5xx, or an internal error inside a 200 (an MCP tool result). */
async function answered(res: Response, what: string): Promise<void> {
  assert.ok(res.status < 500, `${what}: ${res.status}`);
  assert.doesNotMatch(await res.text(), /internal_error/, what);
}

dbTest("long words in every script on every route: never a 5xx", async (db, t) => {
  const ids = await loadFixture(db.sql);
  const web = webTestApp(db, { web: { searchesPerMinute: 1_000_000 } });
  const { key, accountId } = await makeKey(db.sql, "business");
  const get = (path: string, withKey = true) =>
    web.handler(new Request(web.base + path, { headers: withKey ? { "X-API-Key": key } : {} }));
  const app: TestApp = {
    sql: db.sql,
    handler: web.handler,
    logs: web.logs,
    get: (path) => get(path),
  };
  const [{ id: themeId }] = await db.sql`select id from themes where slug = 'flaky-ci'`;
  const watchBody = { name: "Ops", query: { q: "invoice" }, deliveries: { feed: true } };
  const made = await web.handler(
    new Request(`${web.base}/api/v1/watches`, {
      method: "POST",
      headers: { "X-API-Key": key, "Content-Type": "application/json" },
      body: JSON.stringify(watchBody),
    }),
  );
  const watchId = (await made.json()).id as number;
  const pathValue: Record<string, string> = {
    "/api/v1/opportunities/{id}": String(ids["opp-1"]),
    "/api/v1/opportunities/{id}/similar": String(ids["opp-1"]),
    "/api/v1/themes/{id}": String(themeId),
    "/api/v1/themes/{id}/history": String(themeId),
    "/api/v1/blog/{slug}": "ci-analysis",
  };
  const withPath = (path: string, value?: string) =>
    path.replace(
      /\{(\w+)\}/g,
      () =>
        value !== undefined
          ? encodeURIComponent(value)
          : path.startsWith("/api/v1/watches")
          ? String(watchId)
          : pathValue[path] ?? "1",
    );

  await t.step("REST: every query and path parameter of every GET endpoint", async () => {
    for (const { path, parameters } of restEndpoints()) {
      await setUsed(db.sql, accountId, 0);
      for (const parameter of parameters) {
        for (const [what, value] of VALUES) {
          const target = parameter.in === "path"
            ? withPath(path, value)
            : `${withPath(path)}?${parameter.name}=${encodeURIComponent(value)}`;
          await answered(await get(target), `${path} ${parameter.name} ${what}`);
        }
      }
    }
  });

  await t.step("REST: watches written with long words", async () => {
    const send = (method: string, path: string, body: unknown) =>
      web.handler(
        new Request(web.base + path, {
          method,
          headers: { "X-API-Key": key, "Content-Type": "application/json" },
          body: JSON.stringify(body),
        }),
      );
    for (const [what, value] of VALUES) {
      for (
        const body of [
          { ...watchBody, name: value },
          { ...watchBody, query: { q: value } },
          { ...watchBody, query: `q=${encodeURIComponent(value)}` },
          { ...watchBody, query: { channel: value, platform: value, theme: value } },
        ]
      ) {
        await answered(await send("POST", "/api/v1/watches", body), `POST ${what}`);
        await answered(
          await send("PATCH", `/api/v1/watches/${watchId}`, { ...body, deliveries: undefined }),
          `PATCH ${what}`,
        );
      }
      await db.sql`delete from watches where id <> ${watchId}`;
    }
  });

  const base: Record<string, Record<string, unknown>> = {
    get_opportunity: { id: ids["opp-1"] },
    get_theme: { id: themeId },
    get_theme_history: { id: themeId },
    find_similar_opportunities: { id: ids["opp-1"] },
    get_blog_post: { slug: "ci-analysis" },
    fetch: { id: `opportunity:${ids["opp-1"]}` },
    match_idea: { text: "invoice reminders" },
    search: { query: "invoice" },
    create_watch: watchBody,
    delete_watch: { id: 999999 },
  };
  for (const era of ["2025", "2026"] as const) {
    await t.step(`MCP ${era}: every string argument of every tool`, async () => {
      await setUsed(db.sql, accountId, 0);
      for (const tool of [...TOOLS, ...WATCH_TOOLS]) {
        const properties = (toolListing(tool).inputSchema as {
          properties?: Record<string, { type?: string | string[] }>;
        }).properties ?? {};
        const strings = Object.entries(properties)
          .filter(([, p]) =>
            p.type === "string" || (Array.isArray(p.type) && p.type.includes("string"))
          )
          .map(([name]) => name);
        // A watch's query is an object of list filters: its text fields.
        const targets = tool.name === "create_watch" ? [...strings, "query.q"] : strings;
        for (const name of targets) {
          for (const [what, value] of VALUES) {
            const args = { ...base[tool.name] ?? {} };
            if (name === "query.q") args.query = { q: value };
            else args[name] = value;
            const res = await mcpCallOfEra(app, key, era, tool.name, args);
            await answered(res, `${tool.name} ${name} ${what}`);
          }
        }
        await db.sql`delete from watches where id <> ${watchId}`;
      }
    });
  }

  await t.step("public pages: every filter, slug and search", async () => {
    for (const [what, value] of VALUES) {
      const v = encodeURIComponent(value);
      const paths = [
        ...["q", "category", "theme", "platform", "recommendation", "min_score", "page"]
          .map((p) => `/opportunities?${p}=${v}`),
        `/themes/${v}`,
        `/categories/${v}`,
        `/opportunities/${v}`,
        `/opportunities/${ids["opp-1"]}/${v}`,
        `/blog/${v}`,
        `/blog?q=${v}`,
        `/blog?tag=${v}`,
        `/docs/${v}`,
        `/downloads/${v}`,
        `/${v}`,
      ];
      for (const path of paths) {
        await answered(await get(path, false), `${path.slice(0, 30)} ${what}`);
      }
    }
  });

  await t.step("account area: sign-up, keys, watches, trends, links", async () => {
    const stranger = new Browser(web, "192.0.2.77");
    const member = new Browser(web, "192.0.2.78");
    await signUp(member, "sweep@example.com");
    for (const [what, value] of VALUES) {
      const landing = await stranger.get("/account");
      const signup = await stranger.post("/account/signup", {
        email: `${value}@example.com`,
        csrf: csrfIn(landing.text),
      });
      assert.ok(signup.response.status < 500, `sign-up ${what}`);
      for (
        const path of [
          `/account/link?token=${encodeURIComponent(value)}`,
          `/account/trends?status=${encodeURIComponent(value)}`,
          `/account/trends?window=${encodeURIComponent(value)}`,
          `/account?done=${encodeURIComponent(value)}`,
          `/account/authorize?client_id=${encodeURIComponent(value)}&redirect_uri=${
            encodeURIComponent(value)
          }&state=${encodeURIComponent(value)}`,
        ]
      ) {
        const page = await member.get(path);
        assert.ok(page.response.status < 500, `${path.slice(0, 30)} ${what}`);
      }
      const page = await member.get("/account");
      const csrf = csrfIn(page.text);
      const key = await member.post("/account/keys", { name: value, csrf });
      assert.ok(key.response.status < 500, `key name ${what}`);
      const fields = ["name", "q", "platform", "channel", "category", "theme", "webhook_url"];
      for (const field of fields) {
        const form = { name: "Sweep", feed: "on", csrf, [field]: value };
        const watch = await member.post("/account/watches", form);
        assert.ok(watch.response.status < 500, `watch form ${field} ${what}`);
      }
      await db.sql`delete from watches where id <> ${watchId}`;
      await db.sql`delete from api_keys where name <> 'test' and revoked_at is null
        and account_id = (select id from accounts where email = 'sweep@example.com')`;
    }
  });

  const failures = [...app.logs].filter((e) => e.status === 500 || e.level === "error");
  assert.deepEqual(failures.slice(0, 3), [], `${failures.length} failures logged`);
});
