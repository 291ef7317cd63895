/**
 * Deterministic demo data: categories, themes with trend signals, opportunities with evidence
 * and blog posts, generated from a seed as records of the import format and written through the
 * import's batched writer (one code path). Opportunity number i depends only on the seed and i,
 * so a larger seed run starts with the same opportunities as a smaller one.
 *
 * An opportunity agrees with itself (tests/ingest/demo_rules_test.ts states the rules): its
 * title is unique and names its audience and a job of its theme (src/ingest/demo_titles.ts); its
 * channel and its quotes' channels are where that audience talks; its sub-scores come from one
 * latent quality, the score follows from them and the evidence, and the verdict from the score.
 */
import type { EvidenceRecord, ImportRecord, OpportunityRecord, ThemeRecord } from "./records.ts";
import {
  type Community,
  COMPLAINTS,
  DIFFERENTIATIONS,
  DOMAINS,
  MONETIZATION,
  NARRATIVE_CLOSERS,
  NARRATIVE_MIDDLES,
  NARRATIVE_OPENERS,
  PEOPLE,
  PERSONAL_BITS,
  QUOTES,
  RARE_SENTENCES,
  RARE_WORDS,
  REGIONS,
  RISKS,
} from "./demo_words.ts";
import { mix, Random } from "./demo_random.ts";
import { fill, type ThemeInfo, titleAt, type TitleChoice, titleThemes } from "./demo_titles.ts";

export { mix, Random } from "./demo_random.ts";
export type { ThemeInfo } from "./demo_titles.ts";

/** One record of the import format. */
export type DemoRecord = ImportRecord;

export const DEFAULT_OPPORTUNITIES = 2000;
export const DEFAULT_SEED = 20260519;
/** Every date of the demo data is relative to this instant, never to the clock. */
export const ANCHOR = Date.parse("2026-11-01T00:00:00Z");
/** Scheduled articles are published on this date, far enough away to stay unpublished. */
export const SCHEDULED_AT = "2099-01-01T08:00:00Z";

export const DAY = 86_400_000;

function clamp(value: number, min: number, max: number): number {
  return Math.max(min, Math.min(max, Math.round(value)));
}

// ---- Categories and themes -------------------------------------------------------------------

/**
 * Every theme with its category and weight (its number of title combinations, which sets its
 * share of the opportunities). The same for every seed; the seed orders the opportunities.
 */
export function themeInfos(_seed?: number): ThemeInfo[] {
  return titleThemes();
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

// ---- Scores ----------------------------------------------------------------------------------

/** The verdict of a score: Build from 70, Validate from 45, Skip below. */
export function verdictOf(score: number): "Build" | "Validate" | "Skip" {
  return score >= 70 ? "Build" : score >= 45 ? "Validate" : "Skip";
}

/**
 * The composite score of the sub-scores (each 0-10) and the evidence: 3 x pain + 3 x
 * willingness to pay + 2 x sustainability + 2 x (10 - tech difficulty), plus an evidence bonus
 * of min(evidence count, 10) - 5, within 0-100.
 */
export function compositeScore(
  s: { pain: number; wtp: number; difficulty: number; sustainability: number; evidence: number },
): number {
  const weighted = 3 * s.pain + 3 * s.wtp + 2 * s.sustainability + 2 * (10 - s.difficulty);
  return clamp(weighted + Math.min(s.evidence, 10) - 5, 0, 100);
}

// ---- Opportunities ---------------------------------------------------------------------------

export function externalId(i: number): string {
  return `demo-${String(i + 1).padStart(7, "0")}`;
}

/** A public thread of the platform in the channel: never a user's profile. */
function sourceUrl(rnd: Random, [platform, channel]: Community): string | null {
  if (rnd.chance(0.1)) return null;
  const id = rnd.int(100000, 99999999);
  switch (platform) {
    case "reddit":
      return `https://www.reddit.com/r/${channel}/comments/${id.toString(36)}/`;
    case "hackernews":
      return `https://news.ycombinator.com/item?id=${id + 40000000}`;
    case "producthunt":
      return channel === "Launches"
        ? `https://www.producthunt.com/posts/${id.toString(36)}`
        : `https://www.producthunt.com/discussions/${id.toString(36)}`;
    case "stackexchange":
      return ["stackoverflow", "serverfault", "superuser"].includes(channel)
        ? `https://${channel}.com/questions/${id}`
        : `https://${channel}.stackexchange.com/questions/${id}`;
    case "indiehackers":
      return `https://www.indiehackers.com/post/${id.toString(36)}`;
    default:
      return `https://github.com/orgs/community/discussions/${id}`;
  }
}

/** How a narrative names a channel: "r/freelance", "Stack Overflow", "Ask HN". */
function channelLabel([platform, channel]: Community): string {
  switch (platform) {
    case "reddit":
      return `r/${channel}`;
    case "producthunt":
      return `Product Hunt ${channel.toLowerCase()}`;
    case "stackexchange":
      return channel === "stackoverflow"
        ? "Stack Overflow"
        : channel === "serverfault"
        ? "Server Fault"
        : `the ${channel} Stack Exchange`;
    case "indiehackers":
      return `Indie Hackers (${channel})`;
    case "github":
      return `GitHub ${channel}`;
    default:
      return channel;
  }
}

/** How much of a row's own draws its scores keep, beside its idea's quality. */
const ROW_SPREAD = 0.1;

/**
 * The latent quality of an idea, one theme's job for one audience, whatever its wording: drawn
 * from the seed and the idea alone (mean 56, spread 17: the rows' scores spread as widely as
 * when each row drew its own quality).
 */
function ideaQuality(seed: number, choice: TitleChoice): number {
  const { info: { theme }, audience, job } = choice;
  let idea = mix(seed, -7_000_000);
  for (const char of `${theme.slug}|${audience}|${job}`) idea = mix(idea, char.charCodeAt(0));
  return 56 + new Random(idea).normal(17);
}

export function opportunityAt(
  seed: number,
  i: number,
  themes: ThemeInfo[],
  totalWeight: number,
): OpportunityRecord {
  const rnd = new Random(mix(seed, i));
  const choice = titleAt(seed, i, themes, totalWeight);
  const { info: { category, theme }, audience, job } = choice;
  const communities = category.communities[audience];
  const community = rnd.pick(communities);
  const [platform, channel] = community;

  const values = {
    audience,
    job,
    competitor: rnd.pick(theme.competitors),
    channel: channelLabel(community),
    workaround: rnd.pick(theme.workarounds),
    complaint: rnd.pick(COMPLAINTS),
    hours: rnd.int(2, 12),
    price: `$${rnd.pick([9, 15, 19, 29, 49, 99])}`,
  };

  const sentences = [fill(rnd.pick(NARRATIVE_OPENERS), values)];
  const middles = rnd.sample(NARRATIVE_MIDDLES, rnd.int(1, 3));
  // One sentence about the rival is enough: two would name the same one twice.
  const rival = middles.find((m) => m.includes("{competitor}"));
  for (const m of middles) {
    if (m === rival || !m.includes("{competitor}")) sentences.push(fill(m, values));
  }
  sentences.push(`${theme.summary}.`);
  for (const [word, perTenThousand] of RARE_WORDS) {
    if (rnd.next() * 10000 < perTenThousand) sentences.push(RARE_SENTENCES[word]);
  }
  sentences.push(fill(rnd.pick(NARRATIVE_CLOSERS), values));

  // One latent quality drives every sub-score, so that they agree with each other. It is the
  // idea's (its theme, audience and job), so that the rewordings of one idea score alike; each
  // row adds a little of its own. The row's draws stay where they were, at a smaller scale, so
  // that every text after them is the same.
  const quality = ideaQuality(seed, choice) + ROW_SPREAD * rnd.normal(15);
  const pain = clamp(quality / 10 + ROW_SPREAD * rnd.normal(1.2), 0, 10);
  const wtp = clamp(quality / 10 - 0.5 + ROW_SPREAD * rnd.normal(1.5), 0, 10);
  const difficulty = clamp(7 - quality / 25 + ROW_SPREAD * rnd.normal(1.8), 0, 10);
  const sustainability = clamp(quality / 11 + ROW_SPREAD * rnd.normal(1.5), 0, 10);

  const createdAt = ANCHOR - Math.floor(rnd.next() * 180 * DAY);
  const evidence: EvidenceRecord[] = [];
  const quoteCount = rnd.int(1, 5);
  const quoteTemplates = rnd.sample(QUOTES, quoteCount);
  for (let q = 0; q < quoteCount; q++) {
    const qValues = {
      ...values,
      job: rnd.pick(theme.jobs),
      workaround: rnd.pick(theme.workarounds),
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
    // The first quote is from the opportunity's channel, the others mostly too, else from
    // another place where the same audience talks.
    const where = q === 0 || rnd.chance(0.7) ? community : rnd.pick(communities);
    evidence.push({
      quote,
      platform: where[0],
      channel_name: where[1],
      source_url: sourceUrl(rnd, where),
      posted_at: new Date(createdAt - Math.floor(rnd.next() * 30 * DAY)).toISOString(),
    });
  }
  const evidenceCount = quoteCount + (rnd.chance(0.3) ? rnd.int(1, 20) : 0);
  const score = compositeScore({
    pain,
    wtp,
    difficulty,
    sustainability,
    evidence: evidenceCount,
  });
  const low = rnd.int(20, 400);
  const region = choice.place?.region ?? rnd.pick(REGIONS);

  return {
    type: "opportunity",
    external_id: externalId(i),
    theme: theme.slug,
    platform,
    channel_name: channel,
    title: choice.title,
    recommendation: verdictOf(score),
    score,
    pain_point_intensity: pain,
    willingness_to_pay_score: wtp,
    tech_difficulty: difficulty,
    sustainability_score: sustainability,
    target_audience: audience.charAt(0).toUpperCase() + audience.slice(1),
    monetization_model: rnd.pick(MONETIZATION),
    evidence_count: evidenceCount,
    merged_from_count: rnd.chance(0.6) ? 0 : rnd.int(1, 8),
    is_online_deliverable: rnd.chance(0.85),
    created_at: new Date(createdAt).toISOString(),
    description: sentences.join(" "),
    market_size_estimate: `$${low}M-$${low * rnd.int(2, 5)}M (${category.name}, ${region})`,
    key_features: rnd.sample(theme.features, rnd.int(3, 5)),
    competitors: rnd.sample(theme.competitors, rnd.int(1, 3)),
    differentiation: rnd.pick(DIFFERENTIATIONS),
    risks: rnd.sample(RISKS, rnd.int(2, 3)),
    evidence,
  };
}
