/**
 * What the randomised list sweeps draw from: a small deterministic generator (mulberry32), so that
 * a failure can be replayed from its seed, and the filter values the database holds (with case
 * variants of platforms, since the platform filter ignores case, and a value that matches nothing).
 */
import type { Sql } from "../../src/db/open.ts";
import { mulberry32 } from "../../src/ingest/demo_random.ts";

/** mulberry32: numbers in [0, 1) from `seed`, the same every run (the demo data's). */
export const random = mulberry32;

/** The filter values a sweep picks from. */
export interface Values {
  platforms: string[];
  channels: string[];
  categories: string[];
  themes: string[];
}

/** The platforms, channels, categories and themes of the database, each with "none" beside them. */
export async function valuesOf(sql: Sql): Promise<Values> {
  const platforms = await sql<{ v: string }[]>`select distinct platform as v from opportunities`;
  const channels = await sql<{ v: string }[]>`select distinct channel_name as v from opportunities`;
  const categories = await sql<{ v: string }[]>`select slug as v from categories`;
  const themes = await sql<{ v: string }[]>`select slug as v from themes`;
  return {
    platforms: [...platforms.map((r) => r.v), ...platforms.map((r) => r.v.toUpperCase()), "none"],
    channels: [...channels.map((r) => r.v), "none"],
    categories: [...categories.map((r) => r.v), "none"],
    themes: [...themes.map((r) => r.v), "none"],
  };
}
