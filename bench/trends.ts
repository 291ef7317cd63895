/**
 * Theme trends at scale: on a copy of the 1,000,000-opportunity database, brings the
 * themes to 10,000 with two years of weekly points each (over a million points), then measures,
 * uncached (the query functions straight on PostgreSQL, no answer cache):
 * - the trending list for every window and status (p50, p95 over --runs calls each),
 * - a theme's history (week and month, whole and bounded) and the detail's 26 weeks,
 * - the import of one more week of points for every theme (upsert, recomputation of every
 *   theme's figures, status changes and the theme watches' matching, one transaction).
 * Writes bench/results/TRENDS.md. Never run it on a database you need: it migrates and writes.
 *
 *   createdb -h 127.0.0.1 -U postgres -T oppintel_1m oppintel_1m_32
 *   deno task bench:trends --database oppintel_1m_32 [--runs 200]
 */
import { quantile } from "./harness/measure.ts";
import { parseArgs } from "node:util";
import { openDatabase } from "../src/db/open.ts";
import { migrate } from "../src/db/migrate.ts";
import { readConfig } from "../src/platform/config.ts";
import { listTrendingThemes } from "../src/catalog/themes/themes.ts";
import { getThemeHistory, weeklyMentions } from "../src/catalog/themes/theme_history.ts";
import { TREND_STATUSES } from "../src/catalog/trend_rule.ts";
import { TrendingQuerySchema } from "../src/catalog/schemas.ts";
import { recomputeTrends } from "../src/ingest/trends.ts";
import { importLines } from "../src/ingest/import.ts";
import { exitWithHelpIfAsked } from "./harness/args.ts";

exitWithHelpIfAsked(`
Usage: deno task bench:trends --database NAME [--runs 200] [--themes 10000]

Theme trends at scale on a COPY of the 1M database (it migrates and writes): the trending list
per window and status, a history, and the import of a week of points. Writes
bench/results/TRENDS.md (--out FILE to change).
`);

const { values } = parseArgs({
  args: Deno.args,
  options: {
    database: { type: "string" },
    runs: { type: "string", default: "200" },
    themes: { type: "string", default: "10000" },
    out: { type: "string", default: "bench/results/TRENDS.md" },
  },
});
if (!values.database) throw new Error("--database NAME is required");
if (values.database === "oppintel_1m") throw new Error("Copy oppintel_1m first; never write to it");
const RUNS = Number(values.runs);
const THEMES = Number(values.themes);
const WEEKS = 104;
const config = readConfig({
  DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${values.database}`,
  PUBLIC_BASE_URL: "https://oppintel.example",
});
const db = await openDatabase(config, { max: 2 });
// What the service passes its content queries on PostgreSQL (src/catalog/content.ts).
const context = { publicBaseUrl: config.publicBaseUrl, forcePlans: true };
const sql = db.sql;
const lines: string[] = [];
const say = (line = "") => {
  console.log(line);
  lines.push(line);
};
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function timeRuns(
  run: (i: number) => Promise<unknown>,
): Promise<{ p50: number; p95: number; max: number }> {
  for (let i = 0; i < 5; i++) await run(i);
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    await run(i);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: quantile(times, 0.5), p95: quantile(times, 0.95), max: times[times.length - 1] };
}

const ms = (n: number) => n.toFixed(2);

try {
  const applied = await migrate(sql);
  say(`# Theme trends at scale`);
  say();
  say(
    `Database \`${values.database}\` (a copy of \`oppintel_1m\`), PostgreSQL on 127.0.0.1; ` +
      `${RUNS} timed calls per line after 5 warm-up calls, one at a time, no answer cache.`,
  );
  say(
    `Machine: 2 cores (load average ` +
      `${Deno.loadavg().map((n) => n.toFixed(1)).join(", ")} at the start).`,
  );
  say();
  if (applied.length) say(`Migrations applied: ${applied.join(", ")}.`);

  // ---- Data: 10,000 themes, two years of weekly points each ----
  const [{ themes }] = await sql<{ themes: number }[]>`select count(*)::int as themes from themes`;
  if (themes < THEMES) {
    const started = performance.now();
    await sql`
      insert into themes (slug, category_id, name, summary, mentions_30d, mentions_prev_30d)
      select 'bench-theme-' || n, c.id, 'Bench theme ' || n, 'A theme of the trends bench', 0, 0
      from generate_series(${themes + 1}::int, ${THEMES}::int) n
      join lateral (
        select id from categories order by id offset (n % (select count(*) from categories))
        limit 1
      ) c on true`;
    say(`Themes: ${themes} -> ${THEMES} in ${seconds(performance.now() - started)}.`);
  }
  const [{ points }] = await sql<{ points: number }[]>`
    select count(*)::int as points from theme_mentions`;
  // The newest week of data: the Monday of the current week, minus one week (the import below
  // adds the current week).
  const [{ newest }] = await sql<{ newest: string }[]>`
    select to_char(date_trunc('week', now())::date - 7, 'YYYY-MM-DD') as newest`;
  // A run before this one imported this week: take it out again, so the import is of a new week.
  await sql`delete from theme_mentions where day > ${newest}::date`;
  if (points < THEMES * WEEKS) {
    const started = performance.now();
    await sql`truncate theme_mentions`;
    // Five shapes by theme id: steady, seasonal, slow rise, spike and decay, decline; some
    // noise from a hash of (theme, week); levels from 5 to 500 a week.
    await sql`
      insert into theme_mentions (theme_id, day, mentions)
      select t.id, ${newest}::date - 7 * w,
        greatest(0, round(base * shape * (0.9 + 0.2 * ((hashint4(t.id * 1000 + w) & 1023) / 1023.0))))::int
      from (select id, 5 + (hashint4(id) & 511) as base from themes) t
      cross join generate_series(0, ${WEEKS - 1}) w
      cross join lateral (select case t.id % 5
        when 0 then 1.0
        when 1 then 1 + 0.4 * sin(2 * pi() * w / 52.0 + t.id)
        when 2 then power(1.012, -w)
        when 3 then 0.6 + 2.5 * exp(-abs(w - 6) / 3.0)
        else power(1.01, w)
      end as shape) s`;
    await sql`analyze theme_mentions`;
    const [{ n }] = await sql<{ n: number }[]>`select count(*)::int as n from theme_mentions`;
    say(
      `Points: ${n.toLocaleString("en-US")} (${WEEKS} weeks x ${THEMES} themes) in ` +
        `${seconds(performance.now() - started)}.`,
    );
    const recomputed = performance.now();
    const changed = await sql.begin((tx) => recomputeTrends(tx as unknown as typeof sql));
    say(
      `First recomputation of every theme's figures: ${changed} themes in ` +
        `${seconds(performance.now() - recomputed)}.`,
    );
  }
  await sql`analyze themes`;
  const statuses = await sql<{ trend_status: string; n: number }[]>`
    select trend_status, count(*)::int as n from themes group by 1 order by 1`;
  say(`Statuses: ${statuses.map((s) => `${s.trend_status ?? "none"} ${s.n}`).join(", ")}.`);
  const [{ opportunities }] = await sql<{ opportunities: number }[]>`
    select count(*)::int as opportunities from opportunities`;
  say(`Opportunities: ${opportunities.toLocaleString("en-US")}.`);
  say();

  // ---- Import of one week for every theme ----
  say(`## Import of one week of points for every theme`);
  say();
  const week = await sql<{ slug: string; mentions: number }[]>`
    select t.slug, coalesce(m.mentions, 0) as mentions
    from themes t left join theme_mentions m on m.theme_id = t.id and m.day = ${newest}::date`;
  const [{ next }] = await sql<{ next: string }[]>`
    select to_char(${newest}::date + 7, 'YYYY-MM-DD') as next`;
  const importLinesOf = (factor: number) =>
    week.map((w) =>
      JSON.stringify({
        type: "theme_mentions",
        theme: w.slug,
        date: next,
        mentions: Math.round(w.mentions * factor),
      })
    );
  for (const [label, factor] of [["new week", 1.05], ["same week again, changed", 1.3]] as const) {
    const started = performance.now();
    const summary = await importLines(sql, importLinesOf(factor));
    const took = performance.now() - started;
    const [{ changes }] = await sql<{ changes: number }[]>`
      select count(*)::int as changes from theme_status_changes
      where changed_at > now() - interval '10 minutes'`;
    say(
      `- ${label}: ${summary.theme_mentions?.toLocaleString("en-US")} points in ` +
        `**${seconds(took)}** (status changes recorded in the last 10 minutes: ${changes}).`,
    );
  }
  say();
  // Autovacuum cleans up after an import within a minute or so (every theme's row was
  // rewritten); measure the lists as they stand then, not in the minute after.
  await sql`vacuum analyze themes`;
  await sql`vacuum analyze theme_mentions`;
  say(
    `Then \`vacuum analyze\` of themes and theme_mentions, as autovacuum does after an ` +
      `import, before the measurements below.`,
  );
  say();

  // ---- The trending list, every window and status ----
  say(`## Trending list (limit 10), uncached`);
  say();
  say(`| window | status | p50 ms | p95 ms | max ms |`);
  say(`| ------ | ------ | -----: | -----: | -----: |`);
  let worstList = 0;
  for (const window of ["7d", "30d", "90d", "1y"] as const) {
    for (const status of [undefined, ...TREND_STATUSES]) {
      const query = TrendingQuerySchema.parse({ window, status });
      const t = await timeRuns(() => listTrendingThemes(sql, query, context));
      worstList = Math.max(worstList, t.p95);
      say(`| ${window} | ${status ?? "(up)"} | ${ms(t.p50)} | ${ms(t.p95)} | ${ms(t.max)} |`);
    }
  }
  const category = await sql<{ slug: string }[]>`select slug from categories order by id limit 1`;
  for (const window of ["30d", "1y"] as const) {
    const query = TrendingQuerySchema.parse({ window, category: category[0].slug, limit: 50 });
    const t = await timeRuns(() => listTrendingThemes(sql, query, context));
    worstList = Math.max(worstList, t.p95);
    say(`| ${window}, category, limit 50 | (up) | ${ms(t.p50)} | ${ms(t.p95)} | ${ms(t.max)} |`);
  }
  say();
  say(`Worst p95: **${ms(worstList)} ms** (target 25 ms).`);
  say();

  // ---- History ----
  say(`## History, uncached (a different theme each call)`);
  say();
  say(`| call | p50 ms | p95 ms | max ms |`);
  say(`| ---- | -----: | -----: | -----: |`);
  const ids = (await sql<{ id: number }[]>`
    select id from themes order by hashint4(id) limit ${RUNS + 5}`).map((r) => r.id);
  let worstHistory = 0;
  const historyCases: [string, (id: number) => Promise<unknown>][] = [
    [
      "history, week, whole (104 points)",
      (id) => getThemeHistory(sql, { id, interval: "week" }, context),
    ],
    [
      "history, month, whole (25 points)",
      (id) => getThemeHistory(sql, { id, interval: "month" }, context),
    ],
    [
      "history, week, one quarter",
      (id) =>
        getThemeHistory(
          sql,
          { id, interval: "week", from: "2026-07-01", to: "2026-09-30" },
          context,
        ),
    ],
    ["detail's 26 weeks", (id) => weeklyMentions(sql, id)],
  ];
  for (const [name, call] of historyCases) {
    const t = await timeRuns((i) => call(ids[i % ids.length]));
    worstHistory = Math.max(worstHistory, t.p95);
    say(`| ${name} | ${ms(t.p50)} | ${ms(t.p95)} | ${ms(t.max)} |`);
  }
  say();
  say(`Worst p95: **${ms(worstHistory)} ms** (target 10 ms).`);
  say();

  say();
  say(`Run on ${new Date().toISOString().slice(0, 16)} UTC by \`deno task bench:trends\`.`);
} finally {
  await db.close();
}
await Deno.writeTextFile(values.out!, lines.join("\n") + "\n");
