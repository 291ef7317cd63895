/**
 * The web area's two static files, kept in code so that the server needs no read permission
 * and no build step: the style sheet and the script of the copy button (the only script; pages
 * work without it).
 */

/** The style sheet, served at /assets/web.css. */
export const WEB_CSS = `:root {
  --ink: #1d2327; --muted: #5b6770; --line: #dde3e8; --accent: #0b63c5; --warn: #9a3412;
  --bg: #fbfcfd; --card: #ffffff;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink);
  background: var(--bg); line-height: 1.55;
}
body { margin: 0; }
main, header.site nav, footer.site p { max-width: 46rem; margin: 0 auto; padding: 0 1rem; }
header.site { border-bottom: 1px solid var(--line); background: var(--card); }
header.site nav { display: flex; flex-wrap: wrap; gap: 0.4rem 1.25rem; align-items: center;
  padding: 0.8rem 1rem; }
header.site .brand { font-weight: 700; margin-right: auto; color: var(--ink); }
footer.site { border-top: 1px solid var(--line); margin-top: 3rem; color: var(--muted);
  font-size: 0.9rem; }
a { color: var(--accent); }
h1 { line-height: 1.2; margin: 1.5rem 0 0.5rem; }
.meta, .muted { color: var(--muted); font-size: 0.92rem; }
.tags { list-style: none; padding: 0; display: flex; gap: 0.4rem; flex-wrap: wrap; }
.tags li { background: #eef3f8; border-radius: 1rem; padding: 0.1rem 0.7rem; font-size: 0.85rem; }
.cover { width: 100%; height: auto; border-radius: 0.5rem; }
.article-body pre { overflow-x: auto; background: #f3f5f7; padding: 0.8rem; }
.article-body img { max-width: 100%; height: auto; }
.posts { list-style: none; padding: 0; }
.posts > li { border-bottom: 1px solid var(--line); padding: 1rem 0; }
.posts h2 { margin: 0 0 0.3rem; font-size: 1.2rem; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 0.5rem;
  padding: 1rem 1.2rem; margin: 1.2rem 0; }
.notice { border-left: 4px solid var(--accent); }
.warning { border-left: 4px solid var(--warn); }
.error { border-left: 4px solid #b91c1c; color: #7f1d1d; }
form.inline { display: inline; }
label { display: block; font-weight: 600; margin: 0.6rem 0 0.2rem; }
input[type=email], input[type=text] { width: 100%; max-width: 24rem; padding: 0.45rem;
  border: 1px solid #b8c2cc; border-radius: 0.3rem; font: inherit; }
button { font: inherit; padding: 0.4rem 0.9rem; border-radius: 0.3rem; border: 1px solid var(--accent);
  background: var(--accent); color: #fff; cursor: pointer; margin-top: 0.5rem; }
button.secondary { background: transparent; color: var(--accent); }
button:disabled { opacity: 0.5; cursor: not-allowed; }
table { border-collapse: collapse; width: 100%; font-size: 0.92rem; }
th, td { text-align: left; padding: 0.4rem 0.5rem; border-bottom: 1px solid var(--line); }
code.key { display: block; word-break: break-all; background: #f3f5f7; padding: 0.6rem;
  border-radius: 0.3rem; font-size: 0.95rem; }
meter { width: 100%; max-width: 24rem; height: 1rem; }
.revoked { color: var(--muted); }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden;
  clip: rect(0 0 0 0); clip-path: inset(50%); white-space: nowrap; }
.lead { font-size: 1.15rem; }
.table-scroll { overflow-x: auto; }
table.plans caption { text-align: left; color: var(--muted); font-size: 0.92rem; padding: 0.3rem 0; }
table.plans th[scope=col] { vertical-align: bottom; }
@media (max-width: 30rem) {
  table.plans th, table.plans td { padding: 0.4rem 0.25rem; }
  table.plans th[scope=row] { min-width: 9rem; }
}
table.plans td { text-align: center; font-size: 1.1rem; }
table.plans td.yes { color: #166534; }
table.plans td.no { color: var(--muted); }
.plan-calls { display: block; font-weight: 400; color: var(--muted); font-size: 0.85rem; }
.op-title { display: block; }
code.op { display: block; font-size: 0.85rem; font-weight: 400; }
.op-cost { display: block; font-weight: 400; color: var(--muted); font-size: 0.85rem; }
.cell-note { display: block; font-size: 0.8rem; color: var(--ink); }
.code { position: relative; }
.code pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #f3f5f7; padding: 0.8rem; border-radius: 0.3rem;
  margin: 0.5rem 0; }
.code button.copy { position: absolute; top: 0.3rem; right: 0.3rem; margin: 0; background: var(--card); }
ul.links li { margin: 0.3rem 0; }
figure.chart { margin: 0.6rem 0; }
figure.chart svg { display: block; max-width: 100%; }
ul.status-links { list-style: none; padding: 0; display: flex; gap: 0.8rem; flex-wrap: wrap; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 0.3rem 1rem; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; }
@media (max-width: 30rem) {
  dl.facts { grid-template-columns: 1fr; gap: 0.1rem; }
  dl.facts dd { margin-bottom: 0.5rem; }
}
table.scores td { text-align: right; white-space: nowrap; }
.docs-body table { display: block; overflow-x: auto; }
.docs-body code { overflow-wrap: anywhere; }
.docs-body pre code { overflow-wrap: normal; }
.docs-nav { border-top: 1px solid var(--line); margin-top: 2rem; }
.docs-nav ul { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 0.3rem 1.2rem; }
.opps { list-style: none; padding: 0; }
.opps > li { border-bottom: 1px solid var(--line); padding: 0.7rem 0; }
.opps h3 { margin: 0 0 0.2rem; font-size: 1.05rem; overflow-wrap: anywhere; }
.opps p { margin: 0; }
.filters { display: grid; grid-template-columns: repeat(auto-fill, minmax(10rem, 1fr)); gap: 0 1rem; }
.filters .wide { grid-column: 1 / -1; }
.filters input, .filters select { width: 100%; box-sizing: border-box; padding: 0.4rem;
  border: 1px solid #b8c2cc; border-radius: 0.3rem; font: inherit; background: var(--card); }
.pager { display: flex; flex-wrap: wrap; gap: 0.5rem 1.5rem; align-items: center; }
.counts { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 0.5rem 2rem; }
.counts strong { display: block; font-size: 1.6rem; }
`;

/** The copy button's script, served at /assets/copy.js: copies the text of its target. */
export const COPY_JS = `"use strict";
document.addEventListener("click", async (event) => {
  const button = event.target instanceof Element ? event.target.closest("[data-copy-target]") : null;
  if (!button) return;
  const target = document.getElementById(button.getAttribute("data-copy-target") || "");
  if (!target) return;
  try {
    await navigator.clipboard.writeText(target.textContent || "");
    button.textContent = "Copied";
  } catch {
    // Without the clipboard API, select the key so that the person can copy it by hand.
    const range = document.createRange();
    range.selectNodeContents(target);
    const selection = window.getSelection();
    selection?.removeAllRanges();
    selection?.addRange(range);
    button.textContent = "Selected: press Ctrl+C";
  }
});
for (const button of document.querySelectorAll("[data-copy-target]")) button.hidden = false;
`;
