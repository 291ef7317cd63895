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
  ANCHOR,
  DAY,
  DEFAULT_OPPORTUNITIES,
  DEFAULT_SEED,
  type DemoRecord,
  opportunityAt,
  SCHEDULED_AT,
  themeInfos,
  themeRecords,
} from "./demo.ts";
import { blogRecords } from "./demo_articles.ts";
import { agreeingThemes, themeMentionRecords } from "./demo_trends.ts";
import { CATEGORIES } from "./demo_words.ts";

const WEEK = 7 * DAY;

/**
 * `record` with its dates moved by `offset` ms (whole weeks, so that a week stays a Monday);
 * an article scheduled for later stays scheduled.
 */
function shifted(record: DemoRecord, offset: number): DemoRecord {
  if (offset === 0) return record;
  const move = (iso: string) => new Date(Date.parse(iso) + offset).toISOString();
  switch (record.type) {
    case "opportunity":
      return {
        ...record,
        created_at: move(record.created_at),
        evidence: record.evidence?.map((e) => ({ ...e, posted_at: move(e.posted_at) })),
      };
    case "blog_post":
      return record.published_at && record.published_at !== SCHEDULED_AT
        ? { ...record, published_at: move(record.published_at) }
        : record;
    case "theme_mentions":
      return { ...record, date: move(`${record.date}T00:00:00Z`).slice(0, 10) };
    default:
      return record;
  }
}

/**
 * The demo data as import records (categories, themes with two years of weekly mention points,
 * opportunities, blog posts), by seed. With `anchor` (the seed date) every date moves by whole
 * weeks so that the newest week of mentions is the last whole week before it and nothing is
 * dated after it; without, the data is dated as of ANCHOR. Only dates move: every text and
 * number is the seed's.
 */
export function* generateDemoRecords(
  options: { opportunities?: number; seed?: number; anchor?: Date } = {},
): Generator<DemoRecord> {
  const offset = options.anchor ? Math.floor((options.anchor.getTime() - ANCHOR) / WEEK) * WEEK : 0;
  for (const record of datedAsOfAnchor(options)) yield shifted(record, offset);
}

function* datedAsOfAnchor(
  options: { opportunities?: number; seed?: number },
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
    /** The seed date: the data's weeks end there (generateDemoRecords). */
    anchor?: Date;
    onProgress?: (done: number, total: number) => void;
  } = {},
): Promise<WriteSummary> {
  const total = options.opportunities ?? DEFAULT_OPPORTUNITIES;
  return await withContentWriter(sql, async (writer) => {
    if (total >= DEFER_INDEXES_FROM) await writer.deferIndexes({ uniqueExternalIds: true });
    let lines = 0;
    let done = 0;
    for (
      const record of generateDemoRecords({
        opportunities: total,
        seed: options.seed,
        anchor: options.anchor,
      })
    ) {
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
  options: { onProgress?: (done: number, total: number) => void; now?: Date } = {},
): Promise<FirstStart | undefined> {
  if (!(await isContentEmpty(sql))) return undefined;
  // Dated as of today: the demo's weeks end at the seed date, not at a fixed one.
  const anchor = options.now ?? new Date();
  const summary = await seedDemo(sql, { onProgress: options.onProgress, anchor });
  if (!(await findAccountByEmail(sql, DEMO_EMAIL))) {
    await createAccount(sql, { email: DEMO_EMAIL, plan: "pro", verified: true });
  }
  const { key } = await createApiKey(sql, { email: DEMO_EMAIL, name: "demo" });
  return { key, opportunities: summary.opportunities };
}
