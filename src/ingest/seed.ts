/**
 * Filling a database with the demo data: the generated records written through the content
 * writer in one transaction, and on a service's first start, the demo account and its key.
 */
import type { Sql } from "../db/open.ts";
import { createAccount, findAccountByEmail } from "../accounts/accounts.ts";
import { createApiKey } from "../accounts/api_keys.ts";
import type { CategoryRecord } from "./records.ts";
import { withContentWriter, type WriteSummary } from "./writer.ts";
import {
  DEFAULT_OPPORTUNITIES,
  DEFAULT_SEED,
  type DemoRecord,
  opportunityAt,
  themeInfos,
  themeRecords,
} from "./demo.ts";
import { blogRecords } from "./demo_articles.ts";
import { agreeingThemes, themeMentionRecords } from "./demo_trends.ts";
import { CATEGORIES } from "./demo_words.ts";

/**
 * The demo data as import records (categories, themes with two years of weekly mention points,
 * opportunities, blog posts), by seed.
 */
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
  const generated = themeRecords(seed);
  // The themes' 30-day figures as their points give them (src/ingest/demo_trends.ts).
  const themeRows = agreeingThemes(seed, generated);
  yield* themeRows;
  yield* themeMentionRecords(seed, generated);
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
): Promise<WriteSummary> {
  const total = options.opportunities ?? DEFAULT_OPPORTUNITIES;
  return await withContentWriter(sql, async (writer) => {
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
    options.onProgress?.(done, total);
    return lines;
  });
}

/** True when the database holds no categories and no opportunities. */
export async function isContentEmpty(sql: Sql): Promise<boolean> {
  const [row] = await sql<{ empty: boolean }[]>`
    select not exists (select 1 from categories) and not exists (select 1 from opportunities)
      as empty`;
  return row.empty;
}

/** The account that a first start of the service creates, with a key printed once. */
export const DEMO_EMAIL = "demo@oppintel.local";

/** What a first start made: the demo key to print once, and how many opportunities it seeded. */
export interface FirstStart {
  key: string;
  opportunities: number;
}

/**
 * On an empty database: seeds the demo data, creates the verified Pro demo account if needed
 * and a key for it. Does nothing (undefined) when the database already holds content.
 */
export async function seedFirstStart(
  sql: Sql,
  options: { onProgress?: (done: number, total: number) => void } = {},
): Promise<FirstStart | undefined> {
  if (!(await isContentEmpty(sql))) return undefined;
  const summary = await seedDemo(sql, { onProgress: options.onProgress });
  if (!(await findAccountByEmail(sql, DEMO_EMAIL))) {
    await createAccount(sql, { email: DEMO_EMAIL, plan: "pro", verified: true });
  }
  const { key } = await createApiKey(sql, { email: DEMO_EMAIL, name: "demo" });
  return { key, opportunities: summary.opportunities };
}
