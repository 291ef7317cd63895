/**
 * Deterministic demo data: categories, themes with trend signals, opportunities with evidence
 * and blog posts, generated from a seed as records of the import format and written through the
 * import's batched writer (one code path). Opportunity number i depends only on the seed and i,
 * so a larger seed run starts with the same opportunities as a smaller one.
 */
import type { EvidenceRecord, ImportRecord, OpportunityRecord, ThemeRecord } from "./records.ts";
import {
  ADJECTIVES,
  CATEGORIES,
  COMPLAINTS,
  type DemoCategory,
  type DemoTheme,
  DIFFERENTIATIONS,
  DOMAINS,
  MONETIZATION,
  NARRATIVE_CLOSERS,
  NARRATIVE_MIDDLES,
  NARRATIVE_OPENERS,
  PEOPLE,
  PERSONAL_BITS,
  PLATFORMS,
  PRODUCTS,
  QUOTES,
  RARE_SENTENCES,
  RARE_WORDS,
  RISKS,
  TITLES,
  WORKAROUNDS,
} from "./demo_words.ts";

/** One record of the import format. */
export type DemoRecord = ImportRecord;

export const DEFAULT_OPPORTUNITIES = 2000;
export const DEFAULT_SEED = 20260519;
/** Every date of the demo data is relative to this instant, never to the clock. */
export const ANCHOR = Date.parse("2026-11-01T00:00:00Z");
/** Scheduled articles are published on this date, far enough away to stay unpublished. */
export const SCHEDULED_AT = "2099-01-01T08:00:00Z";

export const DAY = 86_400_000;

// ---- Randomness ------------------------------------------------------------------------------

/** mulberry32: a small, fast, well-distributed 32-bit generator. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A well-mixed 32-bit seed from two integers, so that neighbouring streams do not correlate. */
export function mix(a: number, b: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x632be5ab, 0xc2b2ae35);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

export class Random {
  readonly next: () => number;
  constructor(seed: number) {
    this.next = mulberry32(seed);
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  /** `count` distinct items. */
  sample<T>(items: readonly T[], count: number): T[] {
    const pool = [...items];
    const out: T[] = [];
    while (out.length < count && pool.length) {
      out.push(pool.splice(Math.floor(this.next() * pool.length), 1)[0]);
    }
    return out;
  }
  /** Roughly normal around 0 with standard deviation about `sd` (sum of uniforms). */
  normal(sd: number): number {
    let s = 0;
    for (let i = 0; i < 6; i++) s += this.next();
    return (s - 3) * sd * Math.SQRT2;
  }
}

function clamp(value: number, min: number, max: number): number {
  return Math.max(min, Math.min(max, Math.round(value)));
}

function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (_, key: string) => {
    const lower = key.charAt(0).toLowerCase() + key.slice(1);
    const value = String(values[lower] ?? values[key] ?? `{${key}}`);
    return key === lower ? value : value.charAt(0).toUpperCase() + value.slice(1);
  });
}

/** "A affordable" -> "An affordable": the article of a filled template follows the next word. */
function withArticles(text: string): string {
  return text.replace(/\b([Aa]) (?=[aeiouAEIOU])/g, (_, a: string) => `${a}n `);
}

// ---- Categories and themes -------------------------------------------------------------------

export interface ThemeInfo {
  theme: DemoTheme;
  category: DemoCategory;
  weight: number;
}

export function themeInfos(seed: number): ThemeInfo[] {
  const rnd = new Random(mix(seed, -1));
  return CATEGORIES.flatMap((category) =>
    category.themes.map((theme) => ({ theme, category, weight: rnd.int(1, 6) }))
  );
}

export function themeRecords(seed: number): ThemeRecord[] {
  const rnd = new Random(mix(seed, -2));
  return themeInfos(seed).map(({ theme, category }, i) => {
    const previous = rnd.int(40, 600);
    // A third rising (at least +12%), a third flat (within 4%), a third falling (at least -12%).
    const factor = [1.12 + rnd.next() * 0.9, 0.96 + rnd.next() * 0.08, 0.4 + rnd.next() * 0.48][
      i % 3
    ];
    return {
      type: "theme",
      slug: theme.slug,
      category: category.slug,
      name: theme.name,
      summary: theme.summary,
      mentions_30d: Math.round(previous * factor),
      mentions_prev_30d: previous,
    };
  });
}

// ---- Opportunities ---------------------------------------------------------------------------

export function externalId(i: number): string {
  return `demo-${String(i + 1).padStart(7, "0")}`;
}

/** The first draws of opportunity i: its theme and score (also used to link blog posts). */
export function opportunityCore(rnd: Random, themes: ThemeInfo[], totalWeight: number) {
  let w = rnd.next() * totalWeight;
  let info = themes[themes.length - 1];
  for (const t of themes) {
    w -= t.weight;
    if (w < 0) {
      info = t;
      break;
    }
  }
  const score = clamp(56 + rnd.normal(15), 0, 100);
  return { info, score };
}

function sourceUrl(rnd: Random, platform: string, channel: string): string | null {
  if (rnd.chance(0.1)) return null;
  const id = rnd.int(100000, 99999999);
  switch (platform) {
    case "reddit":
      return `https://www.reddit.com/r/${channel}/comments/${id.toString(36)}/`;
    case "hackernews":
      return `https://news.ycombinator.com/item?id=${id + 40000000}`;
    case "producthunt":
      return `https://www.producthunt.com/discussions/${id.toString(36)}`;
    case "stackexchange":
      return channel === "stackoverflow"
        ? `https://stackoverflow.com/questions/${id}`
        : `https://${channel}.stackexchange.com/questions/${id}`;
    case "indiehackers":
      return `https://www.indiehackers.com/post/${id.toString(36)}`;
    default:
      return `https://github.com/discussions/${id}`;
  }
}

export function opportunityAt(
  seed: number,
  i: number,
  themes: ThemeInfo[],
  totalWeight: number,
): OpportunityRecord {
  const rnd = new Random(mix(seed, i));
  const { info, score } = opportunityCore(rnd, themes, totalWeight);
  const { category, theme } = info;

  let platform = PLATFORMS[PLATFORMS.length - 1];
  let w = rnd.next() * 100;
  for (const p of PLATFORMS) {
    w -= p.weight;
    if (w < 0) {
      platform = p;
      break;
    }
  }
  const channel = rnd.pick(platform.channels.length ? platform.channels : category.subreddits);

  const audience = rnd.pick(category.audiences);
  const job = rnd.pick(theme.jobs);
  const competitor = rnd.pick(category.competitors);
  const values = {
    audience,
    job,
    competitor,
    channel: platform.name === "reddit" ? `r/${channel}` : channel,
    adj: rnd.pick(ADJECTIVES),
    product: rnd.pick(PRODUCTS),
    workaround: rnd.pick(WORKAROUNDS),
    complaint: rnd.pick(COMPLAINTS),
    hours: rnd.int(2, 12),
    price: `$${rnd.pick([9, 15, 19, 29, 49, 99])}`,
  };
  const title = withArticles(fill(rnd.pick(TITLES), values));

  const sentences = [fill(rnd.pick(NARRATIVE_OPENERS), values)];
  const middles = rnd.sample(NARRATIVE_MIDDLES, rnd.int(1, 3));
  for (const m of middles) sentences.push(fill(m, values));
  sentences.push(`${theme.summary}.`);
  for (const [word, perTenThousand] of RARE_WORDS) {
    if (rnd.next() * 10000 < perTenThousand) sentences.push(RARE_SENTENCES[word]);
  }
  sentences.push(fill(rnd.pick(NARRATIVE_CLOSERS), values));

  const pain = clamp(score / 10 + rnd.normal(1.2), 0, 10);
  const wtp = clamp(score / 10 - 0.5 + rnd.normal(1.5), 0, 10);
  const difficulty = clamp(7 - score / 25 + rnd.normal(1.8), 0, 10);
  const sustainability = clamp(score / 11 + rnd.normal(1.5), 0, 10);
  const verdict = score + rnd.normal(5);
  const recommendation = verdict >= 70 ? "Build" : verdict >= 45 ? "Validate" : "Skip";

  const createdAt = ANCHOR - Math.floor(rnd.next() * 180 * DAY);
  const evidence: EvidenceRecord[] = [];
  const quoteCount = rnd.int(1, 5);
  const quoteTemplates = rnd.sample(QUOTES, quoteCount);
  for (let q = 0; q < quoteCount; q++) {
    const qValues = {
      ...values,
      job: rnd.pick(theme.jobs),
      workaround: rnd.pick(WORKAROUNDS),
      complaint: rnd.pick(COMPLAINTS),
      hours: rnd.int(2, 15),
      k: rnd.int(2, 40),
    };
    let quote = fill(quoteTemplates[q], qValues);
    if (rnd.chance(0.25)) {
      quote += " " + fill(rnd.pick(PERSONAL_BITS), {
        name: rnd.pick(PEOPLE),
        domain: rnd.pick(DOMAINS),
        digits: String(rnd.int(0, 9999)).padStart(4, "0"),
      });
    }
    const quotePlatform = q === 0 || rnd.chance(0.7) ? platform : rnd.pick(PLATFORMS);
    const quoteChannel = quotePlatform === platform
      ? channel
      : rnd.pick(quotePlatform.channels.length ? quotePlatform.channels : category.subreddits);
    evidence.push({
      quote,
      platform: quotePlatform.name,
      channel_name: quoteChannel,
      source_url: sourceUrl(rnd, quotePlatform.name, quoteChannel),
      posted_at: new Date(createdAt - Math.floor(rnd.next() * 30 * DAY)).toISOString(),
    });
  }
  const low = rnd.int(20, 400);

  return {
    type: "opportunity",
    external_id: externalId(i),
    theme: theme.slug,
    platform: platform.name,
    channel_name: channel,
    title,
    recommendation,
    score,
    pain_point_intensity: pain,
    willingness_to_pay_score: wtp,
    tech_difficulty: difficulty,
    sustainability_score: sustainability,
    target_audience: audience.charAt(0).toUpperCase() + audience.slice(1),
    monetization_model: rnd.pick(MONETIZATION),
    evidence_count: quoteCount + (rnd.chance(0.3) ? rnd.int(1, 20) : 0),
    merged_from_count: rnd.chance(0.6) ? 0 : rnd.int(1, 8),
    is_online_deliverable: rnd.chance(0.85),
    created_at: new Date(createdAt).toISOString(),
    description: sentences.join(" "),
    market_size_estimate: `$${low}M-$${low * rnd.int(2, 5)}M (${category.name}, ` +
      `${rnd.pick(["North America", "Europe", "worldwide", "English-speaking markets"])})`,
    key_features: rnd.sample(category.features, rnd.int(3, 5)),
    competitors: rnd.sample(category.competitors, rnd.int(1, 4)),
    differentiation: rnd.pick(DIFFERENTIATIONS),
    risks: rnd.sample(RISKS, rnd.int(2, 3)),
    evidence,
  };
}
