/**
 * The dashboard's usage section: a warning at 80% and at 100% of the month's quota, a bar chart
 * of the calls per UTC day as server-rendered SVG (no script), the same numbers as a table for
 * screen readers and anyone who prefers numbers, and the calls per key and per surface.
 */
import type { UsageReport } from "../../metering/usage_schema.ts";
import { html, type SafeHtml } from "../html.ts";
import { displayClientName } from "../../oauth/clients.ts";

/** The share of the quota from which the dashboard warns (and the first usage e-mail goes). */
export const WARN_SHARE = 0.8;

const CHART = { width: 640, height: 180, top: 16, bottom: 22, left: 36, right: 8 };

function monthName(month: string): string {
  return new Date(`${month}-01T00:00:00Z`).toLocaleDateString("en-GB", {
    month: "long",
    year: "numeric",
    timeZone: "UTC",
  });
}

/** The warning banner at 80% and at 100% of the quota, or nothing below 80%. */
export function usageBanner(report: UsageReport): SafeHtml | "" {
  if (report.limit <= 0) return "";
  const resets = new Date(report.reset_at).toLocaleDateString("en-GB", {
    day: "numeric",
    month: "long",
    timeZone: "UTC",
  });
  if (report.used >= report.limit) {
    return html`<p class="card error" role="alert" id="usage-banner" data-level="100">
      <strong>You have used all ${report.limit} calls of this month.</strong> Charged calls answer
      429 until the quota resets on ${resets} at 00:00 UTC; free calls (blog, categories, usage)
      keep working.</p>`;
  }
  if (report.used >= Math.ceil(report.limit * WARN_SHARE)) {
    const share = Math.floor((report.used / report.limit) * 100);
    return html`<p class="card warning" role="status" id="usage-banner" data-level="80">
      <strong>You have used ${share}% of this month's calls</strong> (${report.used} of
      ${report.limit}); ${report.remaining} left until ${resets}.</p>`;
  }
  return "";
}

/** A round upper bound for the chart's scale: 1, 2, 5 times a power of ten. */
function niceMax(value: number): number {
  if (value <= 4) return 4;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

/** The SVG bar chart of calls per day; described by the table that follows it. */
function dayChart(report: UsageReport, month: string): SafeHtml {
  const { width, height, top, bottom, left, right } = CHART;
  const days = report.by_day;
  const daysInMonth = new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5)), 0))
    .getUTCDate();
  const max = niceMax(Math.max(0, ...days.map((d) => d.calls)));
  const plotHeight = height - top - bottom;
  const slot = (width - left - right) / daysInMonth;
  const barWidth = Math.max(2, slot * 0.7);
  const y = (calls: number) => top + plotHeight - (calls / max) * plotHeight;
  const bars = days.map((d, i) => {
    const x = left + i * slot + (slot - barWidth) / 2;
    const h = Math.max(d.calls > 0 ? 1 : 0, (d.calls / max) * plotHeight);
    return html`
      <rect class="bar" x="${x.toFixed(1)}" y="${(top + plotHeight - h).toFixed(1)}"
        width="${barWidth.toFixed(1)}" height="${h.toFixed(1)}" fill="#0b63c5">
        <title>${d.date}: ${d
          .calls} calls</title>
      </rect>
    `;
  });
  const labels = days.filter((_, i) => i === 0 || (i + 1) % 5 === 0).map((d) => {
    const i = Number(d.date.slice(8)) - 1;
    return html`
      <text x="${(left + i * slot + slot / 2).toFixed(1)}" y="${height - 6}"
        text-anchor="middle" font-size="11" fill="#5b6770">${i + 1}</text>
    `;
  });
  const grid = [0, max / 2, max].map((v) =>
    html`
      <line x1="${left}" x2="${width - right}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(
        1,
      )}" stroke="#dde3e8" />
      <text x="${left - 4}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end"
        font-size="11" fill="#5b6770">${v}</text>
    `
  );
  return html`
    <svg id="usage-chart" role="img" aria-labelledby="usage-chart-title"
      aria-describedby="usage-days-caption" viewBox="0 0 ${width} ${height}" width="100%"
      preserveAspectRatio="xMidYMid meet" xmlns="http://www.w3.org/2000/svg">
        <title id="usage-chart-title">Calls per day in ${monthName(month)} (UTC); the table below
          has the same numbers</title>
        ${grid}${bars}${labels}
      </svg>
  `;
}

/** The setting of the 80% and 100% e-mails: a form that turns them off or on. */
function emailsForm(on: boolean, csrf: SafeHtml): SafeHtml {
  return html`<form method="post" action="/account/usage-emails" id="usage-emails">${csrf}
    <input type="hidden" name="emails" value="${on ? "off" : "on"}">
    <p>${
    on
      ? "We e-mail you when this month's calls pass 80% and 100% of the quota, once each a month."
      : "Usage e-mails are off; the banners above still warn you."
  }
    <button type="submit" class="secondary">${
    on ? "Stop usage e-mails" : "Send me usage e-mails"
  }</button></p></form>`;
}

/** The usage section of the dashboard: chart, its table, per-key and per-surface totals. */
export function usageSection(
  report: UsageReport,
  options: { emails: boolean; csrf: SafeHtml },
): SafeHtml {
  const month = report.month;
  const rows = report.by_day.map((d) =>
    html`
      <tr>
        <th scope="row"><time datetime="${d.date}">${d.date}</time></th>
        <td>${d
          .calls}</td>
      </tr>
    `
  );
  const keys = report.by_key.map((k) =>
    html`
      <tr${k.revoked
        ? html`
          class="revoked"
        `
        : ""}>
        <td><bdi>${displayClientName(k.name)}</bdi>${k.revoked ? " (revoked)" : ""}</td>
        <td><code>${k.prefix}…</code></td>
        <td>${k.calls}</td>
        </tr>
    `
  );
  return html`
    <section class="card" aria-labelledby="usage-detail-title" id="usage-detail">
      <h2 id="usage-detail-title">Usage in ${monthName(month)}</h2>
      ${dayChart(report, month)}
      <details>
        <summary>Calls per day as a table</summary>
        <table id="usage-days">
          <caption id="usage-days-caption">Charged calls per UTC day, ${monthName(month)}</caption>
          <thead><tr><th scope="col">Day</th><th scope="col">Calls</th></tr></thead>
          <tbody>${rows}</tbody>
        </table>
      </details>
      <h3>By key</h3>
      ${report.by_key.length === 0 ? html`<p>No keys yet.</p>` : html`
        <table id="usage-keys">
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">Prefix</th>
              <th scope="col">Calls this month</th>
            </tr>
          </thead>
          <tbody>${keys}</tbody>
        </table>
      `}
      <p id="usage-surfaces">REST API: <strong>${report.by_surface.rest}</strong> calls; MCP tools:
        <strong>${report.by_surface.mcp}</strong> calls. The same numbers come from
        <code>GET /api/v1/usage</code> and the MCP tool <code>get_usage</code>, free of charge.</p>
      <p id="usage-repeats">Repeats answered free: <strong>${report.repeats}</strong> (the same
        call again within 24 hours, on the same data, is not charged).</p>
      ${emailsForm(options.emails, options.csrf)}
    </section>
  `;
}
