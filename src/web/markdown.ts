/**
 * Markdown to HTML with markdown-it. Raw HTML in an article is shown as text, never run:
 * `html: false` escapes it, and markdown-it's link check already refuses `javascript:`,
 * `vbscript:` and most `data:` URLs.
 *
 * Headings fit under the page's `<h1>` (the article's title): a first heading that repeats the
 * title is dropped, the body's highest heading level becomes `<h2>`, the others keep their
 * distance from it, and no heading is ever more than one level below the one before it (a body
 * jumping from `##` to `####` gets `<h2>` then `<h3>`), so the outline skips no level.
 */
// @deno-types="@types/markdown-it"
import MarkdownIt from "markdown-it";

type Token = ReturnType<MarkdownIt["parse"]>[number];

const md = new MarkdownIt({ html: false, linkify: false, typographer: false });

// Links to other sites get no referrer and no hold on this window.
md.renderer.rules.link_open = (tokens, idx, options, _env, self) => {
  const token = tokens[idx];
  const href = token.attrGet("href") ?? "";
  if (/^https?:\/\//i.test(href)) token.attrSet("rel", "nofollow noopener noreferrer");
  return self.renderToken(tokens, idx, options);
};

/** Text compared loosely: case, surrounding space and runs of space do not count. */
function loosely(text: string): string {
  return text.normalize("NFKC").trim().replace(/\s+/g, " ").toLowerCase();
}

/** Drops a first heading equal to `title`, then sets every heading's level (see above). */
function fitHeadings(tokens: Token[], title: string | undefined): Token[] {
  // Only when the body opens with it: a later heading of the same words is a section.
  if (
    title !== undefined && tokens[0]?.type === "heading_open" &&
    loosely(tokens[1]?.content ?? "") === loosely(title)
  ) {
    tokens = tokens.slice(3);
  }
  const levels = tokens.filter((t) => t.type === "heading_open").map((t) => Number(t.tag.slice(1)));
  const highest = Math.min(...levels);
  let previous = 1;
  for (let i = 0; i < tokens.length; i++) {
    if (tokens[i].type !== "heading_open") continue;
    const wanted = 2 + Number(tokens[i].tag.slice(1)) - highest;
    const level = Math.min(wanted, previous + 1, 6);
    tokens[i].tag = `h${level}`;
    // The matching close is the next heading_close.
    const close = tokens.findIndex((t, j) => j > i && t.type === "heading_close");
    tokens[close].tag = `h${level}`;
    previous = level;
  }
  return tokens;
}

/**
 * Renders an article's Markdown body to safe HTML for a page whose `<h1>` is `title`; a first
 * heading that repeats the title is left out.
 */
export function renderMarkdown(markdown: string, options: { title?: string } = {}): string {
  const env = {};
  const tokens = fitHeadings(md.parse(markdown, env), options.title);
  return md.renderer.render(tokens, md.options, env);
}
