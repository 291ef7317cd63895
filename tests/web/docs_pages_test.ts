/**
 * The documentation: the README is a front page of at most 200 lines that links every page of
 * docs/; no line of them is over 120 characters (tables padded by the formatter were the cause);
 * a long page opens with a contents list whose links all land on a heading; each page is served
 * as valid HTML at /docs/{page} and as Markdown at /docs/{page}.md (the file, with the instance's
 * address in place of those it names); /docs and /llms.txt list every page, /llms-full.txt holds
 * the pages for using the service under 60 KB. A service started with its own PUBLIC_BASE_URL
 * names it everywhere, and never the placeholder addresses; the counts of tools the pages give are
 * those of the running service.
 */
import assert from "node:assert/strict";
import { HtmlValidate } from "html-validate";
import { dbTest } from "../helpers/db.ts";
import { webTestApp } from "../helpers/web.ts";
import { makeKey } from "../helpers/app.ts";
import {
  AGENT_PAGES,
  DOC_PAGES,
  forInstance,
  withoutRunSections,
} from "../../src/web/docs/pages.ts";
import { installLines } from "../../src/web/install_lines.ts";

const ROOT = new URL("../../", import.meta.url);
const BASE = "https://oppintel.example";

const read = (path: string) => Deno.readTextFile(new URL(path, ROOT));

/** The lines of a Markdown text outside fenced blocks. */
function prose(markdown: string): string[] {
  let fenced = false;
  return markdown.split("\n").filter((line) => {
    if (/^\s*```/.test(line)) fenced = !fenced;
    return !fenced;
  });
}

Deno.test("the README: a front page of at most 200 lines linking every page", async (t) => {
  const readme = await read("README.md");
  await t.step("at most 200 lines", () => {
    assert.ok(readme.split("\n").length - 1 <= 200, `${readme.split("\n").length - 1} lines`);
  });
  await t.step("every page of docs/ is linked, and every page linked exists", async () => {
    const served = DOC_PAGES.map((p) => `docs/${p.slug}.md`).sort();
    const linked = [...new Set([...readme.matchAll(/\]\((docs\/[a-z-]+\.md)\)/g)].map((m) => m[1]))]
      .sort();
    assert.deepEqual(linked, served);
    const files = [];
    for await (const entry of Deno.readDir(new URL("docs/", ROOT))) {
      if (entry.name.endsWith(".md") && entry.name !== "DECISIONS.md") files.push(entry.name);
    }
    assert.deepEqual(files.map((f) => `docs/${f}`).sort(), served, "no page left out");
  });
});

Deno.test("the pages: short lines, a contents list on long pages, anchors that land", async (t) => {
  for (const file of ["README.md", ...DOC_PAGES.map((p) => `docs/${p.slug}.md`)]) {
    await t.step(file, async () => {
      const text = await read(file);
      // A link's definition is one address, which cannot wrap.
      const long = text.split("\n").filter((line) =>
        line.length > 120 && !/^\[[^\]]+\]: \S+$/.test(line)
      );
      assert.deepEqual(long, [], "no line over 120 characters");
      const lines = prose(text);
      if (file !== "README.md" && text.split("\n").length > 100) {
        const top = lines.slice(0, 25).filter((l) => /^- \[.*\]\(#/.test(l));
        assert.ok(top.length >= 2, "a long page opens with a contents list");
      }
    });
  }
});

dbTest("GET /docs/{page} and /docs/{page}.md, /docs, /llms.txt, /llms-full.txt", async (db, t) => {
  const app = webTestApp(db, { base: BASE });
  const get = (path: string) => app.handler(new Request(`${BASE}${path}`));
  const validator = new HtmlValidate({ extends: ["html-validate:recommended"] });

  for (const doc of DOC_PAGES) {
    await t.step(`${doc.slug}: the Markdown twin is the file, for this instance`, async () => {
      const response = await get(`/docs/${doc.slug}.md`);
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("content-type"), "text/markdown; charset=utf-8");
      assert.equal(await response.text(), forInstance(await read(`docs/${doc.slug}.md`), BASE));
    });
    await t.step(
      `${doc.slug}: valid HTML, canonical, its twin named, anchors that land`,
      async () => {
        const response = await get(`/docs/${doc.slug}`);
        assert.equal(response.status, 200);
        assert.equal(response.headers.get("content-type"), "text/html; charset=utf-8");
        const page = await response.text();
        assert.ok(page.includes(`<link rel="canonical" href="${BASE}/docs/${doc.slug}">`));
        assert.ok(
          page.includes(`<link rel="alternate" type="text/markdown" href="/docs/${doc.slug}.md">`),
        );
        assert.ok(page.includes(`<h1>${doc.title.replaceAll("`", "")}`) || page.includes("<h1>"));
        for (const [, marker] of doc.markdown.matchAll(/^\s*<!-- (readme-test: .+) -->\s*$/gm)) {
          assert.ok(!page.includes(marker.replaceAll("'", "&#39;")), `${marker}: not on the page`);
        }
        const ids = new Set([...page.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]));
        for (const [, anchor] of page.matchAll(/href="#([^"]+)"/g)) {
          assert.ok(ids.has(anchor), `#${anchor} lands on a heading`);
        }
        for (const [, target, anchor] of page.matchAll(/href="\/docs\/([a-z-]+)(?:#([^"]+))?"/g)) {
          const linked = await get(`/docs/${target}`);
          assert.equal(linked.status, 200, `/docs/${target}`);
          const text = await linked.text();
          if (anchor) assert.ok(text.includes(` id="${anchor}"`), `/docs/${target}#${anchor}`);
        }
        assert.doesNotMatch(page, /href="[a-z-]+\.md/, "links between pages go to the pages");
        const report = await validator.validateString(page);
        const messages = report.results.flatMap((r) =>
          r.messages.map((m) => `${m.line}:${m.column} ${m.ruleId} ${m.message}`)
        );
        assert.deepEqual(messages, []);
      },
    );
  }

  await t.step("/docs lists every page and the API reference", async () => {
    const page = await (await get("/docs")).text();
    for (const doc of DOC_PAGES) assert.ok(page.includes(`href="/docs/${doc.slug}"`), doc.slug);
    assert.ok(page.includes(`href="/docs/api"`));
    const report = await validator.validateString(page);
    assert.equal(report.valid, true, JSON.stringify(report.results));
  });

  await t.step("/llms.txt: the llmstxt.org shape, every page's Markdown listed", async () => {
    const response = await get("/llms.txt");
    assert.equal(response.headers.get("content-type"), "text/plain; charset=utf-8");
    const text = await response.text();
    const lines = text.split("\n");
    assert.equal(lines[0], "# Opportunity Intelligence");
    assert.match(lines[2], /^> /, "a summary in a blockquote");
    const links = [...text.matchAll(/^- \[[^\]]+\]\((\S+)\)/gm)].map((m) => m[1]);
    for (const doc of DOC_PAGES) {
      assert.ok(links.includes(`${BASE}/docs/${doc.slug}.md`), doc.slug);
    }
    for (const link of links.filter((l) => l.startsWith(`${BASE}/`))) {
      const linked = await get(link.slice(BASE.length));
      assert.equal(linked.status, 200, link);
      await linked.body?.cancel();
    }
  });

  await t.step("/docs: no summary repeats its page's title", async () => {
    const page = await (await get("/docs")).text();
    const items = [...page.matchAll(/<li><a href="\/docs\/[a-z-]+">([^<]+)<\/a>: ([^<]+)<\/li>/g)];
    assert.equal(items.length, DOC_PAGES.length + 1, "every page once, and the API reference");
    for (const [, title, summary] of items) {
      const words = title.toLowerCase().replace(/[^a-z ]/g, "").split(/\s+/);
      for (let i = 0; i + 2 < words.length; i++) {
        const three = words.slice(i, i + 3).join(" ");
        assert.ok(!summary.toLowerCase().includes(three), `${title}: "${summary}"`);
      }
    }
  });

  await t.step("/llms-full.txt: the pages for using the service, under 60 KB", async () => {
    const response = await get("/llms-full.txt");
    const text = await response.text();
    const size = new TextEncoder().encode(text).length;
    assert.ok(size < 60_000, `${size} bytes`);
    assert.ok(AGENT_PAGES.length >= 5);
    for (const doc of AGENT_PAGES) {
      assert.ok(
        text.includes(`<!-- ${BASE}/docs/${doc.slug}.md -->\n\n# ${doc.title}\n`),
        doc.slug,
      );
      const kept = withoutRunSections(forInstance(doc.markdown, BASE)).split("\n")
        .filter((line) => !line.includes("<!-- "));
      for (const line of kept) assert.ok(text.includes(line), `${doc.slug}: ${line}`);
    }
    for (const slug of ["getting-started", "architecture", "operations", "deploying"]) {
      assert.ok(!text.includes(`/docs/${slug}.md -->`), `${slug} is for running the service`);
    }
    assert.doesNotMatch(text, /deno task test|<!-- (readme-test|llms-full)/);
  });

  await t.step("an unknown page is a 404", async () => {
    const response = await get("/docs/nothing");
    assert.equal(response.status, 404);
    await response.body?.cancel();
  });
});

/** A number written in words in the docs ("sixteen tools"). */
const NUMBERS = [
  "zero",
  "one",
  "two",
  "three",
  "four",
  "five",
  "six",
  "seven",
  "eight",
  "nine",
  "ten",
  "eleven",
  "twelve",
  "thirteen",
  "fourteen",
  "fifteen",
  "sixteen",
  "seventeen",
  "eighteen",
  "nineteen",
  "twenty",
];

dbTest(
  "a service with its own PUBLIC_BASE_URL: docs that name it, and counts it has",
  async (db, t) => {
    const base = "https://example.test";
    const app = webTestApp(db, { base });
    const get = (path: string) => app.handler(new Request(`${base}${path}`));
    const paths = [
      "/docs",
      "/llms.txt",
      "/llms-full.txt",
      ...DOC_PAGES.flatMap((p) => [`/docs/${p.slug}`, `/docs/${p.slug}.md`]),
    ];

    await t.step("every page names this address, never the placeholder ones", async () => {
      for (const path of paths) {
        const response = await get(path);
        assert.equal(response.status, 200, path);
        const text = await response.text();
        assert.doesNotMatch(text, /oppintel\.example\.com|localhost:8000/, path);
      }
      for (const path of ["/docs/mcp", "/docs/mcp.md", "/llms-full.txt"]) {
        const text = await (await get(path)).text();
        assert.ok(text.includes(`${base}/mcp/`), `${path}: the MCP URL`);
        assert.ok(text.includes(`npx -y ${base}/downloads/oppintel-mcp.tgz`), `${path}: npx line`);
      }
      const mcp = await (await get("/docs/mcp.md")).text();
      assert.ok(mcp.includes(installLines(base).cursorLink), "the Cursor link, re-encoded");
      assert.ok(mcp.includes(installLines(base).vscodeLink), "the VS Code link, re-encoded");
    });

    await t.step("every link of every page to this service lands on a page", async () => {
      const broken: string[] = [];
      for (const p of DOC_PAGES) {
        const text = await (await get(`/docs/${p.slug}`)).text();
        const links = [...text.matchAll(/<a [^>]*href="([^"#]+)[^"]*"/g)].map((m) => m[1])
          .filter((href) => !/^[a-z]+:/i.test(href) || href.startsWith(base))
          .map((href) => href.replace(base, ""));
        for (const href of new Set(links)) {
          const path = new URL(href, `${base}/docs/${p.slug}`).pathname;
          if (path.startsWith("/api/") || path.startsWith("/mcp")) continue;
          const response = await get(path);
          await response.body?.cancel();
          if (response.status >= 400) {
            broken.push(`/docs/${p.slug} -> ${href} (${response.status})`);
          }
        }
      }
      assert.deepEqual(broken, []);
    });

    await t.step("the number of tools the pages give is that of tools/list", async () => {
      const { key } = await makeKey(db.sql, "free");
      const response = await app.handler(
        new Request(`${base}/mcp/`, {
          method: "POST",
          headers: {
            "X-API-Key": key,
            "Content-Type": "application/json",
            Accept: "application/json, text/event-stream",
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
        }),
      );
      assert.equal(response.status, 200);
      const count = (await response.json()).result.tools.length;
      const files = [
        "README.md",
        "npm-stdio/README.md",
        ...DOC_PAGES.map((p) => `docs/${p.slug}.md`),
      ];
      let claims = 0;
      for (const file of files) {
        const text = (await read(file)).replace(/\s+/g, " ");
        for (const [claim, word] of text.matchAll(/\ball (\w+) tools\b/gi)) {
          const said = NUMBERS.indexOf(word.toLowerCase());
          const n = said >= 0 ? said : Number(word);
          assert.equal(n, count, `${file}: "${claim}"`);
          claims++;
        }
      }
      assert.ok(claims >= 2, "the pages give the count");
    });
  },
);
