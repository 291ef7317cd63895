-- Keyword search (`q`) by PostgreSQL full-text search instead of substring matching: words are
-- matched as word prefixes, case- and accent-insensitively, with web-search syntax ("phrases",
-- -exclusions, OR). The configuration is 'simple' (it only lowercases): no stemming and no stop
-- words, so "apps" and "appendix" stay apart and every word of any language is searchable.

create extension if not exists unaccent;

-- The text search configuration of `q`: 'simple', with accents removed from every word that has
-- any (words of plain ASCII letters skip that step, which keeps indexing cheap). The extension may
-- live in any schema (hosted PostgreSQL often keeps extensions apart), so its dictionary is named
-- where it is.
create text search configuration oi_search (copy = simple);
do $$
declare
  ext_schema text;
begin
  select n.nspname into ext_schema
  from pg_extension e join pg_namespace n on n.oid = e.extnamespace
  where e.extname = 'unaccent';
  execute format(
    'alter text search configuration oi_search alter mapping for word, hword, hword_part '
    'with %I.unaccent, simple', ext_schema);
end $$;

-- The query of a `q` in web-search syntax: websearch_to_tsquery never fails on punctuation, an
-- unclosed quote or a lone operator; every word of three letters or more then matches as a
-- prefix ('invoice' finds "invoices"), while words of one or two letters match whole words only
-- ('ai' finds "AI" and "AI-powered" but not "aim": a prefix of two letters matches too much to
-- mean anything). A `q` without any word gives an empty query, which matches nothing. Lexemes
-- never hold a space and operators are always written between spaces, so the pattern below sees
-- each quoted lexeme and nothing between two of them.
create function oi_search_query(text) returns tsquery language sql immutable strict parallel safe
  as $$
    select regexp_replace(
      websearch_to_tsquery('oi_search'::regconfig, $1)::text,
      '''([^'' ]{3,})''', '''\1'':*', 'g')::tsquery
  $$;

set local maintenance_work_mem = '256MB';

-- Substring matching is gone, and with it the trigram index it used; dropped first, so that
-- adding the column below does not rebuild it.
drop index opportunities_text_trgm_idx;

-- A stored column rather than an expression index: a bitmap scan that turns lossy (a common
-- word matching a third of the rows) rechecks rows by reading the vector, not by computing it.
-- Adding it rewrites the table once (see the README for the time it takes at a million rows).
alter table opportunities
  add column search tsvector
  generated always as (to_tsvector('oi_search'::regconfig, title || ' ' || description)) stored;
-- Used in: listOpportunities and its count with q (online rows, the default).
create index opportunities_online_search_idx on opportunities using gin (search)
  with (fastupdate = off) where is_online_deliverable;
-- Used in: listOpportunities and its count with q and online_only=false.
create index opportunities_search_idx on opportunities using gin (search) with (fastupdate = off);
-- Used in: listOpportunities with sort=newest.
create index opportunities_newest_idx on opportunities (created_at desc, id desc);
create index opportunities_online_newest_idx on opportunities (created_at desc, id desc)
  where is_online_deliverable;

alter table blog_posts
  add column search tsvector
  generated always as (to_tsvector('oi_search'::regconfig, title || ' ' || excerpt)) stored;
-- Used in: listBlogPosts with q.
create index blog_posts_search_idx on blog_posts using gin (search);
