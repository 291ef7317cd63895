// Scratch (not committed): the first N cold strings one at a time on a fresh service, grouped.
import { createBenchKeys } from "./prepare.ts";
import { freePort, start, stopAll, waitReady } from "./procs.ts";
import { comboPaths, comboValues } from "./lists_combos.ts";
const db = Deno.args[0];
const n = Number(Deno.args[1] ?? 400);
const cwd = Deno.args[2] ?? Deno.cwd();
const url = `postgres://postgres@127.0.0.1:5432/${db}`;
const keys = await createBenchKeys(url);
const values = await comboValues(url);
const paths = comboPaths(n, values);
const port = freePort();
const proc = await start("probe", ["main.ts"], { cwd, env: { DATABASE_URL: url, PORT: String(port), SEED_DEMO: "off" } });
const base = `http://127.0.0.1:${port}`;
await waitReady(proc, `${base}/healthz`);
const groups = new Map<string, number[]>();
const add = (g: string, ms: number) => { if (!groups.has(g)) groups.set(g, []); groups.get(g)!.push(ms); };
const slow: [number, string][] = [];
let i = 0;
for (const p of paths) {
  const t = performance.now();
  const r = await fetch(base + p, { headers: { authorization: `Bearer ${keys.spread[i++ % 50]}` } });
  await r.arrayBuffer();
  const ms = performance.now() - t;
  if (r.status !== 200) console.log("status", r.status, p);
  const q = new URL(base + p).searchParams;
  const bound = ["min_pain_point_intensity","min_willingness_to_pay","max_tech_difficulty","min_sustainability"].some((b) => q.has(b));
  const narrow = q.has("category") ? "category" : q.has("theme") ? "theme" : q.has("channel") ? "channel" : "none";
  const sub = (q.get("sort") ?? "score") !== "score";
  add(`${bound ? "bound" : "nobound"} ${narrow} ${sub ? "subsort" : "score"}`, ms);
  add("all", ms);
  slow.push([ms, p]);
}
const qs = (a: number[], f: number) => a.sort((x, y) => x - y)[Math.min(a.length - 1, Math.floor(f * a.length))];
for (const [g, a] of [...groups].sort()) {
  const sum = a.reduce((s, x) => s + x, 0);
  console.log(`${g.padEnd(28)} n=${String(a.length).padStart(4)} p50=${qs(a, .5).toFixed(1)} p90=${qs(a, .9).toFixed(1)} max=${qs(a, 1).toFixed(1)} sum=${sum.toFixed(0)}`);
}
slow.sort((a, b) => b[0] - a[0]);
for (const [ms, p] of slow.slice(0, 12)) console.log(ms.toFixed(1), p);
await stopAll();
