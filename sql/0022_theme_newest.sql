-- The theme filter in the newest order (docs/architecture.md, "Lists at a million rows"). The
-- newest order has no score band: its page walks the newest index and checks the filters in it.
-- A theme holds 1-3% of the rows, so page 50 of the rarest theme at 1,000,000 rows walked about
-- 125,000 index entries (57 ms) and page 350 all of them (280 ms, three parallel workers). Keyed
-- by the theme, the walk reads the theme's own entries only (page 50: 1 ms, page 350: 20 ms). The
-- score order needs nothing new: opportunities_theme_idx and the score band serve it.

-- Used in: lists with theme= in the newest order.
create index opportunities_theme_newest_idx on opportunities (theme_id, created_at desc, id desc)
  include (score, recommendation, platform, is_online_deliverable);

analyze opportunities;
