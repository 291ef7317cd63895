/**
 * `deno task bench:meaning`: questions read by their words (today's reading) and by meaning (the
 * sentence encoder, src/catalog/meaning/), side by side, on the demo data (2,000 opportunities,
 * PostgreSQL) or on an existing database (`--database-url`, e.g. the 1,000,000-row copy).
 *
 * Sets: the questions in other words (bench/questions/paraphrases.ts and the "other" questions of
 * bench/questions/meaning_set.ts), the framed ones (framing words and a subject in other words),
 * the questions outside the catalogue (tests/helpers/outside_questions.ts and the set's), and the
 * data-words questions (bench/questions/relevance_questions.ts). Measured per half (dev: tuned on;
 * held-out: only measured): right first-ten slots (an item of the judged theme), the first item
 * right, confidence (right first answers >= 0.5, outside < 0.5, AUC of right against wrong first
 * answers, expected calibration error over 10 bins), the data-words set's zero results and
 * normalised precision at 10, the framed set's filters read, and each answer's time (first and
 * repeated).
 *
 * `--calibrate` fits meaning/calibration.ts's weights (logistic regression) on the dev half's
 * first answers and prints them; `--write` puts the report between the `meaning` markers of
 * bench/results/RELEVANCE.md.
 */
import postgres from "postgres";
import { arg, exitWithHelpIfAsked } from "../harness/args.ts";
import { readConfig } from "../../src/platform/config.ts";
import { openDatabase } from "../../src/db/open.ts";
import { migrate } from "../../src/db/migrate.ts";
import { generateDemoRecords, seedDemo } from "../../src/ingest/seed.ts";
import { createContent } from "../../src/catalog/content.ts";
import { readDataVersion } from "../../src/catalog/common.ts";
import { OpportunityQuerySchema } from "../../src/catalog/schemas.ts";
import { IdeaQuerySchema } from "../../src/catalog/similar/similar_schemas.ts";
import { startEncoder } from "../../src/catalog/meaning/encoder.ts";
import { syncMeaning } from "../../src/catalog/meaning/vectors.ts";
import { recordEvidence } from "../../src/catalog/questions/judge.ts";
import { calibrated, type Evidence, WEIGHTS } from "../../src/catalog/meaning/calibration.ts";
import { MEANING_SET } from "./meaning_set.ts";
import { PARAPHRASES } from "./paraphrases.ts";
import { relevanceQuestions } from "./relevance_questions.ts";
import { OUTSIDE_QUESTIONS } from "../../tests/helpers/outside_questions.ts";
import { quantile, writeSection } from "./relevance_report.ts";
import { expectedCalibrationError, fitLogistic, rocAuc } from "./meaning_fit.ts";

exitWithHelpIfAsked(`
Usage: deno task bench:meaning [flags]

Questions read by their words and by meaning (the sentence encoder), side by side: right
first-ten slots, confidence (AUC, calibration), data-words precision, time per answer.

Flags:
  --database-url URL  An existing migrated database (default: oppintel_meaning, made afresh on
                      the local PostgreSQL with the 2,000-row demo data)
  --calibrate         Fit the confidence weights on the dev half and print them
  --write             Write the report into bench/results/RELEVANCE.md (meaning markers)
  --only-meaning      Skip the pass by words
  --half NAME         Only the questions of one half: dev or heldOut (default both)
`);

interface Asked {
  q: string;
  set: "other" | "framed" | "outside" | "data";
  half: "dev" | "heldOut";
  theme?: string | null;
  right?: string[];
}

interface Answered extends Asked {
  slots: number;
  firstRight: boolean;
  confidence: number | null;
  total: number;
  ms: number;
  evidence?: Evidence;
  filters: string[];
  /** Idea match with the question as the idea: its first theme is the judged one. */
  ideaRight?: boolean;
}

const url = arg("--database-url", "");
const write = Deno.args.includes("--write");
const calibrate = Deno.args.includes("--calibrate");
const OPPORTUNITIES = 2000;

async function database(): Promise<string> {
  if (url) return url;
  const admin = postgres("postgres://postgres@127.0.0.1:5432/postgres", { max: 1 });
  await admin.unsafe("drop database if exists oppintel_meaning with (force)");
  await admin.unsafe("create database oppintel_meaning");
  await admin.end();
  const made = "postgres://postgres@127.0.0.1:5432/oppintel_meaning";
  const db = await openDatabase(readConfig({ DATABASE_URL: made }), { max: 1 });
  await migrate(db.sql);
  await seedDemo(db.sql, { opportunities: OPPORTUNITIES });
  await db.close();
  return made;
}

function questions(): Asked[] {
  const halfOf = (i: number): "dev" | "heldOut" => i % 2 === 0 ? "dev" : "heldOut";
  const data = relevanceQuestions(generateDemoRecords({ opportunities: OPPORTUNITIES }), {
    count: 80,
  });
  return [
    ...PARAPHRASES.map((p) => ({ q: p.q, set: "other" as const, half: p.half, theme: p.theme })),
    ...MEANING_SET.map((m) => ({
      q: m.q,
      set: m.kind === "other" ? "other" as const : m.kind,
      half: m.half,
      theme: m.theme,
    })),
    ...OUTSIDE_QUESTIONS.map((q, i) => ({ q, set: "outside" as const, half: halfOf(i) })),
    ...(url
      ? []
      : data.map((d, i) => ({ q: d.q, set: "data" as const, half: halfOf(i), right: d.right }))),
  ];
}

async function ask(dbUrl: string, asked: Asked[], label: string): Promise<Answered[]> {
  const db = await openDatabase(readConfig({ DATABASE_URL: dbUrl }), { serving: true });
  const sql = db.sql;
  const content = createContent(sql, { publicBaseUrl: "http://bench", forcePlans: true }, {
    listIndex: "off",
  });
  const version = await readDataVersion(sql);
  // The theme and external id of an answer's items (read per answer: a million rows at scale).
  const themeOf = new Map<number, string>();
  const externalOf = new Map<number, string>();
  const learn = async (ids: number[]) => {
    const rows = await sql<{ id: number; slug: string; external_id: string }[]>`
      select o.id, t.slug, o.external_id from opportunities o join themes t on t.id = o.theme_id
      where o.id in (select jsonb_array_elements_text(${JSON.stringify(ids)}::text::jsonb)::int)`;
    for (const r of rows) {
      themeOf.set(r.id, r.slug);
      externalOf.set(r.id, r.external_id);
    }
  };
  const evidence = new Map<number, Evidence>();
  recordEvidence((id, e) => evidence.set(id, e));
  const out: Answered[] = [];
  let failures = 0;
  for (const [n, a] of asked.entries()) {
    evidence.clear();
    const started = performance.now();
    // A statement past the time-out is the service's 503: counted, not a crash of the bench.
    const answer = await content.listOpportunities(
      version,
      OpportunityQuerySchema.parse({ q: a.q, page_size: 10 }),
    ).catch(() => undefined);
    if (!answer) {
      out.push({
        ...a,
        slots: 0,
        firstRight: false,
        confidence: null,
        total: 0,
        ms: 0,
        filters: [],
      });
      failures++;
      continue;
    }
    const ms = performance.now() - started;
    const items = answer.items;
    await learn(items.map((i) => i.id));
    const right = (id: number) =>
      a.right ? a.right.includes(externalOf.get(id) ?? "") : themeOf.get(id) === a.theme;
    out.push({
      ...a,
      slots: items.filter((i) => right(i.id)).length /
        (a.right ? Math.min(10, a.right.length) : 10),
      firstRight: items.length > 0 && right(items[0].id),
      confidence: answer.confidence,
      total: answer.total,
      ms,
      evidence: items.length > 0 ? evidence.get(items[0].id) : undefined,
      filters: Object.keys(answer.read_as?.filters ?? {}),
    });
    if (a.set === "other") {
      const idea = await content.matchIdea(version, IdeaQuerySchema.parse({ text: a.q }))
        .catch(() => undefined);
      out[out.length - 1].ideaRight = idea?.themes[0]?.slug === a.theme;
    }
    if ((n + 1) % 50 === 0) console.error(`[${label}] ${n + 1}/${asked.length}`);
  }
  recordEvidence(undefined);
  if (failures > 0) {
    console.error(`[${label}] ${failures} answers past the statement time-out (503)`);
  }
  await db.close();
  return out;
}

function mean(values: number[]): number {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : NaN;
}

function report(label: string, answers: Answered[]): string[] {
  const lines: string[] = [];
  const f = (x: number) => Number.isNaN(x) ? "-" : x.toFixed(3);
  for (const half of ["dev", "heldOut"] as const) {
    if (!answers.some((a) => a.half === half)) continue;
    const of = (set: Asked["set"]) => answers.filter((a) => a.set === set && a.half === half);
    const other = [...of("other"), ...of("framed")];
    const outside = of("outside");
    const data = of("data");
    const judged = [...other, ...outside].filter((a) => a.confidence !== null);
    const labels = judged.map((a) => a.firstRight && a.set !== "outside");
    const scores = judged.map((a) => a.confidence ?? 0);
    const rightFirst = other.filter((a) => a.firstRight);
    const framed = of("framed");
    const wanted = MEANING_SET.filter((m) => m.kind === "framed" && m.half === half);
    const framedRead = framed.filter((a) => {
      const want = wanted.find((m) => m.q === a.q)?.framing ?? {};
      const keys = Object.keys(want).map((k) => k === "growing" ? "trend" : k);
      return keys.every((k) => a.filters.includes(k));
    });
    const times = answers.filter((a) => a.half === half).map((a) => a.ms);
    lines.push(
      `| ${label} | ${half} | ${
        f(mean(other.map((a) => a.slots)))
      } | ${rightFirst.length}/${other.length} | ` +
        `${f(rightFirst.filter((a) => (a.confidence ?? 0) >= 0.5).length / rightFirst.length)} | ` +
        `${f(rocAuc(scores, labels))} | ${f(expectedCalibrationError(scores, labels))} | ` +
        `${f(outside.filter((a) => (a.confidence ?? 0) < 0.5).length / outside.length)} | ` +
        `${data.length ? f(mean(data.map((a) => a.slots))) : "-"} | ` +
        `${data.length ? f(data.filter((a) => a.total === 0).length / data.length) : "-"} | ` +
        `${framedRead.length}/${framed.length} | ` +
        `${of("other").filter((a) => a.ideaRight).length}/${of("other").length} | ` +
        `${quantile(times, 0.95).toFixed(0)} |`,
    );
  }
  return lines;
}

const dbUrl = await database();
const half = arg("--half", "");
const asked = questions().filter((a) => !half || a.half === half);
const header = [
  "| reading | half | other words: right first-ten slots | first right | right firsts >= 0.5 | AUC | ECE | outside < 0.5 | data words nP@10 | data words empty | framing read | idea match: first theme right | p95 ms |",
  "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
];
const rows: string[] = [];
if (!Deno.args.includes("--only-meaning")) {
  rows.push(...report("words", await ask(dbUrl, asked, "words")));
}
const encoder = await startEncoder();
if (!encoder) throw new Error("The sentence encoder did not load");
{
  const db = await openDatabase(readConfig({ DATABASE_URL: dbUrl }), { max: 1 });
  const started = performance.now();
  const embedded = await syncMeaning(db.sql, encoder);
  console.error(
    `[meaning] ${embedded} texts embedded in ${(performance.now() - started).toFixed(0)} ms`,
  );
  await db.close();
}
const meaning = await ask(dbUrl, asked, "meaning");
rows.push(...report("meaning", meaning));
const table = [...header, ...rows].join("\n");
console.log(table);
if (calibrate) {
  const dev = meaning.filter((a) => a.half === "dev" && a.evidence && a.set !== "data");
  const x = dev.map((
    a,
  ) => [
    a.evidence!.lexical,
    a.evidence!.near,
    a.evidence!.gap,
    a.evidence!.unmatched,
    a.evidence!.margin,
  ]);
  const y = dev.map((a) => a.firstRight && a.set !== "outside");
  const w = fitLogistic(x, y);
  const weights = {
    bias: w[0],
    lexical: w[1],
    near: w[2],
    gap: w[3],
    unmatched: w[4],
    margin: w[5],
  };
  console.log(`Fitted on ${dev.length} dev first answers: ${JSON.stringify(weights)}`);
  const held = meaning.filter((a) => a.half === "heldOut" && a.evidence && a.set !== "data");
  const scores = held.map((a) => calibrated(a.evidence!, weights));
  const labels = held.map((a) => a.firstRight && a.set !== "outside");
  console.log(
    `Held-out with them: AUC ${rocAuc(scores, labels).toFixed(3)}, ECE ${
      expectedCalibrationError(scores, labels).toFixed(3)
    } (now: ${JSON.stringify(WEIGHTS)})`,
  );
}
if (write) {
  await writeSection(
    url ? "meaning-scale" : "meaning",
    `${url ? `On ${new URL(url).pathname.slice(1)}` : "At 2,000 opportunities (PostgreSQL)"}, ${
      new Date().toISOString().slice(0, 16)
    } UTC.\n\n${table}`,
  );
}
