/** The import tests' good fixture, and what an import can touch, to compare before and after. */
import type { Sql } from "../../src/db/open.ts";

export const GOOD = new URL("../fixtures/import/good.jsonl", import.meta.url).pathname;

export async function goodLines(): Promise<string[]> {
  return (await Deno.readTextFile(GOOD)).split("\n");
}

/** Everything an import can touch, to compare a database before and after. */
export async function snapshot(sql: Sql): Promise<unknown> {
  return {
    categories: await sql`select * from categories order by id`,
    themes: await sql`select * from themes order by id`,
    opportunities: await sql`select * from opportunities order by id`,
    evidence: await sql`select * from evidence_quotes order by id`,
    blog: await sql`select * from blog_posts order by id`,
    version: await sql`select version, changed_at from data_version`,
  };
}

export async function version(sql: Sql): Promise<number> {
  const [{ v }] = await sql<{ v: number }[]>`select version::int as v from data_version`;
  return v;
}

/** An opportunity line that stands on its own (its theme and channel are in the good file). */
export const OPPORTUNITY = {
  type: "opportunity",
  external_id: "bad-1",
  theme: "flaky-ci",
  platform: "reddit",
  channel_name: "webdev",
  title: "A bad line",
  recommendation: "Build",
  score: 50,
  pain_point_intensity: 5,
  willingness_to_pay_score: 5,
  tech_difficulty: 5,
  sustainability_score: 5,
  is_online_deliverable: true,
  created_at: "2026-05-01T00:00:00Z",
};

/** Import lines of one category `c` with one theme `t`, and an opportunity of `t` per text. */
export function oneThemeLines(
  texts: { external_id: string; title: string; description: string; score: number; day: string }[],
): Record<string, unknown>[] {
  return [
    { type: "category", slug: "c", name: "C", description: "" },
    {
      type: "theme",
      slug: "t",
      category: "c",
      name: "T",
      summary: "",
      mentions_30d: 1,
      mentions_prev_30d: 1,
    },
    ...texts.map(({ external_id, title, description, score, day }) => ({
      type: "opportunity",
      external_id,
      theme: "t",
      platform: "reddit",
      channel_name: "x",
      title,
      description,
      recommendation: "Build",
      score,
      pain_point_intensity: 5,
      willingness_to_pay_score: 5,
      tech_difficulty: 5,
      sustainability_score: 5,
      is_online_deliverable: true,
      created_at: `${day}T10:00:00Z`,
    })),
  ];
}
