-- `q` read as a question as well as keywords:
-- - English stemming in the stored vectors and in the query: "invoicing", "invoices" and
--   "invoiced" are all the lexeme 'invoic'. Stop words stay in the vectors (a quoted phrase still
--   needs them), and are dropped from the query outside quotes (oi_search_query below).
-- - Titles weigh more than descriptions: the vector of an opportunity is its title's words with
--   weight A, then its description's with weight B (ts_rank_cd reads the weights; a match needs
--   none of them). A phrase no longer runs from the end of the title into the description.
-- - search_terms: in how many opportunities each lexeme is found, kept in step with
--   opportunity_search by triggers, so that a query can weigh rare words above common ones and
--   pick its candidates without counting matches (src/catalog/search.ts).

set local maintenance_work_mem = '256MB';

-- The English Snowball stemmer without its stop-word list: a stop word is kept, stemmed.
create text search dictionary oi_english_stem (template = snowball, language = english);
alter text search configuration oi_search
  alter mapping for asciiword, asciihword, hword_asciipart with oi_english_stem;
do $$
declare
  ext_schema text;
begin
  select n.nspname into ext_schema
  from pg_extension e join pg_namespace n on n.oid = e.extnamespace
  where e.extname = 'unaccent';
  execute format(
    'alter text search configuration oi_search alter mapping for word, hword, hword_part '
    'with %I.unaccent, oi_english_stem', ext_schema);
end $$;

-- Words of one or two letters match whole words, longer ones as prefixes of a lexeme ('invoi'
-- finds 'invoic', "invoices"): as in sql/0003_search.sql, now on stems.
create function oi_search_prefix(tsquery) returns tsquery language sql immutable strict
  parallel safe as $$
    select regexp_replace($1::text, '''([^'' ]{3,})''', '''\1'':*', 'g')::tsquery
  $$;

-- `q` without its stop words ("for", "the", "to", "a", "with": PostgreSQL's English list, asked
-- of its own stemmer), except inside quotes (the parts of the text between two double quotes)
-- and after a dash (an exclusion the user wrote). `or` is an operator between two words, kept
-- there; at either end (its other side was a stop word) it would be searched as a word.
create function oi_search_strip(text) returns text language sql immutable strict parallel safe
  as $$
    select regexp_replace(coalesce(string_agg(
      case when p.i % 2 = 0 then p.part
      else (
        select coalesce(string_agg(w.word, ' ' order by w.j), '')
        from regexp_split_to_table(p.part, '\s+') with ordinality as w(word, j)
        where w.word ~ '^-' or lower(w.word) = 'or'
          or ts_lexize('english_stem', lower(regexp_replace(w.word, '[[:punct:]]', '', 'g')))
            is distinct from '{}'::text[])
      end, '"' order by p.i), ''), '^\s*(or(\s+|$))+|(\s+or)+\s*$', '', 'gi')
    from regexp_split_to_table($1, '"') with ordinality as p(part, i)
  $$;

-- The significant words of `q` as a query: stems, prefixes, stop words dropped outside quotes.
-- Empty when `q` holds only stop words.
create function oi_search_terms(text) returns tsquery language sql immutable strict
  parallel safe as $$
    select oi_search_prefix(websearch_to_tsquery('oi_search'::regconfig, oi_search_strip($1)))
  $$;

-- The query of a `q`: its significant words, or, when it has only stop words ("to be or not"),
-- all of them, so that such a `q` still means something.
create or replace function oi_search_query(text) returns tsquery language sql immutable strict
  parallel safe as $$
    select case when numnode(t) > 0 then t
      else oi_search_prefix(websearch_to_tsquery('oi_search'::regconfig, $1)) end
    from oi_search_terms($1) as t
  $$;

-- The vectors, rebuilt with the new configuration and weights (dropping a column drops its
-- indexes; adding it back rewrites the table once).
alter table opportunities drop column search;
alter table opportunities
  add column search tsvector generated always as (
    setweight(to_tsvector('oi_search'::regconfig, title), 'A')
    || setweight(to_tsvector('oi_search'::regconfig, description), 'B')) stored;
-- Used in: listOpportunities, its count and best match with q (online rows, the default).
create index opportunities_online_search_idx on opportunities using gin (search)
  with (fastupdate = off) where is_online_deliverable;
-- Used in: the same with online_only=false; similar opportunities and idea match.
create index opportunities_search_idx on opportunities using gin (search) with (fastupdate = off);

alter table blog_posts drop column search;
alter table blog_posts
  add column search tsvector generated always as (
    setweight(to_tsvector('oi_search'::regconfig, title), 'A')
    || setweight(to_tsvector('oi_search'::regconfig, excerpt), 'B')) stored;
-- Used in: listBlogPosts with q.
create index blog_posts_search_idx on blog_posts using gin (search);

-- The narrow table follows (its triggers only see rows an import writes). Its GIN indexes are
-- built again after the update rather than kept up to date through it: a million updates of
-- fastupdate=off GIN entries took over ten minutes, building them takes about one.
drop index opportunity_search_online_idx;
drop index opportunity_search_idx;
update opportunity_search s set search = o.search from opportunities o where o.id = s.id;
-- Used in: counts and pages with q (online rows, the default).
create index opportunity_search_online_idx on opportunity_search using gin (search)
  with (fastupdate = off) where is_online_deliverable;
-- Used in: counts and pages with q and online_only=false.
create index opportunity_search_idx on opportunity_search using gin (search)
  with (fastupdate = off);

-- A watch's stored query, read again with the new meaning (the update recomputes `tsq`).
update watches set q = q where q is not null;

-- Document frequency of every lexeme of opportunity_search.search; the row '' counts the rows.
create table search_terms (
  term text collate "C" primary key,
  docs integer not null
);
insert into search_terms (term, docs)
select t.term, count(*)::int from opportunity_search s, unnest(tsvector_to_array(s.search)) as t(term)
group by t.term;
insert into search_terms (term, docs) select '', count(*)::int from opportunity_search;

-- One statement per import writes thousands of rows: the counts move by the lexemes of the rows
-- each statement inserted, updated or deleted, in term order (two writers lock rows in the same
-- order, so they wait rather than deadlock).
create function search_terms_apply(delta jsonb) returns void language sql as $$
  insert into search_terms (term, docs)
  select key, value::int from jsonb_each_text(delta) order by key
  on conflict (term) do update set docs = search_terms.docs + excluded.docs
$$;

create function search_terms_insert() returns trigger language plpgsql as $$
begin
  perform search_terms_apply((
    select coalesce(jsonb_object_agg(term, n), '{}') from (
      select t.term, count(*) as n from new_rows r, unnest(tsvector_to_array(r.search)) t(term)
      group by t.term
      union all select '', count(*) from new_rows) c));
  return null;
end $$;

create function search_terms_delete() returns trigger language plpgsql as $$
begin
  perform search_terms_apply((
    select coalesce(jsonb_object_agg(term, -n), '{}') from (
      select t.term, count(*) as n from old_rows r, unnest(tsvector_to_array(r.search)) t(term)
      group by t.term
      union all select '', count(*) from old_rows) c));
  return null;
end $$;

create function search_terms_update() returns trigger language plpgsql as $$
begin
  perform search_terms_apply((
    select coalesce(jsonb_object_agg(term, n), '{}') from (
      select term, sum(n) as n from (
        select t.term, 1 as n from new_rows r, unnest(tsvector_to_array(r.search)) t(term)
        union all
        select t.term, -1 from old_rows r, unnest(tsvector_to_array(r.search)) t(term)) d
      group by term having sum(n) <> 0) c));
  return null;
end $$;

create trigger search_terms_insert after insert on opportunity_search
  referencing new table as new_rows
  for each statement execute function search_terms_insert();
create trigger search_terms_update after update on opportunity_search
  referencing old table as old_rows new table as new_rows
  for each statement execute function search_terms_update();
create trigger search_terms_delete after delete on opportunity_search
  referencing old table as old_rows
  for each statement execute function search_terms_delete();

analyze opportunities;
analyze opportunity_search;
analyze search_terms;
