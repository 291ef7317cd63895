/** The server-rendered line chart: its table holds every point, edges of the series render. */
import assert from "node:assert/strict";
import { lineChart, niceMax } from "../../src/web/chart.ts";

Deno.test("lineChart: an SVG image named by its title and a table of every point", () => {
  const points = [
    { start: "2026-10-26", mentions: 12 },
    { start: "2026-11-02", mentions: 0 },
    { start: "2026-11-09", mentions: 37 },
  ];
  const out = lineChart({ id: "c1", title: "Mentions of <b>x</b>", points }).value;
  assert.match(out, /<svg role="img" aria-labelledby="c1-title" aria-describedby="c1-table"/);
  assert.match(out, /<title id="c1-title">Mentions of &lt;b&gt;x&lt;\/b&gt;/);
  const rows = [...out.matchAll(/<time datetime="([^"]+)">[^<]*<\/time><\/th>\s*<td>(\d+)<\/td>/g)]
    .map((m) => [m[1], Number(m[2])]);
  assert.deepEqual(rows, points.map((p) => [p.start, p.mentions]));
  // One path through the three points, the highest at the top of a scale of 50.
  const path = /<path d="([^"]+)"/.exec(out)![1];
  assert.equal(path.split(" ").length, 3);
  assert.match(out, />50<\/text>/);
});

Deno.test("lineChart: no points is a sentence, one point is drawn in the middle", () => {
  assert.match(lineChart({ id: "e", title: "t", points: [] }).value, /No mention history yet/);
  const one = lineChart({ id: "o", title: "t", points: [{ start: "2026-11-02", mentions: 3 }] });
  assert.match(one.value, /<path d="M295\.0,/);
});

Deno.test("niceMax: 1, 2 or 5 times a power of ten, at least 4", () => {
  assert.deepEqual([0, 3, 7, 12, 210, 501, 1000].map(niceMax), [4, 4, 10, 20, 500, 1000, 1000]);
});
