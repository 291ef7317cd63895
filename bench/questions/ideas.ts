/**
 * `deno task bench:ideas`: idea match (GET /api/v1/ideas/match) and similar opportunities
 * (GET /api/v1/opportunities/{id}/similar), for quality at 2,000 rows and for speed at 1,000,000.
 *
 * Quality (default): on the demo data (2,000 opportunities), embedded and PostgreSQL, REST in this
 * process:
 * - judged ideas: each audience and job pair of bench/questions/relevance_questions.ts written as
 *   an idea ("An app that helps freelance designers chase late invoices"); right answers are the
 *   opportunities made for that pair, the right theme the job's theme. Measured: normalised
 *   precision at 10 of the opportunities, the right theme first, the top similarity (>= 0.5
 *   counts as an answer that addresses the idea);
 * - ideas outside the catalogue (OUTSIDE below): the top similarity, which should stay below 0.5;
 * - an opportunity's own title and description as the idea: its similarity (>= 0.9) and rank.
 *
 * Speed (`--scale DATABASE_URL`, a migrated copy of the 1,000,000-row database): the judged ideas,
 * the outside ones and similar of random ids, each once (first answer), then again (repeated,
 * cached), then `--connections` callers for `--duration` seconds asking fresh ideas and ids.
 *
 * Results go to bench/results/RELEVANCE.md, between the markers of each mode.
 */
import { buildHandler } from "../../main.ts";
import { readConfig } from "../../src/platform/config.ts";
import { openDatabase } from "../../src/db/open.ts";
import { migrate } from "../../src/db/migrate.ts";
import { generateDemoRecords, seedDemo } from "../../src/ingest/seed.ts";
import { CATEGORIES } from "../../src/ingest/demo_words.ts";
import { createAccount } from "../../src/accounts/accounts.ts";
import { createApiKey } from "../../src/accounts/api_keys.ts";
import { relevanceQuestions } from "./relevance_questions.ts";
import { Random } from "../../src/ingest/demo.ts";
import { arg, exitWithHelpIfAsked } from "../harness/args.ts";
import { openEngine, quantile, verdict, writeSection } from "./relevance_report.ts";
import { loadAverage } from "../harness/measure.ts";

/** Prints the usage and ends when asked (bench:relevance imports this module and has its own help). */
function exitWithIdeasHelpIfAsked(): void {
  exitWithHelpIfAsked(`
Usage: deno task bench:ideas [flags]

Idea match and similar opportunities. Without --scale: quality on the demo data (2,000
opportunities), embedded and PostgreSQL (judged ideas, ideas outside the catalogue, an
opportunity's own text). With --scale: first and repeated p95 and concurrent callers on an
existing 1,000,000-row PostgreSQL database. Writes bench/results/RELEVANCE.md (between markers).

Flags:
  --engines LIST     embedded,postgres (default both; quality only)
  --count N          Judged ideas (default 80)
  --scale URL        Speed on the database at URL (a migrated copy: the bench adds accounts)
  --connections N    Concurrent callers at scale (default 50)
  --duration S       Seconds of concurrent calls at scale (default 15)
`);
}

const BASE = "http://ideas.bench";
const OPPORTUNITIES = 2000;

/** Ideas no demo opportunity is about: their best similarity should stay below 0.5. */
export const OUTSIDE = [
  "A tool that reminds dentists patients to rebook cleanings",
  "Podcast editing is too slow",
  "A marketplace for renting used sailboats by the week",
  "Wedding planners lose track of vendor deposits",
  "An app that tells beekeepers when their hives need inspecting",
  "Farmers want drones that count sheep at dusk",
  "Vineyards need to forecast grape harvest dates",
  "A subscription box for rare houseplants",
  "Church volunteers double-book the sound desk",
  "Tattoo artists want deposits for consultations",
];

const IDEA_PHRASINGS: ((a: string, j: string) => string)[] = [
  (a, j) => `An app that helps ${a} ${j}`,
  (a, j) => `A tool for ${a} to ${j} without the usual hassle`,
  (a, j) =>
    `${a[0].toUpperCase()}${a.slice(1)} need a simple way to ${j}; a small SaaS could do it`,
  (a, j) => `Software so that ${a} can ${j} in minutes`,
];

export interface Idea {
  text: string;
  theme: string;
  right: string[];
}

export function judgedIdeas(count: number): Idea[] {
  const themeOf = new Map(
    CATEGORIES.flatMap((c) => c.themes.flatMap((t) => t.jobs.map((j) => [j, t.slug]))),
  );
  const questions = relevanceQuestions(generateDemoRecords({ opportunities: OPPORTUNITIES }), {
    count,
  });
  return questions.map((q, i) => ({
    text: IDEA_PHRASINGS[i % IDEA_PHRASINGS.length](q.audience, q.job),
    theme: themeOf.get(q.job)!,
    right: q.right,
  }));
}

type Handler = ReturnType<typeof buildHandler>;

async function call(handler: Handler, key: string, path: string) {
  const started = performance.now();
  const res = await handler(new Request(`${BASE}${path}`, { headers: { "X-API-Key": key } }));
  const text = await res.text();
  return { status: res.status, ms: performance.now() - started, text };
}

const ideaPath = (text: string) => `/api/v1/ideas/match?text=${encodeURIComponent(text)}`;

interface Sim {
  id: number;
  similarity: number;
  slug?: string;
}

interface QualityResult {
  engine: string;
  ideas: number;
  normalisedPrecision: number;
  themeFirst: number;
  addressed: number;
  outsideTop: number[];
  selfScores: number[];
  selfFirst: number;
}

async function runQuality(engine: string, ideas: Idea[]): Promise<QualityResult> {
  const config = await openEngine(engine, "oppintel_ideas", BASE);
  const db = await openDatabase(config);
  try {
    await migrate(db.sql);
    await seedDemo(db.sql, { opportunities: OPPORTUNITIES });
    const email = `ideas-${crypto.randomUUID().slice(0, 8)}@bench.local`;
    await createAccount(db.sql, { email, plan: "business", verified: true });
    const { key } = await createApiKey(db.sql, { email, name: "bench" });
    const rows = await db.sql<{ id: number; external_id: string; text: string }[]>`
      select id, external_id, title || '. ' || description as text from opportunities
      order by id`;
    const byExternal = new Map(rows.map((r) => [r.external_id, r.id]));
    const handler = buildHandler(db, config, { log: () => {} });
    const match = async (text: string) => {
      const r = await call(handler, key, `${ideaPath(text)}&limit=10`);
      if (r.status !== 200) throw new Error(`${r.status} for "${text}": ${r.text}`);
      return JSON.parse(r.text) as { themes: Sim[]; opportunities: Sim[] };
    };
    let precision = 0, themeFirst = 0, addressed = 0;
    for (const idea of ideas) {
      const body = await match(idea.text);
      const right = new Set(idea.right.map((e) => byExternal.get(e)));
      const hits = body.opportunities.slice(0, 10).filter((o) => right.has(o.id)).length;
      precision += hits / Math.min(10, right.size);
      if (body.themes[0]?.slug === idea.theme) themeFirst++;
      if ((body.opportunities[0]?.similarity ?? 0) >= 0.5) addressed++;
    }
    const outsideTop: number[] = [];
    for (const text of OUTSIDE) {
      outsideTop.push((await match(text)).opportunities[0]?.similarity ?? 0);
    }
    // Every 100th opportunity's own words (at most 1,000 characters, as the idea text allows).
    const selfScores: number[] = [];
    let selfFirst = 0;
    for (const row of rows.filter((_, i) => i % 100 === 0)) {
      const body = await match(row.text.slice(0, 1000));
      const own = body.opportunities.find((o) => o.id === row.id);
      selfScores.push(own?.similarity ?? 0);
      if (own && own.similarity === body.opportunities[0].similarity) selfFirst++;
    }
    await handler.settle();
    return {
      engine,
      ideas: ideas.length,
      normalisedPrecision: precision / ideas.length,
      themeFirst,
      addressed,
      outsideTop,
      selfScores,
      selfFirst,
    };
  } finally {
    await db.close();
  }
}

function renderQuality(results: QualityResult[]): string {
  return [
    `Judged ideas: ${
      results[0].ideas
    } (audience and job pairs of bench/questions/relevance_questions.ts ` +
    `written as ideas), ${OUTSIDE.length} ideas outside the catalogue, and every 100th ` +
    `opportunity's own title and description, on the demo data (2,000 opportunities), limit 10.`,
    "",
    "| engine | judged: normalised p@10 | right theme first | top similarity >= 0.5 | " +
    "outside: top similarity (max) | below 0.5 | own text: min similarity | own first |",
    "|---|---|---|---|---|---|---|---|",
    ...results.map((r) => {
      const outsideMax = Math.max(...r.outsideTop);
      const selfMin = Math.min(...r.selfScores);
      return `| ${r.engine} | ${
        r.normalisedPrecision.toFixed(3)
      } | ${r.themeFirst} of ${r.ideas} ` +
        `| ${r.addressed} of ${r.ideas} | ${outsideMax.toFixed(3)} | ${
          verdict(outsideMax < 0.5)
        } | ${selfMin.toFixed(3)} (${
          verdict(selfMin >= 0.9)
        }) | ${r.selfFirst} of ${r.selfScores.length} |`;
    }),
    "",
    "Outside ideas, top similarity (" + results[0].engine + "):",
    "",
    ...OUTSIDE.map((text, i) => `- "${text}": ${results[0].outsideTop[i].toFixed(3)}`),
  ].join("\n");
}

export async function runScale(url: string, ideas: Idea[]): Promise<string> {
  const config = readConfig({ DATABASE_URL: url, PUBLIC_BASE_URL: BASE, SEED_DEMO: "false" });
  const db = await openDatabase(config, { serving: true });
  const connections = Number(arg("--connections", "50"));
  const duration = Number(arg("--duration", "15"));
  const loadBefore = await loadAverage();
  try {
    const keys: string[] = [];
    for (let i = 0; i < connections; i++) {
      const email = `ideas-${crypto.randomUUID().slice(0, 8)}@bench.local`;
      await createAccount(db.sql, { email, plan: "business", verified: true });
      keys.push((await createApiKey(db.sql, { email, name: "bench" })).key);
    }
    const [{ rows, max }] = await db.sql<{ rows: number; max: number }[]>`
      select (select docs from search_terms where term = '') as rows,
        (select max(id) from opportunities) as max`;
    const handler = buildHandler(db, config, { log: () => {} });
    // mulberry32: an LCG in float arithmetic loses its low bits past 2^53 and cycles.
    const rnd = new Random(37);
    const random = () => Math.floor(rnd.next() * 2147483648);
    const paths = [
      ...ideas.map((i) => ideaPath(i.text)),
      ...OUTSIDE.map(ideaPath),
      ...Array.from({ length: 20 }, () => `/api/v1/opportunities/${1 + random() % max}/similar`),
    ];
    const first: { path: string; ms: number; status: number }[] = [];
    const repeated: { ms: number; status: number }[] = [];
    for (const path of paths) {
      const r = await call(handler, keys[0], path);
      first.push({ path, ms: r.ms, status: r.status });
      repeated.push(await call(handler, keys[0], path));
    }
    // Under load: ideas not asked before (a judged idea with another opening, so each is a cache
    // miss) and similar of random ids.
    const statuses = new Map<number, number>();
    const loadMs: number[] = [];
    // What answered other than 200, and its error code, so that a miss names its cause.
    const failed: string[] = [];
    const until = performance.now() + duration * 1000;
    let n = 0;
    await Promise.all(keys.map(async (key) => {
      while (performance.now() < until) {
        const r0 = random();
        const path = r0 % 4 === 0
          ? `/api/v1/opportunities/${1 + random() % max}/similar`
          : ideaPath(`Idea ${n++}: ${ideas[r0 % ideas.length].text}`);
        const r = await call(handler, key, path);
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        loadMs.push(r.ms);
        if (r.status !== 200) {
          failed.push(
            `${path.slice(0, 60)} ${r.status} after ${r.ms.toFixed(0)} ms: ${r.text.slice(0, 120)}`,
          );
        }
      }
    }));
    await handler.settle();
    const firstP95 = quantile(first.map((r) => r.ms), 0.95);
    const worst = [...first].sort((a, b) => b.ms - a.ms)[0];
    const repeatedP95 = quantile(repeated.map((r) => r.ms), 0.95);
    const non200 = [...first, ...repeated].filter((r) => r.status !== 200).length;
    const served = [...statuses.values()].reduce((a, b) => a + b, 0);
    const unavailable = statuses.get(503) ?? 0;
    return [
      `${new Date().toISOString().slice(0, 16)} UTC. ${ideas.length} judged ideas, ` +
      `${OUTSIDE.length} outside ideas and similar of 20 random ids, REST in-process, on ` +
      `${Number(rows).toLocaleString("en-US")} opportunities (PostgreSQL, statement time-out ` +
      `${config.db.statementTimeoutMs} ms, pool ${config.db.poolMax}). Load average before: ` +
      `${loadBefore}; after: ${await loadAverage()} (2 cores shared with other sessions).`,
      "",
      "| measure | value | target | verdict |",
      "|---|---|---|---|",
      `| first answer p95 | ${firstP95.toFixed(0)} ms | <= 1,000 ms | ${
        verdict(firstP95 <= 1000)
      } |`,
      `| first answer worst | ${worst.ms.toFixed(0)} ms: ${worst.path.slice(0, 90)} | | |`,
      `| repeated p95 | ${repeatedP95.toFixed(1)} ms | <= 50 ms | ${verdict(repeatedP95 <= 50)} |`,
      `| non-200 of the two passes (${paths.length} each) | ${non200} | 0 | ${
        verdict(non200 === 0)
      } |`,
      `| ${connections} callers, ${duration} s, fresh ideas and similar | ${served} answers, ` +
      `${unavailable} of them 503, p50 ${quantile(loadMs, 0.5).toFixed(0)} ms, p99 ${
        quantile(loadMs, 0.99).toFixed(0)
      } ms, statuses ${JSON.stringify(Object.fromEntries(statuses))} | no 503 | ${
        verdict(unavailable === 0 && served > 0)
      } |`,
      ...(failed.length > 0
        ? ["", "Not 200 under load:", "", ...failed.slice(0, 5).map((f) => `- ${f}`)]
        : []),
    ].join("\n");
  } finally {
    await db.close();
  }
}

/** Idea match and similar on the command line (the flags read from Deno.args). */
export async function runIdeas(): Promise<void> {
  exitWithIdeasHelpIfAsked();
  const ideas = judgedIdeas(Number(arg("--count", "80")));
  const scale = arg("--scale", "");
  if (scale) {
    const section = await runScale(scale, ideas);
    console.log(section);
    await writeSection("ideas-scale", section);
  } else {
    const results: QualityResult[] = [];
    for (const engine of arg("--engines", "embedded,postgres").split(",")) {
      const started = performance.now();
      results.push(await runQuality(engine, ideas));
      console.error(`${engine}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
    }
    const section = renderQuality(results);
    console.log(section);
    await writeSection("ideas", section);
  }
}
