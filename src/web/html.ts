/**
 * HTML built with a tagged template that escapes every interpolated value, so that text from
 * the database or a form can never become markup by accident. Markup that is already safe
 * (rendered Markdown, nested templates) is wrapped in `SafeHtml`.
 */

/** A piece of HTML that is known to be safe to insert as is. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Escapes text for an HTML text node or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

type Value = SafeHtml | string | number | null | undefined | false | Value[];

function render(value: Value): string {
  if (value === null || value === undefined || value === false) return "";
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join("");
  return escapeHtml(String(value));
}

/** The tagged template: `html\`<p>${text}</p>\`` escapes `text`; arrays are joined. */
export function html(strings: TemplateStringsArray, ...values: Value[]): SafeHtml {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new SafeHtml(out);
}

/** The site's header and navigation, on every page (the API reference's too). */
export const SITE_HEADER = new SafeHtml(
  html`
    <header class="site">
      <nav aria-label="Site">
        <a class="brand" href="/">Opportunity Intelligence</a>
        <a href="/opportunities">Opportunities</a>
        <a href="/docs">Docs</a>
        <a href="/blog">Articles</a>
        <a href="/account">Account</a>
      </nav>
    </header>
  `.value.trim(),
);

/** A whole document: the house layout around `body`. */
export function page(options: {
  title: string;
  body: SafeHtml;
  head?: SafeHtml;
  description?: string;
}): string {
  const document = html`
    <html lang="en">
      <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>${options.title}</title>
    ${options.description ? html`<meta name="description" content="${options.description}">` : ""}
    <link rel="icon" href="data:,">
    <link rel="stylesheet" href="/assets/web.css">
    <link rel="alternate" type="application/atom+xml" title="Opportunity Intelligence articles" href="/blog/feed.xml">
    ${options.head}
      </head>
      <body>
        ${SITE_HEADER}
        <main>
    ${options.body}
        </main>
        <footer class="site">
          <p>Opportunity Intelligence: scored business opportunities from open communities.</p>
        </footer>
      </body>
    </html>
  `.value;
  // Empty optional parts leave lines of indentation only; drop that, keep everything else.
  return "<!DOCTYPE html>\n" + document.trim().replace(/^[ \t]+$/gm, "") + "\n";
}

/** A date-time as a short English date in UTC, e.g. "2 June 2026". */
export function formatDate(iso: string | null): string {
  if (!iso) return "never";
  return new Date(iso).toLocaleDateString("en-GB", {
    day: "numeric",
    month: "long",
    year: "numeric",
    timeZone: "UTC",
  });
}
