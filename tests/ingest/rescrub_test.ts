import assert from "node:assert/strict";
import type { Sql } from "../../src/db/open.ts";
import { rescrubStored } from "../../src/ingest/rescrub.ts";
import { dbTest } from "../helpers/db.ts";

/** Rows written as an older scrubber left them: the text goes in without scrubbing. */
async function storeUnscrubbed(sql: Sql): Promise<void> {
  const [category] = await sql`insert into categories (slug, name) values ('c', 'C') returning id`;
  const [theme] = await sql`
    insert into themes (slug, category_id, name, mentions_30d, mentions_prev_30d)
    values ('t', ${category.id}, 'T', 1, 1) returning id`;
  const opportunity = (externalId: string, title: string, description: string) =>
    sql`
    insert into opportunities (external_id, theme_id, platform, channel_name, title, slug,
      recommendation, score, pain_point_intensity, willingness_to_pay_score, tech_difficulty,
      sustainability_score, description, target_audience, differentiation)
    values (${externalId}, ${theme.id}, 'reddit', 'c', ${title}, 'old-slug', 'Build', 50, 5, 5, 5,
      5, ${description}, ${externalId === "leaky" ? "teams of @иван" : "teams"}, 'none')
    returning id`;
  const [leaky] = await opportunity(
    "leaky",
    "Mail josé@example.com about invoices",
    "call 415\u2013555\u20130132 today",
  );
  await opportunity("clean", "A clean title", "Nothing to remove");
  await opportunity("only-mail", "bob@example.com", "x");
  await sql`
    insert into evidence_quotes (opportunity_id, platform, quote, posted_at)
    values (${leaky.id}, 'reddit', 'thanks @a\u200blice!', now()),
      (${leaky.id}, 'reddit', 'ｂｏｂ＠ｅｘａｍｐｌｅ．ｃｏｍ', now()),
      (${leaky.id}, 'reddit', 'a clean quote', now())`;
  await sql`
    insert into blog_posts (slug, title, excerpt, body_md)
    values ('p', 'P', 'by anna@bücher.de', 'body'), ('q', 'Q', 'clean', 'body')`;
}

async function version(sql: Sql): Promise<number> {
  const [{ v }] = await sql<{ v: number }[]>`select version::int as v from data_version`;
  return v;
}

dbTest("rescrubStored scrubs stored text with the current rules, once", async ({ sql }) => {
  await storeUnscrubbed(sql);
  const before = await version(sql);

  const dry = await rescrubStored(sql, { dryRun: true, batchSize: 2 });
  assert.deepEqual(dry.opportunities, { scanned: 3, changed: 1 });
  assert.deepEqual(dry.evidence_quotes, { scanned: 3, changed: 1, deleted: 1 });
  assert.deepEqual(dry.blog_posts, { scanned: 2, changed: 1 });
  assert.equal(dry.changed, false);
  assert.equal(await version(sql), before, "a dry run writes nothing");
  const [{ n }] = await sql`select count(*)::int as n from evidence_quotes`;
  assert.equal(n, 3);

  const progress: string[] = [];
  const summary = await rescrubStored(sql, {
    batchSize: 2,
    onProgress: (table, done, total) => progress.push(`${table} ${done}/${total}`),
  });
  assert.deepEqual({ ...summary, empty_titles: summary.empty_titles.length }, {
    ...dry,
    empty_titles: 1,
    dry_run: false,
    changed: true,
  });
  assert.deepEqual(progress, [
    "opportunities 2/3",
    "opportunities 3/3",
    "evidence_quotes 2/3",
    "evidence_quotes 3/3",
    "blog_posts 2/2",
  ]);
  assert.equal(await version(sql), before + 1);

  const [leaky] = await sql`
    select title, slug, description, target_audience from opportunities
    where external_id = 'leaky'`;
  assert.deepEqual(leaky, {
    title: "Mail about invoices",
    slug: "mail-about-invoices",
    description: "call today",
    target_audience: "teams of [user]",
  });
  // A title that would be empty stays for a person to decide, and is listed.
  const [onlyMail] = await sql`select id, title from opportunities where external_id = 'only-mail'`;
  assert.equal(onlyMail.title, "bob@example.com");
  assert.deepEqual(summary.empty_titles, [onlyMail.id]);
  const quotes = await sql`select quote from evidence_quotes order by id`;
  assert.deepEqual(quotes.map((q) => q.quote), ["thanks [user]!", "a clean quote"]);
  const [post] = await sql`select excerpt from blog_posts where slug = 'p'`;
  assert.equal(post.excerpt, "by");

  const again = await rescrubStored(sql);
  assert.equal(again.changed, false);
  assert.equal(again.opportunities.changed, 0);
  assert.equal(await version(sql), before + 1, "a second run changes nothing");
});
