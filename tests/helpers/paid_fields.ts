/**
 * The paid fields of one opportunity set to values that nothing else holds, so that a test can
 * look for each of them in a public page: the description, market size, features, competitors,
 * differentiation, risks and an evidence quote.
 */
import type { Sql } from "../../src/db/open.ts";
import { bumpDataVersion } from "./app.ts";

/** Paid values no other field holds, written into one record. */
export const PAID = {
  description: "Zq7 secret description of the pain",
  market_size_estimate: "Zq7 market of forty billions",
  key_features: ["Zq7 feature alpha", "Zq7 feature beta"],
  competitors: ["Zq7 Competitor Corp"],
  differentiation: "Zq7 differentiation angle",
  risks: ["Zq7 regulatory risk"],
  quote: "Zq7 I would pay for this tomorrow",
};

/** The thread of PAID's quote: its link is for Pro and Business, never on a public page. */
export const PAID_THREAD = "https://www.reddit.com/r/devops/comments/zq7thread/";

/**
 * A theme's paid figures (the 1-year window, the 30-day count), as text a page would show: values
 * no other field holds.
 */
export const PAID_THEME = {
  growth_1y: 953.3,
  mentions_30d: 7777,
};

/**
 * A theme's public growth windows (up to 90 days: they follow from the 26 weeks its public page
 * shows, docs/DECISIONS.md), values no other field holds.
 */
export const PUBLIC_THEME = {
  growth_7d: 731.9,
  growth_90d: 842.7,
};

/** Writes PAID_THEME and PUBLIC_THEME into theme `id`. */
export async function writePaidThemeFields(sql: Sql, id: number) {
  await sql`
    update themes set growth_7d = ${PUBLIC_THEME.growth_7d}, growth_90d = ${PUBLIC_THEME.growth_90d},
      growth_1y = ${PAID_THEME.growth_1y}, mentions_30d = ${PAID_THEME.mentions_30d}
    where id = ${id}`;
  await bumpDataVersion(sql);
}

/** Every paid value (PAID, PAID_THREAD, PAID_THEME) found in the text of a public page. */
export function publicLeaks(text: string): string[] {
  const theme = Object.values(PAID_THEME).flatMap((n) => [String(n), n.toLocaleString("en-US")]);
  return [
    ...paidIn(text),
    ...[PAID_THREAD, "zq7thread", ...new Set(theme)].filter((v) => text.includes(v)),
  ];
}

/** Writes PAID into opportunity `id` (and one evidence quote), as an import would. */
export async function writePaidFields(sql: Sql, id: number) {
  await sql`
    update opportunities set description = ${PAID.description},
      market_size_estimate = ${PAID.market_size_estimate}, key_features = ${PAID.key_features},
      competitors = ${PAID.competitors}, differentiation = ${PAID.differentiation},
      risks = ${PAID.risks}
    where id = ${id}`;
  await sql`
    insert into evidence_quotes (opportunity_id, platform, channel_name, quote, source_url, posted_at)
    values (${id}, 'reddit', 'devops', ${PAID.quote}, ${PAID_THREAD}, '2026-04-03T00:00:00Z')`;
  await bumpDataVersion(sql);
}

/** Every paid value of PAID found in `text`. */
export function paidIn(text: string): string[] {
  return Object.values(PAID).flat().filter((value) => text.includes(value));
}
