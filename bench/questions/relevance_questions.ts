/**
 * The judged questions of `deno task bench:relevance` (bench/questions/relevance.ts), generated
 * from the demo data, never written by hand. Every demo opportunity's title states who it is for
 * and what they need done ({audience} and {job} of src/ingest/demo_words.ts, e.g. "freelance
 * designers" and "chase late invoices"). A question asks for one such pair the way an agent
 * would, in a sentence with other word forms ("chasing late invoices for freelance
 * designers", "tool to help a freelance designer chase late invoice", "freelance designers
 * struggling with chasing late invoices"), and its right answers are the opportunities made for
 * that pair: target_audience is the audience and the title holds the job (online-deliverable
 * ones: the list's default filter). Which pairs, which
 * phrasing: drawn from a seeded generator, so the set is the same on every run.
 */
import { Random } from "../../src/ingest/demo.ts";
import type { ImportRecord } from "../../src/ingest/records.ts";
import { CATEGORIES } from "../../src/ingest/demo_words.ts";

/** One judged question. */
export interface Question {
  q: string;
  audience: string;
  job: string;
  /** external_id of every right answer. */
  right: string[];
}

// Verbs whose last consonant doubles before -ing.
const DOUBLING = new Set(["plan", "stop", "run", "get", "set", "ship", "log", "tag", "chat"]);

/** "chase late invoices" -> "chasing late invoices" (the first word is the verb). */
export function gerund(job: string): string {
  const [verb, ...rest] = job.split(" ");
  let ing: string;
  if (DOUBLING.has(verb)) ing = `${verb}${verb.at(-1)}ing`;
  else if (verb.endsWith("ie")) ing = `${verb.slice(0, -2)}ying`;
  else if (verb.endsWith("e") && !verb.endsWith("ee")) ing = `${verb.slice(0, -1)}ing`;
  else ing = `${verb}ing`;
  return [ing, ...rest].join(" ");
}

/** A plural noun phrase made singular at its last word ("late invoices" -> "late invoice"). */
export function singular(phrase: string): string {
  const words = phrase.split(" ");
  const last = words.at(-1)!;
  let one = last;
  if (/ies$/.test(last)) one = `${last.slice(0, -3)}y`;
  else if (/(ss|sh|ch|x)es$/.test(last)) one = last.slice(0, -2);
  else if (/[^s]s$/.test(last)) one = last.slice(0, -1);
  return [...words.slice(0, -1), one].join(" ");
}

/** An audience as one person: "freelance designers" -> "freelance designer". */
function person(audience: string): string {
  // "bookkeepers for small businesses": the person is the head noun, before "for".
  const [head, ...tail] = audience.split(" for ");
  return [singular(head), ...tail].join(" for ");
}

const PHRASINGS: ((a: string, j: string) => string)[] = [
  (a, j) => `${gerund(j)} for ${a}`,
  (a, j) => `tool to help a ${person(a)} ${singular(j)}`,
  (a, j) => `${a} struggling with ${gerund(j)}`,
  (a, j) => `how can ${a} ${j}`,
  (a, j) => `app for ${a} who need to ${singular(j)}`,
  (a, j) => `${person(a)} wants to ${j}`,
];

/** The judged questions of the demo records `records`: `count` pairs, seeded. */
export function relevanceQuestions(
  records: Iterable<ImportRecord>,
  options: { count?: number; seed?: number } = {},
): Question[] {
  const jobs = CATEGORIES.flatMap((c) => c.themes.flatMap((t) => t.jobs));
  const audiences = new Map(
    CATEGORIES.flatMap((c) => c.audiences).map((a) => [a.toLowerCase(), a]),
  );
  const pairs = new Map<string, Question>();
  for (const record of records) {
    // The list shows online-deliverable ideas unless online_only=false: only they can answer.
    if (record.type !== "opportunity" || !record.is_online_deliverable) continue;
    const audience = audiences.get(String(record.target_audience).toLowerCase());
    const title = record.title.toLowerCase();
    const job = jobs.find((j) => title.includes(j));
    if (!audience || !job) continue;
    const key = `${audience}|${job}`;
    const pair = pairs.get(key) ?? { q: "", audience, job, right: [] };
    pair.right.push(record.external_id);
    pairs.set(key, pair);
  }
  const rnd = new Random(options.seed ?? 27);
  const chosen = rnd.sample([...pairs.values()], options.count ?? 160);
  return chosen.map((pair, i) => ({
    ...pair,
    q: PHRASINGS[(i + rnd.int(0, PHRASINGS.length - 1)) % PHRASINGS.length](
      pair.audience,
      pair.job,
    ),
  }));
}
