/**
 * JSON Lines import of content (categories, themes, opportunities with their evidence, blog
 * posts), and the batched writer that the demo seed shares with it.
 *
 * A whole file is one transaction: every line is validated before it is queued, a bad line
 * throws an ImportError naming it, and the transaction is rolled back. Rows are upserted by slug
 * or external_id in batches (one statement per batch of about a thousand records, decoded by
 * `jsonb_to_recordset`), and an upsert leaves an unchanged row alone, so that importing the same
 * file twice changes nothing the second time.
 */
import { z } from "zod";
import type { Sql } from "../db/open.ts";
import { RECOMMENDATIONS } from "../catalog/schemas.ts";
import { scrubText } from "../catalog/scrub.ts";

/** A line of an import file that cannot be imported; nothing of the file was written. */
export class ImportError extends Error {
  constructor(readonly line: number, readonly reason: string) {
    super(`Line ${line}: ${reason}`);
    this.name = "ImportError";
  }
}

/** What an import read: lines, records of each type and evidence quotes. */
export interface ImportSummary {
  lines: number;
  categories: number;
  themes: number;
  opportunities: number;
  blog_posts: number;
  evidence_quotes: number;
  /** False when the database already held exactly this content (data_version not bumped). */
  changed: boolean;
}

export interface ImportOptions {
  /** Called every few thousand lines with the number of lines read so far. */
  onProgress?: (linesDone: number) => void;
}

// ---- Record schemas --------------------------------------------------------------------------

const SLUG = /^[a-z0-9]+(-[a-z0-9]+)*$/;

const Slug = z.string().regex(SLUG, "must be a slug of lowercase letters, digits and dashes");
const Text = z.string();
const Required = z.string().trim().min(1, "must not be empty");
const DateTime = z.iso.datetime({
  offset: true,
  error: "must be an ISO 8601 date-time with a UTC offset",
});
const Count = z.number().int("must be an integer").min(0, "must be at least 0")
  .max(2147483647, "must be at most 2147483647");
const StringList = z.array(z.string()).default([]);

function range(min: number, max: number) {
  return z.number().int("must be an integer").min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max}`);
}

export const CategoryRecordSchema = z.object({
  type: z.literal("category"),
  slug: Slug,
  name: Required,
  description: Text.default(""),
});

export const ThemeRecordSchema = z.object({
  type: z.literal("theme"),
  slug: Slug,
  category: z.string().min(1, "must not be empty"),
  name: Required,
  summary: Text.default(""),
  mentions_30d: Count,
  mentions_prev_30d: Count,
});

export const EvidenceRecordSchema = z.object({
  quote: Required,
  platform: Required,
  channel_name: Text.default(""),
  source_url: z.string().nullable().default(null),
  posted_at: DateTime,
});

export const OpportunityRecordSchema = z.object({
  type: z.literal("opportunity"),
  external_id: Required,
  theme: z.string().min(1, "must not be empty"),
  platform: Required,
  channel_name: Required,
  title: Required,
  recommendation: z.enum(RECOMMENDATIONS, "must be one of Build, Validate, Skip"),
  score: range(0, 100),
  pain_point_intensity: range(0, 10),
  willingness_to_pay_score: range(0, 10),
  tech_difficulty: range(0, 10),
  sustainability_score: range(0, 10),
  target_audience: Text.default(""),
  monetization_model: Text.default(""),
  /** Defaults to the number of quotes in `evidence`. */
  evidence_count: Count.optional(),
  merged_from_count: Count.default(0),
  is_online_deliverable: z.boolean("must be true or false"),
  created_at: DateTime,
  description: Text.default(""),
  market_size_estimate: Text.default(""),
  key_features: StringList,
  competitors: StringList,
  differentiation: Text.default(""),
  risks: StringList,
  evidence: z.array(EvidenceRecordSchema).default([]),
});

export const BlogPostRecordSchema = z.object({
  type: z.literal("blog_post"),
  slug: Slug,
  title: Required,
  excerpt: Text.default(""),
  body_md: z.string(),
  cover_image_url: z.string().nullable().default(null),
  tags: StringList,
  related_opportunity: z.string().min(1, "must not be empty").nullable().default(null),
  published_at: DateTime.nullable().default(null),
});

export type CategoryRecord = z.input<typeof CategoryRecordSchema>;
export type ThemeRecord = z.input<typeof ThemeRecordSchema>;
export type EvidenceRecord = z.input<typeof EvidenceRecordSchema>;
export type OpportunityRecord = z.input<typeof OpportunityRecordSchema>;
export type BlogPostRecord = z.input<typeof BlogPostRecordSchema>;
/** One line of an import file, as written (optional fields may be left out). */
export type ImportRecord = CategoryRecord | ThemeRecord | OpportunityRecord | BlogPostRecord;

const SCHEMAS = {
  category: CategoryRecordSchema,
  theme: ThemeRecordSchema,
  opportunity: OpportunityRecordSchema,
  blog_post: BlogPostRecordSchema,
} as const;

type RecordType = keyof typeof SCHEMAS;

/** Parses and validates one line; throws the reason as a string for the caller to number. */
function parseLine(text: string): ImportRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw `Invalid JSON: ${(error as Error).message}`;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw "Expected a JSON object";
  }
  const type = (value as { type?: unknown }).type;
  if (type === undefined) throw `Missing field "type"`;
  if (typeof type !== "string" || !Object.hasOwn(SCHEMAS, type)) {
    throw `Unknown type ${
      JSON.stringify(type)
    } (expected category, theme, opportunity or blog_post)`;
  }
  const result = SCHEMAS[type as RecordType].safeParse(value, {
    error: (issue) => issue.input === undefined ? "is missing" : undefined,
  });
  if (!result.success) {
    const issue = result.error.issues[0];
    const path = issue.path.map((p) => typeof p === "number" ? `[${p}]` : `.${String(p)}`)
      .join("").replace(/^\./, "");
    throw path ? `Field "${path}" ${lowerFirst(issue.message)}` : issue.message;
  }
  return result.data as ImportRecord;
}

function lowerFirst(s: string): string {
  return s.charAt(0).toLowerCase() + s.slice(1);
}

// ---- Slugs -----------------------------------------------------------------------------------

/** A URL-style name from a title: lowercase ASCII words joined by dashes, at most 80 characters. */
export function slugify(title: string, maxLength = 80): string {
  const words = title.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase()
    .split(/[^a-z0-9]+/).filter(Boolean);
  let slug = "";
  for (const word of words) {
    const next = slug ? `${slug}-${word}` : word;
    if (next.length > maxLength) {
      if (!slug) slug = word.slice(0, maxLength);
      break;
    }
    slug = next;
  }
  return slug || "opportunity";
}

// ---- The batched writer ----------------------------------------------------------------------

const BATCH = 1000;
/** Statements sent ahead before waiting for the oldest, so generating overlaps with writing. */
const IN_FLIGHT = 4;

interface Counts {
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
  #inFlight: Promise<void>[] = [];
  #deferred: string[] = [];
  /** Every opportunity still to come is new: its evidence is inserted without comparing. */
  #onlyNew = false;
  #failure: unknown;

  private constructor(sql: Sql) {
    this.#sql = sql;
  }

  /** A writer on `sql` (a transaction), knowing the category and theme slugs already stored. */
  static async open(sql: Sql): Promise<ContentWriter> {
    const writer = new ContentWriter(sql);
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

  /** Queues one valid record whose references exist. */
  add(record: ImportRecord): void {
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
          this.#blogPosts.size >= BATCH
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
    this.#categories.clear();
    this.#themes.clear();
    this.#opportunities.clear();
    this.#blogPosts.clear();
    if (categories.length) this.#track(this.#writeCategories(categories));
    if (themes.length) this.#track(this.#writeThemes(themes));
    if (opportunities.length) {
      this.#track(this.#writeOpportunities(opportunities));
      this.#track(this.#writeEvidence(opportunities));
    }
    if (blogPosts.length) this.#track(this.#writeBlogPosts(blogPosts));
  }

  // postgres.js sends the statements of one transaction in order on its one connection, so a
  // statement sent later sees the rows of one sent earlier even before we await the first.
  #track(query: PromiseLike<number>): void {
    const p = Promise.resolve(query).then(
      (n) => {
        this.changes += n;
      },
      (error) => {
        this.#failure ??= error;
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

  #writeCategories(rows: Record<string, unknown>[]): PromiseLike<number> {
    return this.#sql`
      insert into categories (slug, name, description)
      select x.slug, x.name, x.description
      from jsonb_to_recordset(${JSON.stringify(rows)}::text::jsonb)
        as x(slug text, name text, description text)
      on conflict (slug) do update
        set name = excluded.name, description = excluded.description, updated_at = now()
        where (categories.name, categories.description)
          is distinct from (excluded.name, excluded.description)
      returning 1`.then((r) => r.count);
  }

  #writeThemes(rows: Record<string, unknown>[]): PromiseLike<number> {
    return this.#sql`
      insert into themes (slug, category_id, name, summary, mentions_30d, mentions_prev_30d)
      select x.slug, c.id, x.name, x.summary, x.mentions_30d, x.mentions_prev_30d
      from jsonb_to_recordset(${JSON.stringify(rows)}::text::jsonb)
        as x(slug text, category text, name text, summary text, mentions_30d integer,
          mentions_prev_30d integer)
      join categories c on c.slug = x.category
      on conflict (slug) do update
        set category_id = excluded.category_id, name = excluded.name, summary = excluded.summary,
          mentions_30d = excluded.mentions_30d, mentions_prev_30d = excluded.mentions_prev_30d,
          updated_at = now()
        where (themes.category_id, themes.name, themes.summary, themes.mentions_30d,
            themes.mentions_prev_30d)
          is distinct from (excluded.category_id, excluded.name, excluded.summary,
            excluded.mentions_30d, excluded.mentions_prev_30d)
      returning 1`.then((r) => r.count);
  }

  #writeOpportunities(rows: Record<string, unknown>[]): PromiseLike<number> {
    const json = JSON.stringify(rows.map((r) => ({ ...r, evidence: undefined })));
    return this.#sql`
      insert into opportunities (external_id, theme_id, platform, channel_name, title, slug,
        recommendation, score, pain_point_intensity, willingness_to_pay_score, tech_difficulty,
        sustainability_score, target_audience, monetization_model, evidence_count,
        merged_from_count, is_online_deliverable, created_at, description, market_size_estimate,
        key_features, competitors, differentiation, risks)
      select x.external_id, t.id, x.platform, x.channel_name, x.title, x.slug,
        x.recommendation, x.score, x.pain_point_intensity, x.willingness_to_pay_score,
        x.tech_difficulty, x.sustainability_score, x.target_audience, x.monetization_model,
        x.evidence_count, x.merged_from_count, x.is_online_deliverable, x.created_at,
        x.description, x.market_size_estimate, x.key_features, x.competitors,
        x.differentiation, x.risks
      from jsonb_to_recordset(${json}::text::jsonb) as x(external_id text, theme text, platform text,
        channel_name text, title text, slug text, recommendation text, score smallint,
        pain_point_intensity smallint, willingness_to_pay_score smallint,
        tech_difficulty smallint, sustainability_score smallint, target_audience text,
        monetization_model text, evidence_count integer, merged_from_count integer,
        is_online_deliverable boolean, created_at timestamptz, description text,
        market_size_estimate text, key_features text[], competitors text[],
        differentiation text, risks text[])
      join themes t on t.slug = x.theme
      on conflict (external_id) do update set
        theme_id = excluded.theme_id, platform = excluded.platform,
        channel_name = excluded.channel_name, title = excluded.title, slug = excluded.slug,
        recommendation = excluded.recommendation, score = excluded.score,
        pain_point_intensity = excluded.pain_point_intensity,
        willingness_to_pay_score = excluded.willingness_to_pay_score,
        tech_difficulty = excluded.tech_difficulty,
        sustainability_score = excluded.sustainability_score,
        target_audience = excluded.target_audience,
        monetization_model = excluded.monetization_model,
        evidence_count = excluded.evidence_count, merged_from_count = excluded.merged_from_count,
        is_online_deliverable = excluded.is_online_deliverable,
        created_at = excluded.created_at, description = excluded.description,
        market_size_estimate = excluded.market_size_estimate,
        key_features = excluded.key_features, competitors = excluded.competitors,
        differentiation = excluded.differentiation, risks = excluded.risks,
        updated_at = now()
      where (opportunities.theme_id, opportunities.platform, opportunities.channel_name,
          opportunities.title, opportunities.slug, opportunities.recommendation,
          opportunities.score, opportunities.pain_point_intensity,
          opportunities.willingness_to_pay_score, opportunities.tech_difficulty,
          opportunities.sustainability_score, opportunities.target_audience,
          opportunities.monetization_model, opportunities.evidence_count,
          opportunities.merged_from_count, opportunities.is_online_deliverable,
          opportunities.created_at, opportunities.description,
          opportunities.market_size_estimate, opportunities.key_features,
          opportunities.competitors, opportunities.differentiation, opportunities.risks)
        is distinct from (excluded.theme_id, excluded.platform, excluded.channel_name,
          excluded.title, excluded.slug, excluded.recommendation, excluded.score,
          excluded.pain_point_intensity, excluded.willingness_to_pay_score,
          excluded.tech_difficulty, excluded.sustainability_score, excluded.target_audience,
          excluded.monetization_model, excluded.evidence_count, excluded.merged_from_count,
          excluded.is_online_deliverable, excluded.created_at, excluded.description,
          excluded.market_size_estimate, excluded.key_features, excluded.competitors,
          excluded.differentiation, excluded.risks)
      returning 1`.then((r) => r.count);
  }

  /**
   * Replaces the evidence of each opportunity of the batch by its list in the file, but only
   * for opportunities whose stored quotes differ from that list (as multisets), so that a
   * re-import keeps the quotes and their ids.
   */
  #writeEvidence(opportunities: Record<string, unknown>[]): PromiseLike<number> {
    const ids = JSON.stringify(opportunities.map((o) => o.external_id));
    const quotes = JSON.stringify(
      opportunities.flatMap((o) =>
        (o.evidence as Record<string, unknown>[]).map((e, i) => ({
          ...e,
          external_id: o.external_id,
          ord: i,
        }))
      ),
    );
    if (this.#onlyNew) {
      return this.#sql`
        insert into evidence_quotes (opportunity_id, platform, channel_name, quote, source_url,
          posted_at)
        select o.id, x.platform, x.channel_name, x.quote, x.source_url, x.posted_at
        from jsonb_to_recordset(${quotes}::text::jsonb) as x(external_id text, platform text,
          channel_name text, quote text, source_url text, posted_at timestamptz, ord integer)
        join opportunities o on o.external_id = x.external_id
        order by o.id, x.ord
        returning 1`.then((r) => r.count);
    }
    return this.#sql`
      with batch as (
        select o.id from opportunities o
        where o.external_id in (select jsonb_array_elements_text(${ids}::text::jsonb))
      ), incoming as (
        select o.id as opportunity_id, x.platform, x.channel_name, x.quote, x.source_url,
          x.posted_at, x.ord
        from jsonb_to_recordset(${quotes}::text::jsonb) as x(external_id text, platform text,
          channel_name text, quote text, source_url text, posted_at timestamptz, ord integer)
        join opportunities o on o.external_id = x.external_id
      ), stored as (
        select e.opportunity_id, e.platform, e.channel_name, e.quote, e.source_url, e.posted_at
        from evidence_quotes e where e.opportunity_id in (select id from batch)
      ), differing as (
        select distinct d.opportunity_id from (
          (select * from stored
            except all
            select opportunity_id, platform, channel_name, quote, source_url, posted_at
            from incoming)
          union all
          (select opportunity_id, platform, channel_name, quote, source_url, posted_at
            from incoming
            except all
            select * from stored)
        ) d
      ), removed as (
        -- An array, not a join: the planner keeps to the index however large the table grew
        -- within this transaction (its statistics still describe the table before the load).
        delete from evidence_quotes e
        where e.opportunity_id = any(array(select opportunity_id from differing))
        returning 1
      ), added as (
        insert into evidence_quotes (opportunity_id, platform, channel_name, quote, source_url,
          posted_at)
        select i.opportunity_id, i.platform, i.channel_name, i.quote, i.source_url, i.posted_at
        from incoming i join differing d on d.opportunity_id = i.opportunity_id
        order by i.opportunity_id, i.ord
        returning 1
      )
      select (select count(*) from removed)::int + (select count(*) from added)::int as n`
      .then((r) => r[0].n as number);
  }

  #writeBlogPosts(rows: Record<string, unknown>[]): PromiseLike<number> {
    return this.#sql`
      insert into blog_posts (slug, title, excerpt, body_md, cover_image_url, tags,
        related_opportunity_id, published_at)
      select x.slug, x.title, x.excerpt, x.body_md, x.cover_image_url, x.tags, o.id,
        x.published_at
      from jsonb_to_recordset(${JSON.stringify(rows)}::text::jsonb) as x(slug text, title text,
        excerpt text, body_md text, cover_image_url text, tags text[],
        related_opportunity text, published_at timestamptz)
      left join opportunities o on o.external_id = x.related_opportunity
      on conflict (slug) do update set
        title = excluded.title, excerpt = excluded.excerpt, body_md = excluded.body_md,
        cover_image_url = excluded.cover_image_url, tags = excluded.tags,
        related_opportunity_id = excluded.related_opportunity_id,
        published_at = excluded.published_at, updated_at = now()
      where (blog_posts.title, blog_posts.excerpt, blog_posts.body_md,
          blog_posts.cover_image_url, blog_posts.tags, blog_posts.related_opportunity_id,
          blog_posts.published_at)
        is distinct from (excluded.title, excluded.excerpt, excluded.body_md,
          excluded.cover_image_url, excluded.tags, excluded.related_opportunity_id,
          excluded.published_at)
      returning 1`.then((r) => r.count);
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
    if (this.changes === 0) return false;
    await this.#sql`update data_version set version = version + 1, changed_at = now()`;
    return true;
  }
}

// ---- Import ----------------------------------------------------------------------------------

const PROGRESS_EVERY = 5000;

/** Imports JSON Lines in one transaction; throws ImportError (nothing written) on a bad line. */
export async function importLines(
  sql: Sql,
  lines: AsyncIterable<string> | Iterable<string>,
  options: ImportOptions = {},
): Promise<ImportSummary> {
  return await sql.begin(async (tx) => {
    const writer = await ContentWriter.open(tx as unknown as Sql);
    let line = 0;
    for await (const text of lines) {
      line++;
      if (line % PROGRESS_EVERY === 0) options.onProgress?.(line);
      if (text.trim() === "") continue;
      let record: ImportRecord;
      try {
        record = parseLine(text);
      } catch (reason) {
        if (typeof reason === "string") throw new ImportError(line, reason);
        throw reason;
      }
      const problem = await missingReference(writer, record);
      if (problem) throw new ImportError(line, problem);
      try {
        writer.add(record);
      } catch (error) {
        throw new ImportError(line, (error as Error).message);
      }
      await writer.throttle();
    }
    const changed = await writer.finish();
    return { lines: line, ...writer.counts, changed };
  });
}

async function missingReference(
  writer: ContentWriter,
  record: ImportRecord,
): Promise<string | undefined> {
  if (record.type === "theme" && !writer.hasCategory(record.category)) {
    return `Unknown category "${record.category}"`;
  }
  if (record.type === "opportunity" && !writer.hasTheme(record.theme)) {
    return `Unknown theme "${record.theme}"`;
  }
  if (
    record.type === "blog_post" && record.related_opportunity &&
    !(await writer.hasOpportunity(record.related_opportunity))
  ) {
    return `Unknown related_opportunity "${record.related_opportunity}"`;
  }
  return undefined;
}

/** Imports a JSON Lines file (`-` for standard input) in one transaction. */
export async function importFile(
  sql: Sql,
  path: string,
  options: ImportOptions = {},
): Promise<ImportSummary> {
  const stream = path === "-" ? Deno.stdin.readable : (await Deno.open(path)).readable;
  return await importLines(sql, readLines(stream), options);
}

/** The lines of a byte stream, without their line ends. */
export async function* readLines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let rest = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    rest += chunk;
    let start = 0;
    let end: number;
    while ((end = rest.indexOf("\n", start)) !== -1) {
      yield rest.slice(start, end).replace(/\r$/, "");
      start = end + 1;
    }
    rest = rest.slice(start);
  }
  if (rest !== "") yield rest.replace(/\r$/, "");
}
