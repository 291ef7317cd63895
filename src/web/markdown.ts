/**
 * Markdown to HTML with markdown-it. Raw HTML in an article is shown as text, never run:
 * `html: false` escapes it, and markdown-it's link check already refuses `javascript:`,
 * `vbscript:` and most `data:` URLs. Headings move down one level because the page's `<h1>` is
 * the article's title.
 */
// @deno-types="@types/markdown-it"
import MarkdownIt from "markdown-it";

const md = new MarkdownIt({ html: false, linkify: false, typographer: false });

md.renderer.rules.heading_open = (tokens, idx, options, _env, self) => {
  const token = tokens[idx];
  const level = Math.min(6, Number(token.tag.slice(1)) + 1);
  token.tag = `h${level}`;
  return self.renderToken(tokens, idx, options);
};
md.renderer.rules.heading_close = (tokens, idx, options, _env, self) => {
  const level = Math.min(6, Number(tokens[idx].tag.slice(1)) + 1);
  tokens[idx].tag = `h${level}`;
  return self.renderToken(tokens, idx, options);
};

// Links to other sites get no referrer and no hold on this window.
md.renderer.rules.link_open = (tokens, idx, options, _env, self) => {
  const token = tokens[idx];
  const href = token.attrGet("href") ?? "";
  if (/^https?:\/\//i.test(href)) token.attrSet("rel", "nofollow noopener noreferrer");
  return self.renderToken(tokens, idx, options);
};

/** Renders an article's Markdown body to safe HTML. */
export function renderMarkdown(markdown: string): string {
  return md.render(markdown);
}
