/**
 * The parts of bench:relevance (bench/questions/relevance.ts) that run against a service: the
 * questions in other words measured on any engine and surface, and both sets at scale, on an
 * existing database (`--scale DATABASE_URL`).
 */
import { buildHandler } from "../../main.ts";
import { readConfig } from "../../src/platform/config.ts";
import { openDatabase } from "../../src/db/open.ts";
import { createAccount } from "../../src/accounts/accounts.ts";
import { createApiKey } from "../../src/accounts/api_keys.ts";
import type { Question } from "./relevance_questions.ts";
import { arg } from "../harness/args.ts";
import { quantile, verdict } from "./relevance_report.ts";
import { type Paraphrase, PARAPHRASES } from "./paraphrases.ts";

/** The public address of the service in this process. */
export const BASE = "http://relevance.bench";

/** The questions in other words on one engine and surface, per half and in all. */
export interface ParaphraseResult {
  engine: string;
  surface: "rest" | "mcp";
  half: "dev" | "heldOut" | "all";
  questions: number;
  /** Share of the first ten slots holding an opportunity of the judged theme. */
  rightSlots: number;
  firstRight: number;
  empty: number;
  misses: { q: string; theme: string; right: number }[];
}

/** Right first-ten slots of PARAPHRASES: `ask` answers a q, `themesOf` names the rows' themes. */
export async function measureParaphrases(
  engine: string,
  surface: "rest" | "mcp",
  ask: (q: string) => Promise<{ total: number; items: { id: number }[] }>,
  themesOf: (ids: number[]) => Promise<Map<number, string>>,
): Promise<ParaphraseResult[]> {
  const scored: (Paraphrase & { half: "dev" | "heldOut"; right: number; first: boolean })[] = [];
  let empty = 0;
  for (const p of PARAPHRASES) {
    const body = await ask(p.q);
    if (body.total === 0) empty++;
    const ids = body.items.slice(0, 10).map((i) => i.id);
    const themes = await themesOf(ids);
    const right = ids.filter((id) => themes.get(id) === p.theme).length;
    scored.push({ ...p, right, first: themes.get(ids[0]) === p.theme });
  }
  return (["dev", "heldOut", "all"] as const).map((half) => {
    const of = scored.filter((s) => half === "all" || s.half === half);
    return {
      engine,
      surface,
      half,
      questions: of.length,
      rightSlots: of.reduce((sum, s) => sum + s.right, 0) / (10 * of.length),
      firstRight: of.filter((s) => s.first).length,
      empty: half === "all" ? empty : 0,
      misses: of.filter((s) => s.right === 0).map((s) => ({ q: s.q, theme: s.theme, right: 0 })),
    };
  });
}

/**
 * At scale (`--scale DATABASE_URL`, a migrated copy of the 1,000,000-opportunity database): the
 * same questions through REST in this process, with the service's own pool settings (statement
 * time-out, forced plans): each once (the first answer, a cache miss), then again (repeated,
 * cached), then `--connections` concurrent callers asking random questions and pages for
 * `--duration` seconds, counting every status.
 */
export async function runScale(url: string, questions: Question[]): Promise<string> {
  const config = readConfig({ DATABASE_URL: url, PUBLIC_BASE_URL: BASE, SEED_DEMO: "false" });
  const db = await openDatabase(config, { serving: true });
  const connections = Number(arg("--connections", "50"));
  const duration = Number(arg("--duration", "10"));
  try {
    const keys: string[] = [];
    for (let i = 0; i < connections; i++) {
      const email = `relevance-${crypto.randomUUID().slice(0, 8)}@bench.local`;
      await createAccount(db.sql, { email, plan: "business", verified: true });
      keys.push((await createApiKey(db.sql, { email, name: "bench" })).key);
    }
    const handler = buildHandler(db, config, { log: () => {} });
    const get = async (q: string, key: string, page = 1) => {
      const started = performance.now();
      const res = await handler(
        new Request(`${BASE}/api/v1/opportunities?q=${encodeURIComponent(q)}&page=${page}`, {
          headers: { "X-API-Key": key },
        }),
      );
      const body = await res.text();
      return { status: res.status, ms: performance.now() - started, body };
    };
    // Each question twice in a row: the first answer is a cache miss, the second is cached
    // (entries live 60 s, so the repeat comes right after, as in bench/questions/search.ts).
    const first: { q: string; ms: number; status: number; total: number }[] = [];
    const repeated: { ms: number; status: number }[] = [];
    for (const question of questions) {
      const r = await get(question.q, keys[0]);
      first.push({
        q: question.q,
        ms: r.ms,
        status: r.status,
        total: r.status === 200 ? JSON.parse(r.body).total : -1,
      });
      repeated.push(await get(question.q, keys[0]));
    }
    const statuses = new Map<number, number>();
    const loadMs: number[] = [];
    const until = performance.now() + duration * 1000;
    let seed = 27;
    await Promise.all(keys.map(async (key) => {
      while (performance.now() < until) {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        const question = questions[seed % questions.length];
        const r = await get(question.q, key, 1 + (seed % 3));
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        loadMs.push(r.ms);
      }
    }));
    await handler.settle();
    const worst = [...first].sort((a, b) => b.ms - a.ms)[0];
    const firstP95 = quantile(first.map((r) => r.ms), 0.95);
    const repeatedP95 = quantile(repeated.map((r) => r.ms), 0.95);
    const non200 = [...first, ...repeated].filter((r) => r.status !== 200).length;
    const served = [...statuses.values()].reduce((a, b) => a + b, 0);
    const unavailable = statuses.get(503) ?? 0;
    const [{ rows }] = await db.sql<{ rows: number }[]>`
      select count(*)::int as rows from opportunities`;
    return [
      `Questions: ${questions.length}, REST in-process, default sort, on ` +
      `${rows.toLocaleString("en-US")} opportunities (PostgreSQL, forced plans, statement ` +
      `time-out ${config.db.statementTimeoutMs} ms).`,
      "",
      "| measure | value | target | verdict |",
      "|---|---|---|---|",
      `| first answer p95 | ${firstP95.toFixed(0)} ms | <= 1,000 ms | ${
        verdict(firstP95 <= 1000)
      } |`,
      `| first answer worst | ${worst.ms.toFixed(0)} ms: "${worst.q}" (total ${worst.total}) | | |`,
      `| repeated p95 | ${repeatedP95.toFixed(1)} ms | <= 25 ms | ${verdict(repeatedP95 <= 25)} |`,
      `| non-200 of the two passes | ${non200} | 0 | ${verdict(non200 === 0)} |`,
      `| ${connections} callers, ${duration} s, random questions and pages | ${served} answers, ` +
      `${unavailable} of them 503, p99 ${quantile(loadMs, 0.99).toFixed(0)} ms, statuses ${
        JSON.stringify(Object.fromEntries(statuses))
      } | no 503 | ${verdict(unavailable === 0)} |`,
    ].join("\n");
  } finally {
    await db.close();
  }
}

/** The questions in other words through REST on the database at `url` (at scale). */
export async function paraphrasesAt(url: string): Promise<ParaphraseResult[]> {
  const config = readConfig({ DATABASE_URL: url, PUBLIC_BASE_URL: BASE, SEED_DEMO: "false" });
  const db = await openDatabase(config, { serving: true });
  try {
    const email = `relevance-${crypto.randomUUID().slice(0, 8)}@bench.local`;
    await createAccount(db.sql, { email, plan: "business", verified: true });
    const { key } = await createApiKey(db.sql, { email, name: "bench" });
    const handler = buildHandler(db, config, { log: () => {} });
    const ask = async (q: string) => {
      const res = await handler(
        new Request(`${BASE}/api/v1/opportunities?q=${encodeURIComponent(q)}`, {
          headers: { "X-API-Key": key },
        }),
      );
      // A refusal counts as an empty answer (and is told), so that the run reports it.
      if (res.status !== 200) {
        console.error(`REST ${res.status} for "${q}"`);
        return { total: 0, items: [] };
      }
      return await res.json();
    };
    const themesOf = async (ids: number[]) => {
      const rows = await db.sql<{ id: number; slug: string }[]>`
        select o.id, t.slug from opportunities o join themes t on t.id = o.theme_id
        where o.id in (select jsonb_array_elements_text(${JSON.stringify(ids)}::text::jsonb)::int)`;
      return new Map(rows.map((r) => [r.id, r.slug]));
    };
    const results = await measureParaphrases("postgres", "rest", ask, themesOf);
    await handler.settle();
    return results;
  } finally {
    await db.close();
  }
}
