-- Lists fast for every combination of filters at 1,000,000 rows (docs/architecture.md, "Lists
-- at a million rows"). A page in the score order reads only its score band (src/catalog/
-- score_band.ts), walking a sort index within the band and checking the filters the index's
-- key does not hold. Those checks read the table row when the index does not carry the
-- filter's column: page 21 of platform=hackernews&recommendation=Skip read 77,000 table pages.
-- The sort indexes now carry every filter column but the channel (a channel has its own index
-- and few rows; a channel and a platform of 2,000 bytes each would pass the 2,704-byte limit of
-- an index row), so that the check is made in the index (an index-only scan) and the table is
-- read for the page's own rows only.

-- Used in: lists with the default online_only=true, in the score order.
drop index opportunities_online_sort_idx;
create index opportunities_online_sort_idx on opportunities (score desc, created_at desc, id desc)
  include (recommendation, platform, theme_id) where is_online_deliverable;

-- Used in: lists with online_only=false, in the score order.
drop index opportunities_sort_idx;
create index opportunities_sort_idx on opportunities (score desc, created_at desc, id desc)
  include (recommendation, platform, theme_id, is_online_deliverable);

-- Used in: lists filtered by recommendation (the filter that follows the score), in the score order.
drop index opportunities_recommendation_idx;
create index opportunities_recommendation_idx on opportunities
  (recommendation, score desc, created_at desc, id desc)
  include (platform, theme_id, is_online_deliverable);

-- Used in: lists in the newest order (no band there: the filters are checked in the index).
drop index opportunities_online_newest_idx;
create index opportunities_online_newest_idx on opportunities (created_at desc, id desc)
  include (score, recommendation, platform, theme_id) where is_online_deliverable;
drop index opportunities_newest_idx;
create index opportunities_newest_idx on opportunities (created_at desc, id desc)
  include (score, recommendation, platform, theme_id, is_online_deliverable);

-- The summary tables (sql/0014_list_counts.sql) are rewritten compact. Every writing statement
-- updates their rows, so a large import leaves them many times their live size: after the
-- seed of 1,000,000 rows the platform summary held 1,847 rows in 27 MB, and every count and
-- score band of a list read all of it (15-35 ms). Vacuum frees the space for the next writes but
-- does not give it back, so a scan stays that long; rewritten, the sum reads a few pages.
cluster opportunity_counts_by_platform using opportunity_counts_by_platform_pkey;
cluster opportunity_counts_by_theme using opportunity_counts_by_theme_pkey;
cluster opportunity_counts using opportunity_counts_key;

analyze opportunities, opportunity_counts_by_platform, opportunity_counts_by_theme,
  opportunity_counts;
