/**
 * Markdown to HTML with markdown-it. Raw HTML in an article is shown as text, never run:
 * `html: false` escapes it, and markdown-it's link check already refuses `javascript:`,
 * `vbscript:` and most `data:` URLs.
 *
 * Headings fit under the page's `<h1>` (the article's title): a first heading that repeats the
 * title is dropped, the body's highest heading level becomes `<h2>`, the others keep their
 * distance from it, and no heading is ever more than one level below the one before it (a body
 * jumping from `##` to `####` gets `<h2>` then `<h3>`), so the outline skips no level.
 *
 * The documentation pages (src/web/docs/pages.ts) also ask for heading ids, made as GitHub makes
 * them, so that a contents list written in the Markdown (`[Conventions](#conventions)`) works on
 * GitHub and on our pages alike, and for their links to be mapped (`rest.md` to `/docs/rest`).
 */
// @deno-types="@types/markdown-it"
import MarkdownIt from "markdown-it";

type Token = ReturnType<MarkdownIt["parse"]>[number];

const md = new MarkdownIt({ html: false, linkify: false, typographer: false });

// A code block scrolls sideways when its lines are long: it takes keyboard focus, so that the
// keyboard can scroll it too (axe: scrollable-region-focusable).
const fence = md.renderer.rules.fence!;
md.renderer.rules.fence = (...args) => fence(...args).replace(/^<pre>/, '<pre tabindex="0">');

/** What a render may ask for besides the defaults. */
interface Env {
  /** Maps a link's href (the documentation's links between its pages). */
  href?: (href: string) => string;
}

// Links to other sites get no referrer and no hold on this window.
md.renderer.rules.link_open = (tokens, idx, options, env: Env, self) => {
  const token = tokens[idx];
  let href = token.attrGet("href") ?? "";
  if (env.href) token.attrSet("href", href = env.href(href));
  if (/^https?:\/\//i.test(href)) token.attrSet("rel", "nofollow noopener noreferrer");
  return self.renderToken(tokens, idx, options);
};

/**
 * The id GitHub gives a heading: its text in lower case, without punctuation (letters, digits,
 * `_`, `-` and spaces stay), each space a dash; a repeated one gets `-1`, `-2` ...
 */
function headingId(text: string, taken: Map<string, number>): string {
  const base = text.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "").replace(/ /g, "-");
  const seen = taken.get(base);
  taken.set(base, (seen ?? -1) + 1);
  return seen === undefined ? base : `${base}-${seen + 1}`;
}

/** Gives every heading its GitHub id, from the text of its inline token. */
function anchorHeadings(tokens: Token[]): void {
  const taken = new Map<string, number>();
  for (let i = 0; i < tokens.length; i++) {
    if (tokens[i].type !== "heading_open") continue;
    const text = (tokens[i + 1].children ?? [])
      .filter((t) => t.type === "text" || t.type === "code_inline").map((t) => t.content).join("");
    tokens[i].attrSet("id", headingId(text, taken));
  }
}

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
 * heading that repeats the title is left out. `anchors` gives headings their GitHub ids (counted
 * on the whole text, as GitHub counts them); `href` maps every link.
 */
export function renderMarkdown(
  markdown: string,
  options: { title?: string; anchors?: boolean; href?: (href: string) => string } = {},
): string {
  const env: Env = { href: options.href };
  const parsed = md.parse(markdown, env);
  if (options.anchors) anchorHeadings(parsed);
  const tokens = fitHeadings(parsed, options.title);
  return md.renderer.render(tokens, md.options, env);
}
