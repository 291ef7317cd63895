/**
 * A second reading of a question's theme (src/catalog/meaning/expansion.ts adds it to the first): a
 * classifier that learns, from the catalogue itself, which directions of the word-vector space
 * tell one theme from another, so that a word the catalogue never uses ("nagging") is read
 * through its vector rather than through its nearest catalogue word.
 *
 * - Examples: every word of the short texts of each theme's best-scored opportunities (titles,
 *   sentences of descriptions, features, evidence quotes) and of its name and summary, with the
 *   share of those texts per theme that hold it. A text written for more than one theme is left
 *   out (the demo's template sentences), and a word counts once per distinct text, so a phrasing
 *   repeated across hundreds of rows weighs as one.
 * - Model: multinomial logistic regression (softmax) from a word's vector to its themes, with
 *   soft targets, trained by full-batch Adam in the process (about 1,000 words x 40 themes x
 *   101 weights).
 * - A question's score for a theme: the sum over its words of the log-probability of the theme
 *   (a word spread over every theme adds about the same to each).
 *
 * Measured on the questions in other words (bench/results/RELEVANCE.md): this alone reads the
 * right theme first about as often as the nearest-words reading; added to it, more often than
 * either.
 */
import type { Sql } from "../../db/open.ts";

const DIMENSIONS = 100;
/** Words found in fewer distinct texts are left out of the examples. */
const MIN_TEXTS = 2;
const EPOCHS = 100;
const RATE = 0.02;
const L2 = 1e-4;

/** Which themes a word vector points to: one row of weights (and a bias) per theme. */
export interface ThemeWordModel {
  themes: number[];
  weights: Float64Array;
}

interface Example {
  v: Float32Array;
  target: Float64Array;
  weight: number;
}

/**
 * The examples (see the module comment) of the `rows` best-scored online opportunities of each
 * theme. `unit` turns a stored vector into a unit one; `generic` lists words to leave out.
 */
export async function readThemeWords(
  sql: Sql,
  options: { rows: number; generic: string[]; unit: (bytes: Uint8Array) => Float32Array },
): Promise<{ themes: number[]; examples: Example[] }> {
  type Row = { v: Uint8Array; texts: [theme: number, texts: number][] };
  // PostgreSQL's JIT compiler would take longer to compile this statement than to run it.
  const rows = await sql.begin(async (tx) => {
    await tx`set local jit = off`;
    return await tx<Row[]>`
    with picked as (
      select t.id as theme, o.id, o.title, o.description, o.key_features
      from themes t cross join lateral (
        select o.id, o.title, o.description, o.key_features from opportunities o
        where o.theme_id = t.id and o.is_online_deliverable
        order by o.score desc, o.created_at desc, o.id desc limit ${options.rows}) o
    ),
    texts as (
      select theme, title as text from picked
      union all select p.theme, s from picked p, regexp_split_to_table(p.description, '[.!?]\\s+') s
      union all select p.theme, f from picked p, unnest(p.key_features) f
      union all select p.theme, q.quote from picked p join evidence_quotes q on q.opportunity_id = p.id
      union all select t.id, t.name from themes t where t.id in (select theme from picked)
      union all select t.id, t.summary from themes t where t.id in (select theme from picked)
    ),
    single as (
      select min(theme) as theme, row_number() over () as id, lower(text) as text from texts
      group by lower(text) having count(distinct theme) = 1
    ),
    words as (
      select distinct s.theme, s.id, w.word
      from single s, regexp_split_to_table(s.text, '[^a-z]+') as w(word)
      where length(w.word) > 1
    ),
    counted as (select word, theme, count(*)::int as n from words group by word, theme)
    select v.v, json_agg(json_build_array(c.theme, c.n)) as texts
    from counted c join word_vectors v on v.word = c.word
    where ts_lexize('english_stem', c.word) <> '{}'
      and c.word not in (select jsonb_array_elements_text(${
      JSON.stringify(options.generic)
    }::text::jsonb))
    group by c.word, v.v
    having sum(c.n) >= ${MIN_TEXTS}`;
  });
  const themes = [...new Set(rows.flatMap((r) => r.texts.map(([t]) => t)))].sort((a, b) => a - b);
  const index = new Map(themes.map((t, i) => [t, i]));
  const examples = rows.map((r) => {
    const total = r.texts.reduce((a, [, n]) => a + n, 0);
    const target = new Float64Array(themes.length);
    for (const [t, n] of r.texts) target[index.get(t)!] = n / total;
    return { v: options.unit(r.v), target, weight: Math.log(1 + total) };
  });
  return { themes, examples };
}

function logSoftmax(weights: Float64Array, v: Float32Array, out: Float64Array): void {
  const width = DIMENSIONS + 1;
  let max = -Infinity;
  for (let k = 0; k < out.length; k++) {
    let s = weights[k * width + DIMENSIONS];
    for (let i = 0; i < DIMENSIONS; i++) s += weights[k * width + i] * v[i];
    out[k] = s;
    if (s > max) max = s;
  }
  let z = 0;
  for (let k = 0; k < out.length; k++) z += Math.exp(out[k] - max);
  const log = max + Math.log(z);
  for (let k = 0; k < out.length; k++) out[k] -= log;
}

/**
 * The model trained last, by its examples' digest: the newest reading's, whose bytes that reading
 * already counts in the memory budget (question_reading), so it holds nothing more.
 */
let trained: { key: string; model: Promise<ThemeWordModel> } | undefined;

/**
 * The model of `examples`, trained once per process while they stay the same. Training is
 * deterministic (zero weights to start, the full batch each epoch), so the model kept is the one
 * training again would give: a new data version whose themes' texts did not change, or a second
 * database holding the same catalogue, reads questions at once (training took 1.5-3.5 s of one
 * core at 40 themes and 960 words).
 */
export async function trainThemeWords(
  themes: number[],
  examples: Example[],
): Promise<ThemeWordModel> {
  if (themes.length === 0 || examples.length === 0) return await fit(themes, examples);
  const key = await digestOf(themes, examples);
  if (trained?.key !== key) {
    const model = fit(themes, examples);
    trained = { key, model };
    model.catch(() => {
      if (trained?.model === model) trained = undefined;
    });
  }
  return await trained.model;
}

/** A SHA-256 of the themes and every example's vector, targets and weight. */
async function digestOf(themes: number[], examples: Example[]): Promise<string> {
  const size = examples.reduce((sum, e) => sum + e.v.byteLength + e.target.length * 8 + 12, 4) +
    themes.length * 8;
  const bytes = new Uint8Array(size);
  const view = new DataView(bytes.buffer);
  let at = 0;
  view.setUint32(at, themes.length);
  at += 4;
  for (const t of themes) at = put(view, at, t);
  for (const e of examples) {
    view.setUint32(at, e.v.length);
    bytes.set(new Uint8Array(e.v.buffer, e.v.byteOffset, e.v.byteLength), at + 4);
    at += 4 + e.v.byteLength;
    for (const x of e.target) at = put(view, at, x);
    at = put(view, at, e.weight);
  }
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

function put(view: DataView, at: number, x: number): number {
  view.setFloat64(at, x);
  return at + 8;
}

/**
 * Trains the model on `examples` (soft-target softmax regression, full-batch Adam). Yields to the
 * event loop after each epoch (about 10 ms): it runs beside the answers.
 */
async function fit(themes: number[], examples: Example[]): Promise<ThemeWordModel> {
  const width = DIMENSIONS + 1;
  const weights = new Float64Array(themes.length * width);
  if (themes.length === 0 || examples.length === 0) return { themes, weights };
  const gradient = new Float64Array(weights.length);
  const first = new Float64Array(weights.length);
  const second = new Float64Array(weights.length);
  const p = new Float64Array(themes.length);
  const total = examples.reduce((a, e) => a + e.weight, 0);
  for (let epoch = 1; epoch <= EPOCHS; epoch++) {
    gradient.fill(0);
    for (const e of examples) {
      logSoftmax(weights, e.v, p);
      for (let k = 0; k < themes.length; k++) {
        const d = e.weight * (Math.exp(p[k]) - e.target[k]);
        const row = k * width;
        for (let i = 0; i < DIMENSIONS; i++) gradient[row + i] += d * e.v[i];
        gradient[row + DIMENSIONS] += d;
      }
    }
    for (let j = 0; j < weights.length; j++) {
      const g = gradient[j] / total + L2 * weights[j];
      first[j] = 0.9 * first[j] + 0.1 * g;
      second[j] = 0.999 * second[j] + 0.001 * g * g;
      const m = first[j] / (1 - 0.9 ** epoch);
      const s = second[j] / (1 - 0.999 ** epoch);
      weights[j] -= RATE * m / (Math.sqrt(s) + 1e-8);
    }
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  return { themes, weights };
}

/** Each theme's score for a question of word `vectors`: the sum of their log-probabilities. */
export function scoreThemeWords(
  model: ThemeWordModel,
  vectors: Float32Array[],
): Map<number, number> {
  const sums = new Float64Array(model.themes.length);
  const p = new Float64Array(model.themes.length);
  for (const v of vectors) {
    logSoftmax(model.weights, v, p);
    for (let k = 0; k < sums.length; k++) sums[k] += p[k];
  }
  return new Map(model.themes.map((t, k) => [t, sums[k]]));
}
