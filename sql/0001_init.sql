-- The whole data model of version 1: content (categories > themes > opportunities, evidence,
-- blog posts), customers (accounts, keys, monthly usage) and the data version.

create extension if not exists pg_trgm;

create table categories (
  id integer generated always as identity primary key,
  slug text not null unique check (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$'),
  name text not null check (name <> ''),
  description text not null default '',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table themes (
  id integer generated always as identity primary key,
  slug text not null unique check (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$'),
  category_id integer not null references categories (id),
  name text not null check (name <> ''),
  summary text not null default '',
  mentions_30d integer not null check (mentions_30d >= 0),
  mentions_prev_30d integer not null check (mentions_prev_30d >= 0),
  -- Percent change of mentions, last 30 days against the 30 before, one decimal.
  -- From nothing to something counts as +100%.
  trend_change double precision generated always as (
    case
      when mentions_prev_30d = 0 then case when mentions_30d > 0 then 100.0 else 0.0 end
      else round((mentions_30d - mentions_prev_30d) * 100.0 / mentions_prev_30d, 1)::float8
    end
  ) stored,
  -- 'up' from +10%, 'down' from -10%, 'flat' between (the same thresholds as trend_change).
  trend_direction text generated always as (
    case
      when mentions_30d > mentions_prev_30d and mentions_30d * 10 >= mentions_prev_30d * 11 then 'up'
      when mentions_30d < mentions_prev_30d and mentions_30d * 10 <= mentions_prev_30d * 9 then 'down'
      else 'flat'
    end
  ) stored,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

-- Used in: overview and category counts (themes of a category).
create index themes_category_idx on themes (category_id);
-- Used in: listTrendingThemes (themes trending up, by trend_change descending).
create index themes_trending_idx on themes (trend_change desc, id) where trend_direction = 'up';

create table opportunities (
  id integer generated always as identity primary key,
  external_id text not null unique check (external_id <> ''),
  theme_id integer not null references themes (id),
  platform text not null check (platform <> ''),
  channel_name text not null check (channel_name <> ''),
  title text not null check (title <> ''),
  slug text not null check (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$'),
  recommendation text not null check (recommendation in ('Build', 'Validate', 'Skip')),
  score smallint not null check (score between 0 and 100),
  pain_point_intensity smallint not null check (pain_point_intensity between 0 and 10),
  willingness_to_pay_score smallint not null check (willingness_to_pay_score between 0 and 10),
  tech_difficulty smallint not null check (tech_difficulty between 0 and 10),
  sustainability_score smallint not null check (sustainability_score between 0 and 10),
  target_audience text not null default '',
  monetization_model text not null default '',
  evidence_count integer not null default 0 check (evidence_count >= 0),
  merged_from_count integer not null default 0 check (merged_from_count >= 0),
  is_online_deliverable boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  description text not null default '',
  market_size_estimate text not null default '',
  key_features text[] not null default '{}',
  competitors text[] not null default '{}',
  differentiation text not null default '',
  risks text[] not null default '{}'
);

-- Used in: listOpportunities with online_only=false and no other filter (the list sort).
create index opportunities_sort_idx on opportunities (score desc, created_at desc, id desc);
-- Used in: listOpportunities with the default online_only=true.
create index opportunities_online_sort_idx on opportunities (score desc, created_at desc, id desc)
  where is_online_deliverable;
-- Used in: listOpportunities filtered by platform (matched case-insensitively).
create index opportunities_platform_idx on opportunities (lower(platform), score desc, created_at desc, id desc);
-- Used in: listOpportunities filtered by channel (case-sensitive).
create index opportunities_channel_idx on opportunities (channel_name, score desc, created_at desc, id desc);
-- Used in: listOpportunities filtered by recommendation.
create index opportunities_recommendation_idx on opportunities (recommendation, score desc, created_at desc, id desc);
-- Used in: listOpportunities filtered by category (through its themes), getTheme top opportunities,
-- and the per-theme counts of the overview.
create index opportunities_theme_idx on opportunities (theme_id, score desc, created_at desc, id desc);
-- Used in: listOpportunities with q: every word is matched with ILIKE '%word%' against this very
-- expression (title, a newline, description), so one trigram index serves words found in either.
create index opportunities_text_trgm_idx on opportunities
  using gin ((title || E'\n' || description) gin_trgm_ops);

create table evidence_quotes (
  id integer generated always as identity primary key,
  opportunity_id integer not null references opportunities (id) on delete cascade,
  platform text not null check (platform <> ''),
  channel_name text not null default '',
  quote text not null check (quote <> ''),
  source_url text,
  posted_at timestamptz not null
);

-- Used in: getOpportunity (the newest five quotes of one opportunity).
create index evidence_quotes_opportunity_idx on evidence_quotes (opportunity_id, posted_at desc, id desc);

create table blog_posts (
  id integer generated always as identity primary key,
  slug text not null unique check (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$'),
  title text not null check (title <> ''),
  excerpt text not null default '',
  body_md text not null,
  cover_image_url text,
  tags text[] not null default '{}',
  related_opportunity_id integer references opportunities (id) on delete set null,
  -- Null for a draft; a future instant for a scheduled article.
  published_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz
);

-- Used in: listBlogPosts (published articles, newest first, then slug).
create index blog_posts_published_idx on blog_posts (published_at desc, slug) where published_at is not null;
-- Used in: related_article_url of an opportunity (its newest published article).
create index blog_posts_related_idx on blog_posts (related_opportunity_id, published_at desc)
  where published_at is not null and related_opportunity_id is not null;

create table accounts (
  id integer generated always as identity primary key,
  email text not null check (email ~ '^[^@[:space:]]+@[^@[:space:]]+$'),
  plan text not null default 'free' check (plan in ('free', 'pro', 'business')),
  email_verified_at timestamptz,
  created_at timestamptz not null default now()
);

-- Used in: every lookup of an account by e-mail; e-mails are unique case-insensitively.
create unique index accounts_email_idx on accounts (lower(email));

create table api_keys (
  id integer generated always as identity primary key,
  account_id integer not null references accounts (id) on delete cascade,
  -- SHA-256 hex digest of the whole raw key; the raw key is never stored.
  key_hash text not null unique check (key_hash ~ '^[0-9a-f]{64}$'),
  prefix text not null,
  name text not null default 'default',
  created_at timestamptz not null default now(),
  last_used_at timestamptz,
  revoked_at timestamptz,
  revoked_by text check (revoked_by in ('owner', 'admin')),
  check ((revoked_at is null) = (revoked_by is null))
);

-- Used in: the 5-key limit and key listing (keys of one account).
create index api_keys_account_idx on api_keys (account_id);

-- One row per account per calendar month (UTC); period is the first day of that month.
create table usage_counters (
  account_id integer not null references accounts (id) on delete cascade,
  period date not null check (extract(day from period) = 1),
  used integer not null default 0 check (used >= 0),
  primary key (account_id, period)
);

-- A single row, bumped in the same transaction as every change of content (import, seed), so
-- that caches keyed by it never outlive the data they were made from.
create table data_version (
  id boolean primary key default true check (id),
  version bigint not null default 1,
  changed_at timestamptz not null default now()
);

insert into data_version default values;
