/**
 * The batched content writer that the import and the demo seed share: records are queued,
 * scrubbed, and written in batches of about a thousand inside the caller's transaction (the
 * statements are in writer_sql.ts). A record repeated in one batch is written once.
 */
import type { Sql } from "../db/open.ts";
import { scrubText } from "../catalog/scrub.ts";
import {
  BlogPostRecordSchema,
  CategoryRecordSchema,
  type ImportRecord,
  type OpportunityRecord,
  slugify,
  ThemeMentionsRecordSchema,
  ThemeRecordSchema,
} from "./records.ts";
import { recomputeTrends } from "./trends.ts";
import { recordThemeChanges } from "../watches/theme_watches.ts";
import { recordNewMatches, startChangeCapture } from "../watches/matching.ts";
import {
  writeBlogPosts,
  writeCategories,
  writeEvidence,
  writeOpportunities,
  writeThemeMentions,
  writeThemes,
} from "./writer_sql.ts";

const BATCH = 1000;

/**
 * A statement of the writer that the database refused, with the input lines of the records it
 * wrote (when the caller numbered them), so an import can name them.
 */
export class WriteFailure extends Error {
  constructor(cause: unknown, readonly firstLine: number, readonly lastLine: number) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = "WriteFailure";
  }
}
/** Statements sent ahead before waiting for the oldest, so generating overlaps with writing. */
const IN_FLIGHT = 4;

export interface Counts {
  categories: number;
  themes: number;
  opportunities: number;
  blog_posts: number;
  evidence_quotes: number;
}

/**
 * Writes records in batches inside one transaction. The caller validates (or generates valid)
 * records and checks references with `hasCategory`, `hasTheme` and `hasOpportunity` first.
 * Batches of one type are written in dependency order (categories, themes, opportunities, blog
 * posts), and a record only references records added before it, so flushing every buffer in
 * that order always finds what it references.
 */
export class ContentWriter {
  readonly counts: Counts = {
    categories: 0,
    themes: 0,
    opportunities: 0,
    blog_posts: 0,
    evidence_quotes: 0,
  };
  /** Rows inserted, updated or deleted so far. */
  changes = 0;
  #sql: Sql;
  #categorySlugs = new Set<string>();
  #themeSlugs = new Set<string>();
  // Keyed by slug or external_id so that a record repeated in one batch is written once (the
  // last wins): one upsert statement cannot touch the same row twice.
  #categories = new Map<string, Record<string, unknown>>();
  #themes = new Map<string, Record<string, unknown>>();
  #opportunities = new Map<string, Record<string, unknown>>();
  #blogPosts = new Map<string, Record<string, unknown>>();
  #points = new Map<string, Record<string, unknown>>();
  /** Theme mention points queued (the summary shows them when there are any). */
  points = 0;
  #inFlight: Promise<void>[] = [];
  #deferred: string[] = [];
  /** Every opportunity still to come is new: its evidence is inserted without comparing. */
  #onlyNew = false;
  /** True when the watches' change capture records this import's rows (startChangeCapture). */
  #capturing = false;
  #failure: unknown;
  /** The first and last input line of the records queued since the last send. */
  #lines: [number, number] | undefined;

  private constructor(sql: Sql) {
    this.#sql = sql;
  }

  /**
   * A writer on `sql` (a transaction), knowing the category and theme slugs already stored. The
   * opportunities it changes are recorded for the watches' matching at finish().
   */
  static async open(sql: Sql): Promise<ContentWriter> {
    const writer = new ContentWriter(sql);
    writer.#capturing = await startChangeCapture(sql);
    for (const { slug } of await sql<{ slug: string }[]>`select slug from categories`) {
      writer.#categorySlugs.add(slug);
    }
    for (const { slug } of await sql<{ slug: string }[]>`select slug from themes`) {
      writer.#themeSlugs.add(slug);
    }
    return writer;
  }

  hasCategory(slug: string): boolean {
    return this.#categorySlugs.has(slug);
  }

  hasTheme(slug: string): boolean {
    return this.#themeSlugs.has(slug);
  }

  /** Whether an opportunity with this external_id is stored or was added before. */
  async hasOpportunity(externalId: string): Promise<boolean> {
    if (this.#opportunities.has(externalId)) return true;
    await this.flush();
    const rows = await this.#sql`select 1 from opportunities where external_id = ${externalId}`;
    return rows.length > 0;
  }

  /** Queues one valid record whose references exist; `line` numbers it for error messages. */
  add(record: ImportRecord, line?: number): void {
    if (line !== undefined) this.#lines = [this.#lines?.[0] ?? line, line];
    switch (record.type) {
      case "category": {
        const r = CategoryRecordSchema.parse(record);
        this.#categorySlugs.add(r.slug);
        this.#categories.delete(r.slug);
        this.#categories.set(r.slug, {
          slug: r.slug,
          name: r.name,
          description: r.description,
        });
        this.counts.categories++;
        break;
      }
      case "theme": {
        const r = ThemeRecordSchema.parse(record);
        this.#themeSlugs.add(r.slug);
        this.#themes.delete(r.slug);
        this.#themes.set(r.slug, {
          slug: r.slug,
          category: r.category,
          name: r.name,
          summary: r.summary,
          mentions_30d: r.mentions_30d,
          mentions_prev_30d: r.mentions_prev_30d,
        });
        this.counts.themes++;
        break;
      }
      case "theme_mentions": {
        const r = ThemeMentionsRecordSchema.parse(record);
        const key = `${r.theme} ${r.date}`;
        this.#points.delete(key);
        this.#points.set(key, { theme: r.theme, day: r.date, mentions: r.mentions });
        this.points++;
        break;
      }
      case "opportunity":
        this.#addOpportunity(record);
        break;
      case "blog_post": {
        const r = BlogPostRecordSchema.parse(record);
        this.#blogPosts.delete(r.slug);
        this.#blogPosts.set(r.slug, {
          slug: r.slug,
          title: r.title,
          excerpt: scrubText(r.excerpt),
          body_md: r.body_md,
          cover_image_url: r.cover_image_url,
          tags: r.tags,
          related_opportunity: r.related_opportunity,
          published_at: r.published_at,
        });
        this.counts.blog_posts++;
        break;
      }
    }
    if (
      this.#categories.size + this.#themes.size + this.#opportunities.size +
          this.#blogPosts.size + this.#points.size / 4 >= BATCH
    ) {
      this.#send();
    }
  }

  #addOpportunity(record: OpportunityRecord): void {
    // Generated records skip zod (a million parses cost seconds); imported ones were parsed.
    const r = record;
    const title = scrubText(r.title).trim();
    if (!title) throw new Error(`Title of opportunity "${r.external_id}" is empty once scrubbed`);
    const evidence = (r.evidence ?? []).map((e) => ({
      quote: scrubText(e.quote),
      platform: e.platform,
      channel_name: e.channel_name ?? "",
      source_url: e.source_url ?? null,
      posted_at: e.posted_at,
    })).filter((e) => e.quote.trim() !== "");
    this.#opportunities.delete(r.external_id);
    this.#opportunities.set(r.external_id, {
      external_id: r.external_id,
      theme: r.theme,
      platform: r.platform,
      channel_name: r.channel_name,
      title,
      slug: slugify(title),
      recommendation: r.recommendation,
      score: r.score,
      pain_point_intensity: r.pain_point_intensity,
      willingness_to_pay_score: r.willingness_to_pay_score,
      tech_difficulty: r.tech_difficulty,
      sustainability_score: r.sustainability_score,
      target_audience: scrubText(r.target_audience ?? ""),
      monetization_model: r.monetization_model ?? "",
      evidence_count: r.evidence_count ?? evidence.length,
      merged_from_count: r.merged_from_count ?? 0,
      is_online_deliverable: r.is_online_deliverable,
      created_at: r.created_at,
      description: scrubText(r.description ?? ""),
      market_size_estimate: r.market_size_estimate ?? "",
      key_features: r.key_features ?? [],
      competitors: r.competitors ?? [],
      differentiation: scrubText(r.differentiation ?? ""),
      risks: r.risks ?? [],
      evidence,
    });
    this.counts.opportunities++;
    this.counts.evidence_quotes += evidence.length;
  }

  /** Writes everything queued and waits until the database has done it. */
  async flush(): Promise<void> {
    this.#send();
    await this.#drain(0);
  }

  /** Sends the queued batches as statements, in dependency order, without waiting for them. */
  #send(): void {
    const categories = [...this.#categories.values()];
    const themes = [...this.#themes.values()];
    const opportunities = [...this.#opportunities.values()];
    const blogPosts = [...this.#blogPosts.values()];
    const points = [...this.#points.values()];
    this.#points.clear();
    this.#categories.clear();
    this.#themes.clear();
    this.#opportunities.clear();
    this.#blogPosts.clear();
    const lines = this.#lines;
    this.#lines = undefined;
    if (categories.length) this.#track(writeCategories(this.#sql, categories), lines);
    if (themes.length) this.#track(writeThemes(this.#sql, themes), lines);
    if (points.length) this.#track(writeThemeMentions(this.#sql, points), lines);
    if (opportunities.length) {
      this.#track(writeOpportunities(this.#sql, opportunities), lines);
      this.#track(writeEvidence(this.#sql, opportunities, this.#onlyNew), lines);
    }
    if (blogPosts.length) this.#track(writeBlogPosts(this.#sql, blogPosts), lines);
  }

  // postgres.js sends the statements of one transaction in order on its one connection, so a
  // statement sent later sees the rows of one sent earlier even before we await the first.
  #track(query: PromiseLike<number>, lines?: [number, number]): void {
    const p = Promise.resolve(query).then(
      (n) => {
        this.changes += n;
      },
      (error) => {
        // The first refusal is the one to report: after it the transaction refuses everything.
        this.#failure ??= lines ? new WriteFailure(error, ...lines) : error;
      },
    );
    this.#inFlight.push(p);
  }

  /** Waits until at most `keep` statements are still running; rethrows a failure. */
  async #drain(keep: number): Promise<void> {
    while (this.#inFlight.length > keep) await this.#inFlight.shift();
    if (this.#failure) throw this.#failure;
  }

  /** Waits when too many statements are in flight: call between records to bound memory. */
  async throttle(): Promise<void> {
    if (this.#inFlight.length > IN_FLIGHT) await this.#drain(IN_FLIGHT);
  }

  /**
   * Drops the secondary indexes of opportunities until finish() builds them again: a bulk load
   * builds each index once, several times faster than maintaining it row by row (above all the
   * trigram index). The definitions are read from the catalog, so the schema stays their only
   * source. Unique indexes stay: the upserts need them. Holds an exclusive lock on the table
   * until the transaction ends, so only for large loads. `uniqueExternalIds` promises that no
   * opportunity is added twice.
   */
  async deferIndexes(options: { uniqueExternalIds?: boolean } = {}): Promise<void> {
    if (this.#deferred.length) return;
    await this.flush();
    // Into an empty table, and with the caller's word that no external_id comes twice, every
    // opportunity is new: its evidence needs no comparison with stored quotes.
    const [{ empty }] = await this.#sql<{ empty: boolean }[]>`
      select not exists (select 1 from opportunities) as empty`;
    this.#onlyNew = empty && options.uniqueExternalIds === true;
    const indexes = await this.#sql<{ name: string; definition: string }[]>`
      select i.indexname as name, i.indexdef as definition
      from pg_indexes i
      where i.schemaname = current_schema() and i.tablename = 'opportunities'
        and i.indexdef not like 'CREATE UNIQUE INDEX%'`;
    for (const index of indexes) await this.#sql`drop index ${this.#sql(index.name)}`;
    this.#deferred = indexes.map((i) => i.definition);
  }

  /** Writes what is left and bumps the data version when anything changed. */
  async finish(): Promise<boolean> {
    await this.flush();
    if (this.#deferred.length) {
      await this.#sql`set local maintenance_work_mem = '256MB'`;
      for (const definition of this.#deferred) await this.#sql.unsafe(definition);
      this.#deferred = [];
      this.#onlyNew = false;
    }
    // Points, or theme records that may have overwritten the 30-day figures points decide.
    if (this.points > 0 || this.counts.themes > 0) {
      const changed = await recomputeTrends(this.#sql);
      this.changes += changed;
      // The status changes it recorded reach the watches that follow them, once.
      if (changed > 0) await recordThemeChanges(this.#sql);
    }
    if (this.changes === 0) return false;
    await this.#sql`update data_version set version = version + 1, changed_at = now()`;
    // The watches' new matches commit with the data that made them (src/watches/matching.ts).
    if (this.#capturing) await recordNewMatches(this.#sql);
    return true;
  }
}

/** What a run of the writer wrote: lines read, records of each type, and whether data changed. */
export type WriteSummary = Counts & { lines: number; theme_mentions?: number; changed: boolean };

/**
 * Runs `fill` with a writer in one transaction, then finishes it (indexes rebuilt, data version
 * bumped when anything changed). `fill` adds the records and returns how many lines it read; a
 * throw rolls everything back.
 */
export async function withContentWriter(
  sql: Sql,
  fill: (writer: ContentWriter) => Promise<number>,
): Promise<WriteSummary> {
  return await sql.begin(async (tx) => {
    // A load is operator work, never bound by a serving pool's statement time-out (an import
    // of a million rows has statements of minutes).
    await tx`set local statement_timeout = 0`;
    const writer = await ContentWriter.open(tx as unknown as Sql);
    const lines = await fill(writer);
    const changed = await writer.finish();
    // theme_mentions is shown only for files that have points, so older summaries stay as they were.
    const points = writer.points > 0 ? { theme_mentions: writer.points } : {};
    return { lines, ...writer.counts, ...points, changed };
  });
}
