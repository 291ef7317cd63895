import assert from "node:assert/strict";
import { HtmlValidate } from "html-validate";
import { DOCS_ASSETS, renderDocs, SWAGGER_UI_VERSION } from "../../src/web/docs/api_reference.ts";
import { dbTest } from "../helpers/db.ts";
import { webTestApp } from "../helpers/web.ts";

const BASE = "https://oppintel.example";

Deno.test("renderDocs: valid HTML that loads only our own files, no inline script", async () => {
  const page = renderDocs();
  const loads = [...page.matchAll(/<(?:script|link)\b[^>]*?(?:src|href)="([^"]*)"/g)].map((m) =>
    m[1]
  );
  assert.deepEqual(loads, [
    "data:,",
    "/docs/assets/swagger-ui.css",
    "/docs/assets/docs.css",
    "/docs/assets/swagger-ui-bundle.js",
    "/docs/assets/docs.js",
  ]);
  for (const path of loads.filter((p) => p.startsWith("/"))) assert.ok(path in DOCS_ASSETS, path);
  assert.doesNotMatch(page, /<script(?![^>]*\bsrc=)[^>]*>/, "no inline script");
  assert.doesNotMatch(page, /<style|style="/, "no inline style");
  const validator = new HtmlValidate({ extends: ["html-validate:recommended"] });
  const report = await validator.validateString(page);
  const messages = report.results.flatMap((r) =>
    r.messages.map((m) => `${m.line}:${m.column} ${m.ruleId} ${m.message}`)
  );
  assert.deepEqual(messages, []);
});

Deno.test("docs.js: our document, no validator, no stored key, no config from the URL", () => {
  const script = DOCS_ASSETS["/docs/assets/docs.js"].body;
  assert.match(script, /url: "\/api\/v1\/openapi.json"/);
  assert.match(script, /validatorUrl: null/, "the validator badge would call validator.swagger.io");
  assert.match(script, /persistAuthorization: false/, "the key is not kept in localStorage");
  assert.match(script, /queryConfigEnabled: false/);
  assert.doesNotMatch(script, /localStorage|sessionStorage|document\.cookie/);
});

Deno.test("the Swagger UI files are the pinned npm package's", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url)));
  assert.equal(config.imports["swagger-ui-dist/"], `npm:/swagger-ui-dist@${SWAGGER_UI_VERSION}/`);
  const bundle = DOCS_ASSETS["/docs/assets/swagger-ui-bundle.js"].body;
  assert.ok(bundle.length > 500_000, "the whole bundle");
  assert.match(bundle, /SwaggerUIBundle/);
  assert.match(DOCS_ASSETS["/docs/assets/swagger-ui.css"].body, /\.swagger-ui/);
});

dbTest(
  "GET /docs/api and its files, under the web's CSP plus connect-src 'self'",
  async (db, t) => {
    const app = webTestApp(db, { base: BASE });
    const get = (path: string, init?: RequestInit) =>
      app.handler(new Request(`${BASE}${path}`, init));

    await t.step("the page, with the one CSP addition", async () => {
      const response = await get("/docs/api");
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("content-type"), "text/html; charset=utf-8");
      const csp = response.headers.get("content-security-policy") ?? "";
      const home = (await get("/")).headers.get("content-security-policy") ?? "";
      assert.equal(csp, `${home}; connect-src 'self'`);
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
      assert.doesNotMatch(home, /connect-src/, "other pages keep the base policy");
      assert.match(await response.text(), /<div id="swagger-ui"><\/div>/);
      const index = await get("/docs");
      assert.equal(index.status, 200);
      assert.doesNotMatch(await index.text(), /swagger-ui/, "/docs is the documentation's index");
    });

    await t.step("the files, with their types", async () => {
      for (const [path, asset] of Object.entries(DOCS_ASSETS)) {
        const response = await get(path);
        assert.equal(response.status, 200, path);
        assert.equal(response.headers.get("content-type"), asset.type, path);
        assert.equal(await response.text(), asset.body, path);
      }
      const missing = await get("/docs/assets/nothing.js");
      assert.equal(missing.status, 404);
      await missing.body?.cancel();
    });

    await t.step("304 for a known ETag; POST is 405", async () => {
      const etag = (await get("/docs/api")).headers.get("etag")!;
      assert.equal((await get("/docs/api", { headers: { "If-None-Match": etag } })).status, 304);
      const post = await get("/docs/api", { method: "POST" });
      assert.equal(post.status, 405);
      await post.body?.cancel();
    });
  },
);
