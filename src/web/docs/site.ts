/**
 * The documentation site as the web serves it: `/docs` (the index), `/docs/{page}` and its `.md`
 * twin, `/llms.txt`, `/llms-full.txt`, each rendered once for the instance's address on first use
 * (they change only with a deployment), and the API reference at `/docs/api` under the web's
 * headers plus the one Content-Security-Policy addition of that page (api_reference.ts).
 */
import { type Rendered, staticPage } from "../page_cache.ts";
import { securityHeaders } from "../security.ts";
import { DOCS_CSP_EXTRA, renderDocs } from "./api_reference.ts";
import {
  docOf,
  forInstance,
  llmsFullTxt,
  llmsTxt,
  renderDocPage,
  renderDocsIndex,
} from "./pages.ts";

/** The documentation of the instance at `base`. */
export function createDocsSite(base: string): {
  page(path: string): Promise<Rendered> | undefined;
  apiReference(request: Request): Promise<Response>;
} {
  let docs: Promise<Rendered> | undefined;
  const docsPage = () => docs ??= staticPage(renderDocs());
  const texts = new Map<string, Promise<Rendered>>();
  const once = (path: string, render: () => string, type?: string) => {
    let found = texts.get(path);
    if (!found) texts.set(path, found = staticPage(render(), type));
    return found;
  };
  const plain = "text/plain; charset=utf-8";
  function docsSite(path: string): Promise<Rendered> | undefined {
    if (path === "/docs" || path === "/docs/") return once("/docs", () => renderDocsIndex(base));
    if (path === "/llms.txt") return once(path, () => llmsTxt(base), plain);
    if (path === "/llms-full.txt") return once(path, () => llmsFullTxt(base), plain);
    const doc = docOf(path);
    if (!doc) return undefined;
    return doc.markdown
      ? once(path, () => forInstance(doc.page.markdown, base), "text/markdown; charset=utf-8")
      : once(path, () => renderDocPage(doc.page, base));
  }

  /** /docs/api: the web's headers, with the one CSP addition of that page. */
  function apiReferenceResponse(request: Request, rendered: Rendered): Response {
    const security = securityHeaders("public");
    const headers = {
      "Content-Type": rendered.contentType,
      "Cache-Control": "public, max-age=300",
      ETag: rendered.etag,
      ...security,
      "Content-Security-Policy": `${security["Content-Security-Policy"]}; ${DOCS_CSP_EXTRA}`,
    };
    if (request.headers.get("if-none-match") === rendered.etag) {
      return new Response(null, { status: 304, headers });
    }
    return new Response(rendered.body, { headers });
  }

  return {
    page: docsSite,
    apiReference: async (request) => apiReferenceResponse(request, await docsPage()),
  };
}
