-- Plans of filtered lists at 1,000,000 rows (issue 19's random filters and pages). Measured
-- before and after in bench/FINDINGS.md.
--
-- The exact total of a filtered list: without this index, a count by platform read the whole
-- wide table (1.5 GB at 1M rows, 300 ms alone, past the 2 s time-out when ten ran at once on two
-- cores). The list's filters are all in it, and `platform` itself is included because
-- PostgreSQL takes an index-only scan on an expression only when the column under it is in the
-- index too: a count by platform, recommendation, score and online_only reads the index alone
-- (11-67 ms at 1M).
create index opportunities_count_idx on opportunities (lower(platform), recommendation, score)
  include (is_online_deliverable, platform);

-- The recommendation follows the score (a Skip almost never scores 60), which the planner cannot
-- know from one column at a time: it expected 85,775 rows of `recommendation = 'Skip' and score
-- >= 60` where there are 24, walked the newest-first index for them, and read all of it (3.7 s
-- for one page). The pairs' frequencies (about 300) fit a most-common-values list of this size.
create statistics opportunities_filter_stats (mcv) on recommendation, score from opportunities;
alter statistics opportunities_filter_stats set statistics 400;
analyze opportunities;
