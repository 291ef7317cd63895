/**
 * Deterministic demo data: categories, themes with trend signals, opportunities with evidence
 * and blog posts, generated from a seed as records of the import format and written through the
 * import's batched writer (one code path). Opportunity number i depends only on the seed and i,
 * so a larger seed run starts with the same opportunities as a smaller one.
 */
import type { Sql } from "../db/open.ts";
import {
  type BlogPostRecord,
  type CategoryRecord,
  ContentWriter,
  type EvidenceRecord,
  type ImportRecord,
  type ImportSummary,
  type OpportunityRecord,
  type ThemeRecord,
} from "./import.ts";
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

const DAY = 86_400_000;

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
function mix(a: number, b: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x632be5ab, 0xc2b2ae35);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

class Random {
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

interface ThemeInfo {
  theme: DemoTheme;
  category: DemoCategory;
  weight: number;
}

function themeInfos(seed: number): ThemeInfo[] {
  const rnd = new Random(mix(seed, -1));
  return CATEGORIES.flatMap((category) =>
    category.themes.map((theme) => ({ theme, category, weight: rnd.int(1, 6) }))
  );
}

function themeRecords(seed: number): ThemeRecord[] {
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

function externalId(i: number): string {
  return `demo-${String(i + 1).padStart(7, "0")}`;
}

/** The first draws of opportunity i: its theme and score (also used to link blog posts). */
function opportunityCore(rnd: Random, themes: ThemeInfo[], totalWeight: number) {
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

function opportunityAt(
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

// ---- Blog posts ------------------------------------------------------------------------------

interface Topic {
  slug: string;
  title: string;
  excerpt: string;
  theme?: string;
  tags: string[];
  /** Links the article to a strong opportunity of its theme. */
  related: boolean;
  state?: "draft" | "scheduled";
}

const TOPICS: Topic[] = [
  {
    slug: "how-we-score-opportunities",
    title: "How we score opportunities",
    excerpt: "The five signals behind every score, and why a high score is not a verdict.",
    tags: ["methodology"],
    related: false,
  },
  {
    slug: "late-invoices-are-a-product",
    title: "Late invoices are a product, not a chore",
    excerpt: "Freelancers keep asking for a polite, persistent way to get paid on time.",
    theme: "late-invoices",
    tags: ["finance", "freelance"],
    related: true,
  },
  {
    slug: "the-quiet-cost-of-flaky-ci",
    title: "The quiet cost of flaky CI",
    excerpt: "Random test failures teach teams to ignore red builds. There is room for a fix.",
    theme: "flaky-ci",
    tags: ["developer-tools", "ci"],
    related: true,
  },
  {
    slug: "content-decay-nobody-budgets-for",
    title: "Content decay: the SEO problem nobody budgets for",
    excerpt: "Old articles lose traffic slowly enough that no one notices until signups fall.",
    theme: "content-decay",
    tags: ["marketing", "seo"],
    related: true,
  },
  {
    slug: "inventory-sync-for-small-shops",
    title: "Inventory sync for small shops that sell everywhere",
    excerpt: "Overselling across marketplaces is the most common complaint of small sellers.",
    theme: "inventory-sync",
    tags: ["ecommerce"],
    related: true,
  },
  {
    slug: "from-meeting-notes-to-action-items",
    title: "From meeting notes to action items",
    excerpt: "Transcripts are solved. Follow-through is not, and that is where teams would pay.",
    theme: "meeting-overload",
    tags: ["productivity", "ai"],
    related: false,
  },
  {
    slug: "what-no-shows-cost-small-clinics",
    title: "What appointment no-shows cost small clinics",
    excerpt: "Deposits, reminders and waitlists: the small practice playbook, productized.",
    theme: "appointment-no-shows",
    tags: ["health", "scheduling"],
    related: true,
  },
  {
    slug: "teachers-want-their-evenings-back",
    title: "Teachers want their evenings back",
    excerpt: "Grading and feedback take more hours than teaching itself for many teachers.",
    theme: "grading-load",
    tags: ["education", "ai"],
    related: true,
  },
  {
    slug: "quotes-from-the-job-site",
    title: "Quotes from the job site",
    excerpt: "The first tradesperson to send a clear quote usually wins the job.",
    theme: "job-quoting",
    tags: ["local-services", "mobile"],
    related: true,
  },
  {
    slug: "candidate-screening-at-startup-scale",
    title: "Candidate screening at startup scale",
    excerpt: "Hundreds of applications per role, many generated: small teams need a filter.",
    theme: "candidate-screening",
    tags: ["hr", "recruiting"],
    related: false,
  },
  {
    slug: "llm-bills-are-the-new-cloud-bills",
    title: "LLM bills are the new cloud bills",
    excerpt: "Cost visibility for language model features is where cloud FinOps was in 2015.",
    theme: "llm-cost-control",
    tags: ["ai", "finops"],
    related: true,
  },
  {
    slug: "why-pdf-extraction-is-still-hard",
    title: "Why PDF extraction is still hard",
    excerpt: "Tables, scans and layouts keep defeating generic tools. Niche extractors win.",
    theme: "document-extraction",
    tags: ["data", "ai"],
    related: true,
  },
  {
    slug: "turning-returns-into-exchanges",
    title: "Turning returns into exchanges",
    excerpt: "A draft on exchange-first return flows for small shops.",
    theme: "returns-handling",
    tags: ["ecommerce"],
    related: true,
    state: "draft",
  },
  {
    slug: "async-standups-that-work",
    title: "Async standups that actually work",
    excerpt: "What remote teams want from a standup that is not a meeting.",
    theme: "async-standups",
    tags: ["productivity", "remote"],
    related: false,
    state: "scheduled",
  },
];

function methodologyBody(): string {
  return `Every opportunity in the catalogue starts as a cluster of community posts: people
describing a problem in their own words on Reddit, Hacker News, Product Hunt, Stack Exchange,
Indie Hackers and GitHub. We rewrite each cluster as a product idea and score it.

## The five signals

| Signal | Range | What it measures |
|---|---|---|
| Pain point intensity | 0-10 | How much the problem hurts, in time or money |
| Willingness to pay | 0-10 | Whether people already pay for workarounds |
| Tech difficulty | 0-10 | How hard a credible first version is to build |
| Sustainability | 0-10 | Whether the need recurs and grows |
| Composite score | 0-100 | The weighted sum, adjusted for evidence volume |

## From score to recommendation

- **Build**: a strong, recurring pain with clear willingness to pay.
- **Validate**: promising, but one signal is weak; talk to ten customers first.
- **Skip**: the pain is real but thin, or the market is owned.

A high score is a reason to look, not a verdict. Read the evidence and the risks of every
opportunity before you commit.

## What we never publish

1. Names, handles, e-mail addresses or phone numbers of the people quoted.
2. Verbatim quotes in articles: every article is our own synthesis.
3. Ideas that cannot be traced back to at least one public thread.

Questions about the method? The [API reference](/api/v1/openapi.json) documents every field.
`;
}

function topicBody(topic: Topic, info: ThemeInfo, mentions: ThemeRecord): string {
  const { theme, category } = info;
  const change = Math.round(
    (mentions.mentions_30d - mentions.mentions_prev_30d) * 100 / mentions.mentions_prev_30d,
  );
  const trend = change >= 10 ? `up ${change}%` : change <= -10 ? `down ${-change}%` : "flat";
  const [audience1, audience2, audience3] = category.audiences;
  const [job1, job2, job3] = theme.jobs;
  const prices = ["$12-$30", "$25-$99", "$49-$199", "Free tier, then $20+", "Custom pricing"];
  const rows = category.competitors.slice(0, 4).map((c, i) =>
    `| ${c} | ${prices[i % prices.length]} / month | ${COMPLAINTS[i % COMPLAINTS.length]} |`
  ).join("\n");
  const [refText, refUrl] = category.reference;
  return `_${topic.excerpt}_

${theme.summary}. Mentions of the theme *${theme.name}* were ${trend} over the last 30
days (${mentions.mentions_30d} against ${mentions.mentions_prev_30d}), which is why it is on our
desk this week.

## Who feels the pain

- **${capitalize(audience1)}**, who need to ${job1} between paid work.
- **${capitalize(audience2)}**, who have tried to ${job2} with generic tools and gave up.
- **${capitalize(audience3)}**, for whom a mistake here costs real money.

## What people use today

| Tool | Price | What is missing |
|---|---|---|
${rows}

The pattern is familiar: the incumbents serve larger customers well, and the small end of the
market improvises with spreadsheets and reminders.

## A four-week MVP

1. Week one: connect to the one system of record the audience already uses.
2. Week two: ${job1}, end to end, for a single user.
3. Week three: ${job3}, with sensible defaults instead of settings.
4. Week four: pricing, onboarding, and ten design partners from the threads we track.

## Risks worth naming

- ${RISKS[0]}.
- ${RISKS[4]}.
- ${RISKS[6]}.

## Verdict

There is a real, recurring need in *${category.name}* here, and the winning product is narrow.
Before you build, read ${
    mdLink(refText, refUrl)
  } and our note on [how we score opportunities](/blog/how-we-score-opportunities).
`;
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function mdLink(text: string, url: string): string {
  return `[${text}](${url})`;
}

function blogRecords(
  seed: number,
  count: number,
  themes: ThemeInfo[],
  totalWeight: number,
  themeRows: ThemeRecord[],
): BlogPostRecord[] {
  let published = 0;
  const publishedCount = TOPICS.filter((t) => !t.state).length;
  return TOPICS.map((topic) => {
    const info = themes.find((t) => t.theme.slug === topic.theme);
    const mentions = themeRows.find((t) => t.slug === topic.theme);
    const body = info && mentions ? topicBody(topic, info, mentions) : methodologyBody();
    let publishedAt: string | null = null;
    if (topic.state === "scheduled") publishedAt = SCHEDULED_AT;
    else if (!topic.state) {
      // Weekly, the newest a week before the anchor.
      publishedAt = new Date(ANCHOR - (publishedCount - published++) * 7 * DAY + 8 * 3_600_000)
        .toISOString();
    }
    return {
      type: "blog_post",
      slug: topic.slug,
      title: topic.title,
      excerpt: topic.excerpt,
      body_md: `# ${topic.title}\n\n${body}`,
      cover_image_url: topic.state
        ? null
        : `https://images.oppintel.example/blog/${topic.slug}.jpg`,
      tags: topic.tags,
      related_opportunity: topic.related && topic.theme
        ? strongOpportunityOf(seed, count, topic.theme, themes, totalWeight)
        : null,
      published_at: publishedAt,
    };
  });
}

/** The external_id of the first opportunity of `theme` scoring 65 or more, if any. */
function strongOpportunityOf(
  seed: number,
  count: number,
  theme: string,
  themes: ThemeInfo[],
  totalWeight: number,
): string | null {
  for (let i = 0; i < count; i++) {
    const { info, score } = opportunityCore(new Random(mix(seed, i)), themes, totalWeight);
    if (info.theme.slug === theme && score >= 65) return externalId(i);
  }
  return null;
}

// ---- Public API ------------------------------------------------------------------------------

/** The demo data as import records (categories, themes, opportunities, blog posts), by seed. */
export function* generateDemoRecords(
  options: { opportunities?: number; seed?: number } = {},
): Generator<DemoRecord> {
  const count = options.opportunities ?? DEFAULT_OPPORTUNITIES;
  const seed = options.seed ?? DEFAULT_SEED;
  for (const c of CATEGORIES) {
    const record: CategoryRecord = {
      type: "category",
      slug: c.slug,
      name: c.name,
      description: c.description,
    };
    yield record;
  }
  const themeRows = themeRecords(seed);
  yield* themeRows;
  const themes = themeInfos(seed);
  const totalWeight = themes.reduce((sum, t) => sum + t.weight, 0);
  for (let i = 0; i < count; i++) yield opportunityAt(seed, i, themes, totalWeight);
  yield* blogRecords(seed, count, themes, totalWeight, themeRows);
}

const PROGRESS_EVERY = 10_000;
/** From this many opportunities, indexes are built once at the end instead of row by row. */
const DEFER_INDEXES_FROM = 50_000;

/**
 * Writes the demo data through the import's batched writer in one transaction, and bumps the
 * data version when anything changed. Safe to run again: records are upserted.
 */
export async function seedDemo(
  sql: Sql,
  options: {
    opportunities?: number;
    seed?: number;
    onProgress?: (done: number, total: number) => void;
  } = {},
): Promise<ImportSummary> {
  const total = options.opportunities ?? DEFAULT_OPPORTUNITIES;
  return await sql.begin(async (tx) => {
    const writer = await ContentWriter.open(tx as unknown as Sql);
    if (total >= DEFER_INDEXES_FROM) await writer.deferIndexes({ uniqueExternalIds: true });
    let lines = 0;
    let done = 0;
    for (const record of generateDemoRecords({ opportunities: total, seed: options.seed })) {
      lines++;
      writer.add(record);
      if (record.type === "opportunity" && ++done % PROGRESS_EVERY === 0) {
        options.onProgress?.(done, total);
      }
      await writer.throttle();
    }
    const changed = await writer.finish();
    options.onProgress?.(done, total);
    return { lines, ...writer.counts, changed };
  });
}

/** True when the database holds no categories and no opportunities. */
export async function isContentEmpty(sql: Sql): Promise<boolean> {
  const [row] = await sql<{ empty: boolean }[]>`
    select not exists (select 1 from categories) and not exists (select 1 from opportunities)
      as empty`;
  return row.empty;
}
