/**
 * The interactive API reference at `/docs/api`: Swagger UI (npm `swagger-ui-dist`, pinned in
 * deno.json) renders the served OpenAPI document (/api/v1/openapi.json), and "Try it out" sends
 * real requests with the key the reader enters under "Authorize".
 *
 * Its files are served by us, never from a CDN: they are imported as text from the pinned npm
 * package, so they are part of the module graph (no read permission, nothing fetched at run
 * time). The page runs under the web's Content-Security-Policy with one addition, for this page
 * only: `connect-src 'self'`, so that Swagger UI can fetch the document and send the requests
 * it tries (the base policy's `default-src 'none'` forbids every fetch). Still no inline script
 * or style element, and no other origin.
 *
 * The key stays in the page's memory: `persistAuthorization` is off (Swagger UI then writes no
 * localStorage), the page sets no cookie, and reloading the page forgets it.
 */
import SWAGGER_CSS from "swagger-ui-dist/swagger-ui.css" with { type: "text" };
import SWAGGER_JS from "swagger-ui-dist/swagger-ui-bundle.js" with { type: "text" };
import SWAGGER_PACKAGE from "swagger-ui-dist/package.json" with { type: "json" };
import { html, SITE_HEADER } from "../html.ts";

/** The version of Swagger UI served (from its package). */
export const SWAGGER_UI_VERSION: string = SWAGGER_PACKAGE.version;

/** The extra CSP directive of /docs/api (see the module comment). */
export const DOCS_CSP_EXTRA = "connect-src 'self'";

// Our settings: the document we serve, no validator badge (it would call validator.swagger.io),
// no key kept between visits, no configuration taken from the page's query string.
const DOCS_JS = `"use strict";
window.addEventListener("DOMContentLoaded", () => {
  window.ui = SwaggerUIBundle({
    url: "/api/v1/openapi.json",
    dom_id: "#swagger-ui",
    validatorUrl: null,
    persistAuthorization: false,
    queryConfigEnabled: false,
    deepLinking: false,
    displayRequestDuration: true,
    defaultModelsExpandDepth: 0,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    // Plain code samples: the highlighter's colours fail the contrast minimum on its dark
    // background, and it sets them in style attributes that a style sheet cannot reach.
    syntaxHighlight: false,
  });
  // Accessibility fixes of what Swagger UI renders, applied whenever it renders: controls
  // without an accessible name (the server select inside an empty label, the selects of enum
  // parameters, the dialog's close button), Authorize buttons named "Apply credentials" (a name
  // that does not contain their text), and code samples that scroll but take no keyboard focus.
  const name = (el) => {
    if (el.id === "servers") return "Server";
    const param = el.closest("tr[data-param-name]");
    return param ? "Value of " + param.getAttribute("data-param-name") : "";
  };
  const named = (el) =>
    el.hasAttribute("aria-label") || el.hasAttribute("aria-labelledby") ||
    [...(el.labels || [])].some((label) => label.textContent.replace(el.textContent, "").trim());
  const fix = () => {
    const root = document.getElementById("swagger-ui");
    for (const el of root.querySelectorAll("select, input, textarea")) {
      const label = named(el) ? "" : name(el);
      if (label) el.setAttribute("aria-label", label);
    }
    for (const el of root.querySelectorAll("button")) {
      const text = el.textContent.trim();
      const aria = el.getAttribute("aria-label");
      if (!text && !aria && el.classList.contains("close-modal")) {
        el.setAttribute("aria-label", "Close");
      } else if (text && aria && !aria.includes(text)) {
        el.setAttribute("aria-label", text);
      }
    }
    for (const el of root.querySelectorAll(".highlight-code > pre:not([tabindex])")) {
      el.setAttribute("tabindex", "0");
    }
  };
  fix();
  new MutationObserver(fix).observe(document.getElementById("swagger-ui"), {
    childList: true,
    subtree: true,
  });
});
`;

// The site header (as /assets/web.css draws it, which is not loaded here: its rules for
// buttons, tables and inputs would restyle Swagger UI) and contrast fixes for Swagger UI.
const DOCS_CSS = `body { margin: 0; background: #fff; }
header.site { border-bottom: 1px solid #dde3e8; font-family: system-ui, -apple-system,
  "Segoe UI", Roboto, sans-serif; }
header.site nav { display: flex; flex-wrap: wrap; gap: 0.4rem 1.25rem; align-items: center;
  max-width: 1460px; margin: 0 auto; padding: 0.8rem 20px; box-sizing: border-box; }
header.site a { color: #0b63c5; }
header.site .brand { font-weight: 700; margin-right: auto; color: #1d2327; }
.docs-intro { max-width: 1460px; margin: 0 auto; padding: 0 20px; box-sizing: border-box;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1d2327; }
.docs-intro h1 { font-size: 1.6rem; margin: 1.2rem 0 0.4rem; }
.docs-intro p { margin: 0.4rem 0; line-height: 1.5; }
.docs-intro a { color: #0b63c5; }
noscript p { max-width: 1460px; margin: 1rem auto; padding: 0 20px; }
/* Swagger UI's own colours, darkened to a contrast of at least 4.5:1 (WCAG AA; axe checks it). */
body .swagger-ui .info .title small { background: #5b6270; }
body .swagger-ui .info .title small.version-stamp { background: #3d6b00; }
body .swagger-ui .info .url, body .swagger-ui .info a { color: #0b63c5; }
body .swagger-ui .btn.authorize { border-color: #137a4a; color: #137a4a; }
body .swagger-ui .btn.authorize svg { fill: #137a4a; color: #137a4a; }
body .swagger-ui .opblock.opblock-get .opblock-summary-method { background: #0b63c5; }
body .swagger-ui .opblock.opblock-post .opblock-summary-method { background: #137a4a; }
body .swagger-ui .opblock.opblock-patch .opblock-summary-method { background: #0f766e; }
body .swagger-ui .opblock.opblock-put .opblock-summary-method { background: #9a5b00; }
body .swagger-ui .opblock.opblock-delete .opblock-summary-method { background: #b91c1c; }
body .swagger-ui .btn.execute { background-color: #0b63c5; border-color: #0b63c5; }
body .swagger-ui .btn.cancel { border-color: #b91c1c; color: #b91c1c; }
body .swagger-ui .parameter__in, body .swagger-ui .parameter__extension { color: #545b66; }
body .swagger-ui .download-contents { background: #545b66; }
/* Its buttons fade every property in 0.3 s, through colours below that contrast: no fading. */
body .swagger-ui .btn { transition: none; }
`;

/** The files of /docs by path, with their content types. */
export const DOCS_ASSETS: Record<string, { body: string; type: string }> = {
  "/docs/assets/swagger-ui.css": { body: SWAGGER_CSS, type: "text/css; charset=utf-8" },
  "/docs/assets/swagger-ui-bundle.js": {
    body: SWAGGER_JS,
    type: "text/javascript; charset=utf-8",
  },
  "/docs/assets/docs.js": { body: DOCS_JS, type: "text/javascript; charset=utf-8" },
  "/docs/assets/docs.css": { body: DOCS_CSS, type: "text/css; charset=utf-8" },
};

/** The page /docs/api: the site header, a short introduction and the Swagger UI mount point. */
export function renderDocs(): string {
  return "<!DOCTYPE html>\n" + html`
    <html lang="en">
      <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>API reference · Opportunity Intelligence</title>
        <meta name="description"
          content="Interactive reference of the Opportunity Intelligence REST API">
        <link rel="icon" href="data:,">
        <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
        <link rel="stylesheet" href="/docs/assets/docs.css">
        <script src="/docs/assets/swagger-ui-bundle.js" defer></script>
        <script src="/docs/assets/docs.js" defer></script>
      </head>
      <body>
        ${SITE_HEADER}
        <div class="docs">
          <section class="docs-intro" aria-labelledby="docs-title">
            <h1 id="docs-title">API reference</h1>
            <p>Every endpoint of the REST API, from the <a href="/api/v1/openapi.json">OpenAPI
    document</a>. To try one, press <strong>Authorize</strong>, enter your key under
    <code>ApiKeyHeader</code> (get one in your <a href="/account">account</a>), then
    <strong>Try it out</strong>. Each try is a real call and counts against your quota like any
    other. The key stays in this page's memory only: it is not stored, and reloading the page
    forgets it.</p>
          </section>
          <noscript><p>This reference needs JavaScript. The same content is in the
    <a href="/api/v1/openapi.json">OpenAPI document</a>.</p></noscript>
          <!-- Swagger UI renders the operations as the page's main landmark. -->
          <div id="swagger-ui"></div>
        </div>
      </body>
    </html>
  `.value;
}
