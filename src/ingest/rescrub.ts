/**
 * Scrubs again what is already stored (`deno task admin rescrub`): after the scrubber learns new
 * shapes, rows written before still hold what it now removes. The same fields as the writer
 * scrubs are read in batches by id, scrubbed, and written back only where the text changed; an
 * opportunity's slug follows its title, as on import. Each batch is its own transaction, so a
 * large table is never locked for the whole run, and the data version is bumped once at the end
 * when anything changed, so cached answers are dropped. Running it twice changes nothing the
 * second time (scrubbing is idempotent).
 */
import type { Sql } from "../db/open.ts";
import { scrubText } from "../catalog/scrub.ts";
import { slugify } from "./records.ts";

/** What a table's pass found: rows read and rows whose text changed (or would change). */
export interface TableSummary {
  scanned: number;
  changed: number;
}

/** What a rescrub did (or, with dryRun, would do). */
export interface RescrubSummary {
  opportunities: TableSummary;
  evidence_quotes: TableSummary & { deleted: number };
  blog_posts: TableSummary;
  /** Opportunities whose title would be empty once scrubbed: left as they are, for a person. */
  empty_titles: number[];
  dry_run: boolean;
  /** True when anything was written (and the data version bumped). */
  changed: boolean;
}

export interface RescrubOptions {
  /** Count what would change without writing anything. */
  dryRun?: boolean;
  batchSize?: number;
  /** Called after each batch with the table, rows done and the table's row count. */
  onProgress?: (table: string, done: number, total: number) => void;
}

interface OpportunityText {
  id: number;
  title: string;
  target_audience: string;
  description: string;
  differentiation: string;
}

/** Scrubs the stored titles, descriptions, excerpts and evidence quotes again. */
export async function rescrubStored(
  sql: Sql,
  options: RescrubOptions = {},
): Promise<RescrubSummary> {
  const dryRun = options.dryRun ?? false;
  const size = options.batchSize ?? 1000;
  const progress = options.onProgress ?? (() => {});
  const summary: RescrubSummary = {
    opportunities: { scanned: 0, changed: 0 },
    evidence_quotes: { scanned: 0, changed: 0, deleted: 0 },
    blog_posts: { scanned: 0, changed: 0 },
    empty_titles: [],
    dry_run: dryRun,
    changed: false,
  };

  await eachBatch(sql, "opportunities", size, progress, async (tx, after) => {
    const rows = await tx<OpportunityText[]>`
      select id, title, target_audience, description, differentiation from opportunities
      where id > ${after} order by id limit ${size}`;
    const changed = [];
    for (const row of rows) {
      const next = {
        id: row.id,
        title: scrubText(row.title).trim(),
        target_audience: scrubText(row.target_audience),
        description: scrubText(row.description),
        differentiation: scrubText(row.differentiation),
      };
      if (next.title === "") {
        summary.empty_titles.push(row.id);
        next.title = row.title;
      }
      if (
        next.title !== row.title || next.target_audience !== row.target_audience ||
        next.description !== row.description || next.differentiation !== row.differentiation
      ) {
        changed.push({ ...next, slug: slugify(next.title) });
      }
    }
    summary.opportunities.scanned += rows.length;
    summary.opportunities.changed += changed.length;
    if (changed.length && !dryRun) {
      await tx`
        update opportunities o
        set title = x.title, slug = x.slug, target_audience = x.target_audience,
          description = x.description, differentiation = x.differentiation, updated_at = now()
        from jsonb_to_recordset(${JSON.stringify(changed)}::text::jsonb) as x(id integer,
          title text, slug text, target_audience text, description text, differentiation text)
        where o.id = x.id`;
    }
    return rows.map((r) => r.id);
  });

  await eachBatch(sql, "evidence_quotes", size, progress, async (tx, after) => {
    const rows = await tx<{ id: number; quote: string }[]>`
      select id, quote from evidence_quotes where id > ${after} order by id limit ${size}`;
    const changed = [];
    const emptied = [];
    for (const row of rows) {
      const quote = scrubText(row.quote);
      // A quote that was nothing but a removed item is dropped, as the writer drops it.
      if (quote.trim() === "") emptied.push(row.id);
      else if (quote !== row.quote) changed.push({ id: row.id, quote });
    }
    summary.evidence_quotes.scanned += rows.length;
    summary.evidence_quotes.changed += changed.length;
    summary.evidence_quotes.deleted += emptied.length;
    if (!dryRun && changed.length) {
      await tx`
        update evidence_quotes e set quote = x.quote
        from jsonb_to_recordset(${
        JSON.stringify(changed)
      }::text::jsonb) as x(id integer, quote text)
        where e.id = x.id`;
    }
    if (!dryRun && emptied.length) await tx`delete from evidence_quotes where id in ${tx(emptied)}`;
    return rows.map((r) => r.id);
  });

  await eachBatch(sql, "blog_posts", size, progress, async (tx, after) => {
    const rows = await tx<{ id: number; excerpt: string }[]>`
      select id, excerpt from blog_posts where id > ${after} order by id limit ${size}`;
    const changed = rows.map((r) => ({ id: r.id, excerpt: scrubText(r.excerpt), was: r.excerpt }))
      .filter((r) => r.excerpt !== r.was).map(({ id, excerpt }) => ({ id, excerpt }));
    summary.blog_posts.scanned += rows.length;
    summary.blog_posts.changed += changed.length;
    if (!dryRun && changed.length) {
      await tx`
        update blog_posts b set excerpt = x.excerpt, updated_at = now()
        from jsonb_to_recordset(${JSON.stringify(changed)}::text::jsonb) as x(id integer,
          excerpt text)
        where b.id = x.id`;
    }
    return rows.map((r) => r.id);
  });

  const writes = summary.opportunities.changed + summary.evidence_quotes.changed +
    summary.evidence_quotes.deleted + summary.blog_posts.changed;
  if (!dryRun && writes > 0) {
    await sql`update data_version set version = version + 1, changed_at = now()`;
    summary.changed = true;
  }
  return summary;
}

/**
 * Runs `batch` (which returns the ids it read, in order) in its own transaction from id 0 until
 * a batch comes back short, reporting progress against the table's row count.
 */
async function eachBatch(
  sql: Sql,
  table: "opportunities" | "evidence_quotes" | "blog_posts",
  size: number,
  progress: (table: string, done: number, total: number) => void,
  batch: (tx: Sql, after: number) => Promise<number[]>,
): Promise<void> {
  const [{ total }] = await sql<{ total: number }[]>`
    select count(*)::int as total from ${sql(table)}`;
  let after = 0;
  let done = 0;
  while (true) {
    const ids: number[] = await sql.begin((tx) => batch(tx as unknown as Sql, after));
    if (ids.length === 0) break;
    done += ids.length;
    after = ids[ids.length - 1];
    progress(table, done, Math.max(total, done));
    if (ids.length < size) break;
  }
  if (done === 0) progress(table, 0, total);
}
