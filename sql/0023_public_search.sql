-- The public catalogue's question box (/opportunities?q=, no key) matches public fields only: the
-- title, never the paid description. `search` holds the title at weight A and the description at
-- weight B; this keeps the title's lexemes apart, with their own index, so that a public search
-- (and its exclusions: `-word` must not hide a row for a word of its description) never reads a
-- description's word. Generated from `search`, so the triggers of 0006 keep it without change.

set local maintenance_work_mem = '256MB';

alter table opportunity_search
  add column title_search tsvector generated always as (ts_filter(search, '{a}')) stored;

-- Used in: searchPublicCatalogue (src/catalog/public_search.ts).
create index opportunity_search_title_idx on opportunity_search using gin (title_search)
  with (fastupdate = off);

analyze opportunity_search;
