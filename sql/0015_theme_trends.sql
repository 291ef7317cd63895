-- Trends over time: each theme's mention points, and what the import derives from
-- them and stores on the theme (src/catalog/trend_rule.ts, src/ingest/trends.ts): its lifecycle
-- status and its growth over 7 days, 90 days and a year (30 days is trend_change). Stored, not
-- computed per request, so that the trending list filters and sorts by indexed columns.

create table theme_mentions (
  theme_id integer not null references themes (id) on delete cascade,
  -- The first day of the period the point counts (a day, or the week starting on that day).
  day date not null,
  mentions integer not null check (mentions >= 0),
  -- Covering: a theme's history is read from the index alone (its points lie on as many heap
  -- pages as imports wrote them, one week of every theme at a time).
  primary key (theme_id, day) include (mentions)
);

-- Used in: the reference week of every recomputation (max(day)).
create index theme_mentions_day_idx on theme_mentions (day);

alter table themes
  add column trend_status text
    check (trend_status in ('emerging', 'rising', 'steady', 'peaked', 'declining')),
  add column growth_7d double precision,
  add column growth_90d double precision,
  add column growth_1y double precision;

-- Used in: listTrendingThemes (src/catalog/themes.ts), window 7d, 90d and 1y without a status;
-- window 30d keeps themes_trending_idx.
create index themes_trending_7d_idx on themes (growth_7d desc, id) where growth_7d >= 10;
create index themes_trending_90d_idx on themes (growth_90d desc, id) where growth_90d >= 10;
create index themes_trending_1y_idx on themes (growth_1y desc, id) where growth_1y >= 10;
-- Used in: getOverview's five fastest-rising themes (src/catalog/themes.ts), whatever their
-- direction.
create index themes_change_idx on themes (trend_change desc, id);
-- Used in: listTrendingThemes with a status, one per window: the page is read from the index in
-- order (sorting the thousands of themes of a status cost 5-10 ms a call at 10,000 themes).
create index themes_status_30d_idx on themes (trend_status, trend_change desc, id)
  where trend_status is not null;
create index themes_status_7d_idx on themes (trend_status, growth_7d desc nulls last, id)
  where trend_status is not null;
create index themes_status_90d_idx on themes (trend_status, growth_90d desc nulls last, id)
  where trend_status is not null;
create index themes_status_1y_idx on themes (trend_status, growth_1y desc nulls last, id)
  where trend_status is not null;

-- Each change of a theme's status, recorded by the import that made it (src/ingest/trends.ts):
-- what the theme watches deliver (sql/0016_theme_watches.sql).
create table theme_status_changes (
  id bigint generated always as identity primary key,
  theme_id integer not null references themes (id) on delete cascade,
  from_status text,
  to_status text not null,
  changed_at timestamptz not null default now()
);
