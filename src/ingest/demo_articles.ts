/**
 * The demo articles: a methodology piece and one analysis per topic, each linked to a strong
 * opportunity of its theme where it says so, with one draft and one scheduled article.
 */
import type { BlogPostRecord, ThemeRecord } from "./records.ts";
import { ANCHOR, DAY, opportunityAt, SCHEDULED_AT, type ThemeInfo } from "./demo.ts";
import { COMPLAINTS, RISKS } from "./demo_words.ts";

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
  const [job1, job2, job3] = theme.jobs;
  const who = [
    (a: string) => `**${capitalize(a)}**, who need to ${job1} between paid work.`,
    (a: string) =>
      `**${capitalize(a)}**, who have tried to ${job2} with generic tools and gave up.`,
    (a: string) => `**${capitalize(a)}**, for whom a mistake here costs real money.`,
  ];
  const audiences = theme.audiences.slice(0, 3).map((a, i) => `- ${who[i](a)}`).join("\n");
  const prices = ["$12-$30", "$25-$99", "$49-$199", "Free tier, then $20+", "Custom pricing"];
  const rows = theme.competitors.map((c, i) =>
    `| ${c} | ${prices[i % prices.length]} / month | ${COMPLAINTS[i % COMPLAINTS.length]} |`
  ).join("\n");
  const [refText, refUrl] = category.reference;
  return `_${topic.excerpt}_

${theme.summary}. Mentions of the theme *${theme.name}* were ${trend} over the last 30
days (${mentions.mentions_30d} against ${mentions.mentions_prev_30d}), which is why it is on our
desk this week.

## Who feels the pain

${audiences}

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

export function blogRecords(
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
      // No cover: an address on a host that does not exist showed a broken image on every page.
      cover_image_url: null,
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
    const o = opportunityAt(seed, i, themes, totalWeight);
    if (o.theme === theme && o.score >= 65) return o.external_id;
  }
  return null;
}
