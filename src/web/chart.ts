/**
 * A line chart of a theme's weekly mentions drawn on the server as SVG (no script), with the same
 * numbers as a table for screen readers and anyone who prefers numbers (docs/trends.md, Charts).
 * The SVG is an image named by its title; the table follows it, inside a disclosure, and the
 * image points to it with aria-describedby.
 */
import { html, type SafeHtml } from "./html.ts";

const SIZE = { width: 560, height: 160, top: 12, bottom: 24, left: 40, right: 10 };

/** One point of a series: the first day of its week and its count. */
export interface ChartPoint {
  start: string;
  mentions: number;
}

/** A round upper bound for the scale: 1, 2 or 5 times a power of ten (at least 4). */
export function niceMax(value: number): number {
  if (value <= 4) return 4;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

function shortDate(day: string): string {
  return new Date(`${day}T00:00:00Z`).toLocaleDateString("en-GB", {
    day: "numeric",
    month: "short",
    timeZone: "UTC",
  });
}

/**
 * The chart and its table of `points` (oldest first). `id` must be unique in the page; `title`
 * names the chart for assistive technology and is the table's caption.
 */
export function lineChart(options: { id: string; title: string; points: ChartPoint[] }): SafeHtml {
  const { id, title, points } = options;
  if (points.length === 0) {
    return html`<p class="muted" id="${id}">No mention history yet.</p>`;
  }
  const { width, height, top, bottom, left, right } = SIZE;
  const max = niceMax(Math.max(...points.map((p) => p.mentions)));
  const plotWidth = width - left - right;
  const plotHeight = height - top - bottom;
  const x = (i: number) =>
    left + (points.length === 1 ? plotWidth / 2 : i * plotWidth / (points.length - 1));
  const y = (v: number) => top + plotHeight - (v / max) * plotHeight;
  const path = points.map((p, i) =>
    `${i ? "L" : "M"}${x(i).toFixed(1)},${y(p.mentions).toFixed(1)}`
  )
    .join(" ");
  const grid = [0, max / 2, max].map((v) =>
    html`
      <line x1="${left}" x2="${width - right}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(
        1,
      )}" stroke="#dde3e8" />
      <text x="${left - 4}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end" font-size="11"
        fill="#5b6770">${v}</text>
    `
  );
  const labelEvery = Math.max(1, Math.ceil(points.length / 6));
  const labels = points.flatMap((p, i) =>
    i % labelEvery === 0 || i === points.length - 1
      ? [html`
        <text x="${x(i).toFixed(1)}" y="${height - 6}" text-anchor="${// The end labels stay inside the drawing.
        i === points.length - 1 && i > 0 ? "end" : i === 0 ? "start" : "middle"}" font-size="11"
          fill="#5b6770">${shortDate(p.start)}</text>
      `]
      : []
  );
  const last = points[points.length - 1];
  const rows = points.map((p) =>
    html`
      <tr>
        <th scope="row"><time datetime="${p.start}">${p.start}</time></th>
        <td>${p.mentions}</td>
      </tr>
    `
  );
  return html`
    <figure class="chart" id="${id}">
      <svg role="img" aria-labelledby="${id}-title" aria-describedby="${id}-table"
        viewBox="0 0 ${width} ${height}" width="100%" preserveAspectRatio="xMidYMid meet"
        xmlns="http://www.w3.org/2000/svg"><title id="${id}-title">${title}; the table below has the same numbers</title>${grid}<path d="${path}" fill="none" stroke="#0b63c5" stroke-width="2"/><circle cx="${x(
          points.length - 1,
        ).toFixed(1)}" cy="${y(last.mentions).toFixed(1)}" r="3" fill="#0b63c5"/>${labels}</svg>
      <details>
        <summary>The numbers</summary>
        <table id="${id}-table">
          <caption>${title}</caption>
          <thead>
            <tr>
              <th scope="col">Week of</th>
              <th scope="col">Mentions</th>
            </tr>
          </thead>
          <tbody>${rows}</tbody>
        </table>
      </details>
    </figure>
  `;
}
