-- Plans of filtered lists at 1,000,000 rows (issue 19's random filters and pages). Measured
-- before and after in bench/FINDINGS.md.
--
-- The exact total of a filtered list: without this index, a count by platform read the whole
-- wide table (1.5 GB at 1M rows, 300 ms alone, past the 2 s time-out when ten ran at once on two
-- cores). The filters of the list's usual counts are all in it, so a count by platform,
-- recommendation, score and online_only reads the index alone: 15-27 ms at 1M with a recommendation, 76-95 ms by
-- platform alone (a scan of the whole index, which is a twentieth of the table). `platform` is
-- stored as it is, once: `lower(platform)` as a key would also need the column itself for an
-- index-only scan, and two copies of a 500-character platform can pass the 2,704-byte limit of
-- an index row (an import of such a record would fail).
create index opportunities_count_idx on opportunities (recommendation, score, platform)
  include (is_online_deliverable);

-- The recommendation follows the score (a Skip almost never scores 60), which the planner cannot
-- know from one column at a time: it expected 85,775 rows of `recommendation = 'Skip' and score
-- >= 60` where there are 24, walked the newest-first index for them, and read all of it (3.7 s
-- for one page). The pairs' frequencies (about 300) fit a most-common-values list of this size.
create statistics opportunities_filter_stats (mcv) on recommendation, score from opportunities;
alter statistics opportunities_filter_stats set statistics 400;
analyze opportunities;
