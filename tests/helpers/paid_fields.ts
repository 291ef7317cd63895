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

/** Writes PAID into opportunity `id` (and one evidence quote), as an import would. */
export async function writePaidFields(sql: Sql, id: number) {
  await sql`
    update opportunities set description = ${PAID.description},
      market_size_estimate = ${PAID.market_size_estimate}, key_features = ${PAID.key_features},
      competitors = ${PAID.competitors}, differentiation = ${PAID.differentiation},
      risks = ${PAID.risks}
    where id = ${id}`;
  await sql`
    insert into evidence_quotes (opportunity_id, platform, channel_name, quote, posted_at)
    values (${id}, 'reddit', 'devops', ${PAID.quote}, '2026-04-03T00:00:00Z')`;
  await bumpDataVersion(sql);
}

/** Every paid value of PAID found in `text`. */
export function paidIn(text: string): string[] {
  return Object.values(PAID).flat().filter((value) => text.includes(value));
}
