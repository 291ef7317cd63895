import assert from "node:assert/strict";
import { HtmlValidate } from "html-validate";
import { OPERATIONS } from "../../src/metering/admission.ts";
import type { OperationName } from "../../src/metering/operations.ts";
import { TOOLS, WATCH_TOOLS } from "../../src/mcp/tools.ts";
import {
  PLAN_LIMITS,
  PLAN_NAMES,
  PLAN_PRICES,
  PLAN_RANK,
  PLANS,
  WATCH_LIMITS,
} from "../../src/platform/plans.ts";
import { LIST_PRICES } from "../../src/billing/prices.ts";
import { openApiDocument } from "../../src/rest/openapi.ts";
import { listSurfaces } from "../../src/surfaces.ts";
import { renderHome, STDIO_NODE, STDIO_PACKAGE } from "../../src/web/public/home.ts";
import { dbTest } from "../helpers/db.ts";
import { webTestApp } from "../helpers/web.ts";

const BASE = "https://oppintel.example";
/** The operations an OpenAPI path item may hold; its other keys are not methods. */
const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/** The page's text as a reader sees it: tags and <wbr> gone, entities of code decoded. */
function textOf(fragment: string): string {
  return fragment.replace(/<wbr>/g, "").replace(/<[^>]+>/g, " ").replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&")
    .replace(/\s+/g, " ").trim();
}

/** The rows of the plan table: the row header's text and the marks of Free, Pro, Business. */
function planRows(page: string): { head: string; marks: string[] }[] {
  const table = /<table class="plans">([\s\S]*?)<\/table>/.exec(page)?.[1] ?? "";
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(table)?.[1] ?? "";
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map(([, row]) => ({
    head: textOf(/<th scope="row">([\s\S]*?)<\/th>/.exec(row)?.[1] ?? ""),
    marks: [...row.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map(([, cell]) => textOf(cell)),
  }));
}

/** The text of the <pre> with this id. */
function preText(page: string, id: string): string {
  const match = new RegExp(`<pre id="${id}"><code>([\\s\\S]*?)</code></pre>`).exec(page);
  if (!match) throw new Error(`No <pre id="${id}"> on the page`);
  return match[1].replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">").replace(/&amp;/g, "&");
}

Deno.test("renderHome: the plans are the price list and the tier table", async (t) => {
  const surfaces = listSurfaces();
  const page = renderHome(BASE, surfaces);
  const rows = planRows(page);

  await t.step("each plan's monthly calls come from PLAN_LIMITS", () => {
    const head = /<thead>([\s\S]*?)<\/thead>/.exec(page)?.[1] ?? "";
    for (const plan of PLANS) {
      const calls = PLAN_LIMITS[plan].toLocaleString("en-US");
      assert.match(textOf(head), new RegExp(`${calls} calls a month`), plan);
    }
  });

  await t.step("each plan's price comes from PLAN_PRICES, or from Stripe's prices", () => {
    const head = textOf(/<thead>([\s\S]*?)<\/thead>/.exec(page)?.[1] ?? "");
    for (const plan of PLANS) {
      const price = PLAN_PRICES[plan] === 0 ? "free" : `${PLAN_PRICES[plan] / 100} USD a month`;
      assert.match(head, new RegExp(`${PLAN_NAMES[plan]} [\\d,]+ calls a month ${price}`), plan);
    }
    const stripe = renderHome(BASE, surfaces, {
      prices: {
        source: "stripe",
        prices: { ...LIST_PRICES.prices, pro: { amount: 1950, currency: "EUR" } },
      },
      selfServe: true,
    });
    assert.match(textOf(stripe), /Pro 1,000 calls a month 19\.50 EUR a month/);
    assert.match(textOf(stripe), /Upgrade, change your card or cancel yourself/);
    assert.match(textOf(page), /Plans are changed by us/);
  });

  await t.step("every REST endpoint and MCP tool has a row, marked by its tier", () => {
    const paths = openApiDocument().paths as Record<string, Record<string, unknown>>;
    const operations = Object.entries(paths).flatMap(([path, item]) =>
      Object.keys(item).filter((key) => HTTP_METHODS.includes(key))
        .map((method) => ({ method: method.toUpperCase(), path }))
    );
    assert.ok(operations.length >= 9);
    // Every endpoint of the served document is on the page (an unknown one is left out).
    assert.equal(surfaces.rest.length, operations.length, "every endpoint is classified");
    for (const { method, path } of operations) {
      const escaped = path.replace(/[{}]/g, "\\$&");
      const line = new RegExp(`(^| |, )${method}(, [A-Z]+)* ${escaped} `);
      const row = rows.find((r) => line.test(`${r.head} `));
      assert.ok(row, `a row for ${method} ${path}`);
    }
    for (const tool of [...TOOLS, ...WATCH_TOOLS]) {
      assert.ok(rows.some((r) => r.head.includes(`MCP ${tool.name} `)), tool.name);
    }
    for (const endpoint of surfaces.rest.filter((e) => e.operation !== "watch")) {
      const row = rows.find((r) => r.head.includes(` ${endpoint.path} `))!;
      const needed = PLAN_RANK[OPERATIONS[endpoint.operation as OperationName].plan];
      assert.deepEqual(
        row.marks,
        PLANS.map((p) => PLAN_RANK[p] >= needed ? "✓ Included" : "– Not included"),
        endpoint.path,
      );
    }
  });

  await t.step("only HTTP methods are listed, not a path item's parameters", () => {
    const paths = openApiDocument().paths as Record<string, Record<string, unknown>>;
    assert.ok(Object.values(paths).some((item) => "parameters" in item), "the case is there");
    const listed = rows.flatMap((r) =>
      [...r.head.matchAll(/(?:^| )([A-Z]+(?:, [A-Z]+)*) \//g)].flatMap((m) => m[1].split(", "))
    );
    assert.ok(listed.length >= surfaces.rest.length / 2);
    assert.deepEqual(listed.filter((m) => !HTTP_METHODS.includes(m.toLowerCase())), []);
    assert.deepEqual(
      surfaces.rest.filter((e) => !HTTP_METHODS.includes(e.method.toLowerCase())),
      [],
    );
    assert.doesNotMatch(page, /PARAMETERS/);
  });

  await t.step("watches: on every plan, with each plan's number of watches", () => {
    const row = rows.find((r) => r.head.startsWith("Watches"))!;
    assert.match(row.head, /GET, POST \/api\/v1\/watches /);
    assert.match(row.head, / GET, PATCH, DELETE \/api\/v1\/watches\/\{id\} /);
    assert.match(row.head, / GET \/api\/v1\/watches\/\{id\}\/deliveries /);
    assert.match(row.head, /MCP create_watch/);
    assert.match(row.head, /free of charge$/);
    assert.deepEqual(
      row.marks,
      PLANS.map((p) =>
        `✓ Included ${WATCH_LIMITS[p]} watch${WATCH_LIMITS[p] === 1 ? "" : "es"}` +
        (p === "free" ? ", e-mail and feed" : "")
      ),
    );
  });

  await t.step("concretely: the opportunity list is Pro and Business, costs 1 call", () => {
    const row = rows.find((r) => r.head.includes("GET /api/v1/opportunities "))!;
    assert.deepEqual(row.marks, ["– Not included", "✓ Included", "✓ Included"]);
    assert.match(row.head, /MCP query_opportunities/);
    assert.match(row.head, /1 call$/);
    const blog = rows.find((r) => r.head.includes("GET /api/v1/blog "))!;
    assert.deepEqual(blog.marks, ["✓ Included", "✓ Included", "✓ Included"]);
    assert.match(blog.head, /free of charge$/);
    const detail = rows.find((r) => r.head.includes("GET /api/v1/opportunities/{id} "))!;
    assert.match(detail.head, /1 call \(0 when not found\)$/);
  });

  await t.step("one row per operation that a surface offers", () => {
    const offered = [...Object.keys(OPERATIONS), "watch"].filter((name) =>
      surfaces.rest.some((e) => e.operation === name) ||
      surfaces.mcp.some((m) => m.operation === name)
    );
    assert.equal(rows.length, offered.length);
  });

  await t.step("a tier change shows on the page", () => {
    // The page reads the tier table: a surface whose endpoint runs a Pro operation is unmarked.
    const moved = renderHome(BASE, {
      rest: [{ method: "GET", path: "/x", operation: "getTheme", summary: "X" }],
      mcp: [],
    });
    assert.deepEqual(planRows(moved)[0].marks, ["– Not included", "✓ Included", "✓ Included"]);
  });
});

Deno.test("renderHome: how to connect, for this service's address", async (t) => {
  const page = renderHome(BASE, listSurfaces());

  await t.step("a REST curl line with the key header", () => {
    const curl = preText(page, "curl-example");
    assert.match(curl, /^curl -H "X-API-Key: \$OPPINTEL_API_KEY"/);
    assert.match(curl, /"https:\/\/oppintel\.example\/api\/v1\/overview"$/);
  });

  await t.step("the methods it names are the API's: reads are GET, watches are written", () => {
    assert.doesNotMatch(page, /every endpoint a <code>GET<\/code>/);
    const methods = new Set(
      Object.values(openApiDocument().paths as Record<string, object>).flatMap((item) =>
        Object.keys(item).filter((m) => ["get", "post", "patch", "delete", "put"].includes(m))
      ),
    );
    for (const method of methods) {
      assert.ok(page.includes(`<code>${method.toUpperCase()}</code>`), method);
    }
  });

  await t.step("the hosted MCP URL and a client configuration that parses", () => {
    assert.equal(preText(page, "mcp-url"), `${BASE}/mcp/`);
    const remote = JSON.parse(preText(page, "mcp-remote-config"));
    assert.equal(remote.mcpServers.oppintel.url, `${BASE}/mcp/`);
    assert.ok("X-API-Key" in remote.mcpServers.oppintel.headers);
  });

  await t.step(
    "the stdio package's configuration names the package this service serves",
    async () => {
      const config = JSON.parse(preText(page, "mcp-stdio-config")).mcpServers.oppintel;
      const pkg = JSON.parse(
        await Deno.readTextFile(new URL("../../npm-stdio/package.json", import.meta.url)),
      );
      assert.equal(STDIO_PACKAGE, pkg.name);
      assert.equal(pkg.engines.node, `>=${STDIO_NODE}`);
      assert.deepEqual(config.args, ["-y", `${BASE}/downloads/${pkg.name}.tgz`]);
      assert.equal(config.env.OPPINTEL_BASE_URL, BASE);
      assert.ok(page.includes(`<code>npx -y ${pkg.name}</code> works`), "once published");
    },
  );

  await t.step("links to the docs, the API reference, articles and account", () => {
    for (const href of ["/docs", "/docs/api", "/api/v1/openapi.json", "/blog", "/account"]) {
      assert.match(page, new RegExp(`<a href="${href.replaceAll(".", "\\.")}">`), href);
    }
  });

  await t.step("nothing is loaded from another site", () => {
    const loads = [...page.matchAll(/<(?:script|img|link|iframe)\b[^>]*?(?:src|href)="([^"]*)"/g)]
      .map((m) => m[1]);
    assert.ok(loads.length > 0);
    for (const url of loads) {
      assert.ok(
        url.startsWith("/") || url.startsWith("data:") || url === `${BASE}/`,
        `${url} is ours`,
      );
    }
  });

  await t.step("the page is valid HTML", async () => {
    const validator = new HtmlValidate({ extends: ["html-validate:recommended"] });
    const report = await validator.validateString(page);
    const messages = report.results.flatMap((r) =>
      r.messages.map((m) => `${m.line}:${m.column} ${m.ruleId} ${m.message}`)
    );
    assert.deepEqual(messages, []);
  });
});

dbTest("GET / answers the home page under the web's security headers", async (db, t) => {
  const app = webTestApp(db, { base: BASE });
  const response = await app.handler(new Request(`${BASE}/`));
  const page = await response.text();

  await t.step("200 HTML, no redirect", () => {
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "text/html; charset=utf-8");
    assert.equal(response.headers.get("location"), null);
    assert.match(page, /<h1 id="home-title">Opportunity Intelligence<\/h1>/);
  });

  await t.step("the same CSP as every page: no inline script, nothing from elsewhere", () => {
    const csp = response.headers.get("content-security-policy") ?? "";
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.equal(response.headers.get("x-content-type-options"), "nosniff");
    assert.doesNotMatch(page, /<script>/);
  });

  await t.step("an ETag, and 304 for it", async () => {
    const etag = response.headers.get("etag");
    assert.ok(etag);
    const again = await app.handler(
      new Request(`${BASE}/`, { headers: { "If-None-Match": etag } }),
    );
    assert.equal(again.status, 304);
  });

  await t.step("the plan table is filled from the composed service", () => {
    assert.equal(planRows(page).length > 0, true);
    assert.match(page, /MCP query_<wbr>opportunities/);
  });

  await t.step("HEAD answers without a body; POST is 405", async () => {
    const head = await app.handler(new Request(`${BASE}/`, { method: "HEAD" }));
    assert.equal(head.status, 200);
    assert.equal(await head.text(), "");
    const post = await app.handler(new Request(`${BASE}/`, { method: "POST" }));
    assert.equal(post.status, 405);
    await post.body?.cancel();
  });
});
