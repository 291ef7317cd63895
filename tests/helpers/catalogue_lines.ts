/**
 * Import lines (src/ingest/import.ts) of a small hand-made catalogue: one category "c", its themes
 * and their opportunities, each with plain defaults beside the fields a test gives (reddit,
 * channel "x", Build, every sub-score 5, online, created in May 2026, a score of 50 + its place).
 */

/** A theme's slug, or its slug with the fields that differ from the defaults. */
export type ThemeSpec = string | ({ slug: string } & Record<string, unknown>);

/** An opportunity: what the test is about, and any field that differs from the defaults. */
export type OpportunitySpec = {
  external_id: string;
  theme: string;
  title: string;
  description: string;
} & Record<string, unknown>;

export function catalogueLines(themes: ThemeSpec[], opportunities: OpportunitySpec[]): string[] {
  return [
    { type: "category", slug: "c", name: "C", description: "" },
    ...themes.map((theme) => {
      const fields = typeof theme === "string" ? { slug: theme } : theme;
      return {
        type: "theme",
        category: "c",
        name: fields.slug,
        summary: "",
        mentions_30d: 1,
        mentions_prev_30d: 1,
        ...fields,
      };
    }),
    ...opportunities.map((opportunity, i) => ({
      type: "opportunity",
      platform: "reddit",
      channel_name: "x",
      recommendation: "Build",
      score: 50 + i,
      pain_point_intensity: 5,
      willingness_to_pay_score: 5,
      tech_difficulty: 5,
      sustainability_score: 5,
      is_online_deliverable: true,
      created_at: `2026-05-0${1 + (i % 9)}T10:00:00Z`,
      ...opportunity,
    })),
  ].map((r) => JSON.stringify(r));
}
