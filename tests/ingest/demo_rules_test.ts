/**
 * The demo data does not contradict itself. The rules, checked on every opportunity of the
 * default 2,000 (and on the titles of a larger run):
 * 1. No title twice (compared case-insensitively).
 * 2. The verdict follows the score: Build from 70, Validate from 45 to 69, Skip below 45.
 * 3. The score follows the sub-scores: score = 3 x pain + 3 x willingness to pay + 2 x
 *    sustainability + 2 x (10 - tech difficulty) + evidence bonus, within 0-100, where the
 *    evidence bonus is min(evidence_count, 10) - 5 (from -4 to +5).
 * 4. The title names its target audience, one of the theme's audiences, and one of its theme's
 *    jobs, and ends a job with one of the theme's outcomes ("... and get paid faster" only where
 *    invoices are chased); key features and competitors are the theme's own.
 * 5. The channel, and the channel of every evidence quote, is a community of the audience on that
 *    platform (a clinic's idea never comes from a yoga subreddit).
 * 6. A quote's source_url is a public thread of its platform (on Reddit, of its subreddit), never
 *    a user's profile.
 * 7. Titles stay distinct at any size: the title combinations are all different texts, and the
 *    first three rounds of them (about 80,000 rows) have no title twice; a title with a place
 *    ("plumbers in Leeds") names the market of that place's region.
 */
import assert from "node:assert/strict";
import { generateDemoRecords } from "../../src/ingest/seed.ts";
import type { OpportunityRecord } from "../../src/ingest/records.ts";
import { CATEGORIES, PLACES } from "../../src/ingest/demo_words.ts";
import { DEFAULT_SEED, opportunityAt, themeInfos } from "../../src/ingest/demo.ts";
import { titleAt, titleOf } from "../../src/ingest/demo_titles.ts";

const opportunities = [...generateDemoRecords()].filter((r) =>
  r.type === "opportunity"
) as OpportunityRecord[];

function repeated(titles: string[]): string[] {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const title of titles.map((t) => t.toLowerCase())) {
    if (seen.has(title)) twice.add(title);
    seen.add(title);
  }
  return [...twice];
}

/** The opportunities breaking a rule, as "external_id: why", at most five of them. */
function breaking(why: (o: OpportunityRecord) => string | undefined): string[] {
  return opportunities.flatMap((o) => {
    const reason = why(o);
    return reason ? [`${o.external_id}: ${reason}`] : [];
  }).slice(0, 5);
}

Deno.test("demo data: no title twice among the 2,000 opportunities", () => {
  assert.equal(opportunities.length, 2000);
  assert.deepEqual(repeated(opportunities.map((o) => o.title)).slice(0, 5), []);
});

Deno.test("demo data: the verdict follows the score", () => {
  assert.deepEqual(
    breaking((o) => {
      const rule = o.score >= 70 ? "Build" : o.score >= 45 ? "Validate" : "Skip";
      return o.recommendation === rule ? undefined : `${o.recommendation} at ${o.score}`;
    }),
    [],
  );
});

Deno.test("demo data: the score follows the sub-scores and the evidence", () => {
  assert.deepEqual(
    breaking((o) => {
      const bonus = Math.min(o.evidence_count ?? 0, 10) - 5;
      const expected = Math.max(
        0,
        Math.min(
          100,
          3 * o.pain_point_intensity! + 3 * o.willingness_to_pay_score! +
            2 * o.sustainability_score! + 2 * (10 - o.tech_difficulty!) + bonus,
        ),
      );
      return o.score === expected ? undefined : `score ${o.score}, rule ${expected}`;
    }),
    [],
  );
});

const THEMES = new Map(CATEGORIES.flatMap((c) => c.themes.map((t) => [t.slug, { ...t, c }])));

Deno.test("demo data: the title, audience, features and rivals fit the theme", () => {
  assert.deepEqual(
    breaking((o) => {
      const theme = THEMES.get(o.theme)!;
      const title = o.title.toLowerCase();
      const audience = String(o.target_audience).toLowerCase();
      if (!title.includes(audience)) return `"${o.title}" misses ${audience}`;
      if (!theme.audiences.some((a) => a.toLowerCase() === audience)) return `${audience}`;
      const endings = theme.jobs.flatMap((j) => theme.outcomes.map((out) => `${j} ${out}`));
      if (!endings.some((e) => title.includes(e.toLowerCase()))) return `"${o.title}"`;
      const foreign = [...o.key_features ?? [], ...o.competitors ?? []].filter((x) =>
        !theme.features.includes(x) && !theme.competitors.includes(x)
      );
      return foreign.length ? `not of ${o.theme}: ${foreign}` : undefined;
    }),
    [],
  );
});

Deno.test("demo data: channels are where the audience talks, sources are threads", () => {
  const thread: Record<string, RegExp> = {
    reddit: /^https:\/\/www\.reddit\.com\/r\/([\w]+)\/comments\/[a-z0-9]+\/$/,
    hackernews: /^https:\/\/news\.ycombinator\.com\/item\?id=\d+$/,
    producthunt: /^https:\/\/www\.producthunt\.com\/(discussions|posts)\/[a-z0-9]+$/,
    stackexchange: /^https:\/\/([a-z]+)(\.stackexchange)?\.com\/questions\/\d+$/,
    indiehackers: /^https:\/\/www\.indiehackers\.com\/post\/[a-z0-9]+$/,
    github: /^https:\/\/github\.com\/orgs\/community\/discussions\/\d+$/,
  };
  const profile = /\/(u|user|users|@[\w-]+)\/|\/@/;
  assert.deepEqual(
    breaking((o) => {
      const theme = THEMES.get(o.theme)!;
      const audience = theme.audiences.find((a) =>
        a.toLowerCase() === String(o.target_audience).toLowerCase()
      )!;
      const places = theme.c.communities[audience].map(([p, c]) => `${p}/${c}`);
      for (
        const [platform, channel, url] of [
          [o.platform, o.channel_name, undefined],
          ...(o.evidence ?? []).map((e) => [e.platform, e.channel_name, e.source_url]),
        ]
      ) {
        if (!places.includes(`${platform}/${channel}`)) {
          return `${audience} on ${platform}/${channel}`;
        }
        if (!url) continue;
        const match = thread[platform!]?.exec(url);
        if (!match || profile.test(url)) return `${platform} source ${url}`;
        if (platform === "reddit" && match[1] !== channel) return `${url} is not r/${channel}`;
      }
      return undefined;
    }),
    [],
  );
  const urls = opportunities.flatMap((o) => o.evidence ?? []).filter((e) => e.source_url);
  assert.ok(urls.length > opportunities.length, `${urls.length} quotes with a source_url`);
});

Deno.test("demo data: titles stay distinct past the combinations, places name their market", () => {
  const themes = themeInfos(DEFAULT_SEED);
  const total = themes.reduce((sum, t) => sum + t.weight, 0);
  const combos = Array.from({ length: total }, (_, c) => titleOf(themes, c, 0).title);
  assert.deepEqual(repeated(combos).slice(0, 5), [], "every combination is its own text");
  assert.ok(CATEGORIES.every((c) => c.audiences.every((a) => !a.includes(" in "))));
  assert.equal(new Set(PLACES.map(([city]) => city)).size, PLACES.length);
  const titles = Array.from(
    { length: 3 * total },
    (_, i) => titleAt(DEFAULT_SEED, i, themes, total),
  );
  assert.deepEqual(repeated(titles.map((t) => t.title)).slice(0, 5), []);
  for (const i of [total, total + 1, 2 * total + 7, 999_999]) {
    const o = opportunityAt(DEFAULT_SEED, i, themes, total);
    const [city, region] = PLACES.find(([city]) => o.title.includes(` in ${city} `))!;
    assert.ok(
      o.market_size_estimate!.endsWith(`, ${region})`),
      `${city}: ${o.market_size_estimate}`,
    );
  }
});
