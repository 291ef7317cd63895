/**
 * The content writer's statements: one batched upsert per record type, each decoding its batch
 * with `jsonb_to_recordset` and leaving unchanged rows alone, so that writing the same content
 * twice changes nothing. Each returns the number of rows it inserted, updated or deleted.
 */
import type { Sql } from "../db/open.ts";

/** A record ready to write: the columns of its table, by name. */
export type Row = Record<string, unknown>;

export function writeCategories(sql: Sql, rows: Row[]): PromiseLike<number> {
  return sql`
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

export function writeThemes(sql: Sql, rows: Row[]): PromiseLike<number> {
  return sql`
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

/** Upserts theme mention points (theme slug, day, mentions). */
export function writeThemeMentions(sql: Sql, rows: Row[]): PromiseLike<number> {
  return sql`
    insert into theme_mentions (theme_id, day, mentions)
    select t.id, x.day, x.mentions
    from jsonb_to_recordset(${JSON.stringify(rows)}::text::jsonb)
      as x(theme text, day date, mentions integer)
    join themes t on t.slug = x.theme
    on conflict (theme_id, day) do update set mentions = excluded.mentions
      where theme_mentions.mentions <> excluded.mentions
    returning 1`.then((r) => r.count);
}

export function writeOpportunities(sql: Sql, rows: Row[]): PromiseLike<number> {
  const json = JSON.stringify(rows.map((r) => ({ ...r, evidence: undefined })));
  return sql`
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
export function writeEvidence(
  sql: Sql,
  opportunities: Row[],
  onlyNew: boolean,
): PromiseLike<number> {
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
  if (onlyNew) {
    return sql`
      insert into evidence_quotes (opportunity_id, platform, channel_name, quote, source_url,
        posted_at)
      select o.id, x.platform, x.channel_name, x.quote, x.source_url, x.posted_at
      from jsonb_to_recordset(${quotes}::text::jsonb) as x(external_id text, platform text,
        channel_name text, quote text, source_url text, posted_at timestamptz, ord integer)
      join opportunities o on o.external_id = x.external_id
      order by o.id, x.ord
      returning 1`.then((r) => r.count);
  }
  return sql`
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

export function writeBlogPosts(sql: Sql, rows: Row[]): PromiseLike<number> {
  return sql`
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
