/**
 * A list's exact total and the ids of its page, from the list index (list_index.ts), for every
 * combination of the list filters, in the score, newest and sub-score orders, by page number
 * or by cursor. The rows are scanned from the smallest set the filters name (a platform's,
 * channel's, theme's or category's postings, else every row), only as far as `min_score` reaches
 * (scores descend along the positions):
 *
 * - score order: one pass counts the matches and keeps the page's (the positions are the order);
 * - a sub-score order: one pass counts the matches of each sub-score value (0-10), which places
 *   the page among the values; a second keeps the page's rows (within a value, position order);
 * - newest order: one pass counts (and keeps up to NEWEST_SORTED matches, then sorted by their
 *   rank in the newest order); a larger list walks the newest order until its page is full.
 *
 * A cursor turns into a number of rows to skip: the matches before its keys in the order.
 */
import type { ListIndex } from "./list_index.ts";
import { type OpportunityQuery, RECOMMENDATIONS } from "./schemas.ts";
import { searchText } from "./common.ts";
import { cursorKeys, sortOf } from "./opportunity_cursor.ts";
import { isSubScoreSort } from "./sub_scores.ts";

/** A page from the index: the list's total and the ids of its rows and of the next one. */
export interface IndexPage {
  total: number;
  ids: number[];
}

/** Lists in the newest order of at most this many matches are sorted; larger ones walked. */
const NEWEST_SORTED = 50_000;

/** A query's filters resolved to the index's codes; -1: no filter. */
interface Filter {
  online: number;
  verdict: number;
  platform: number;
  channel: number;
  theme: number;
  category: number;
  minPain: number;
  minPay: number;
  maxDifficulty: number;
  minSustainability: number;
  /** The positions below it have a score of at least min_score. */
  end: number;
}

/**
 * The page of `query` (page_size rows and the next one, when there is one) and its total; undefined
 * when the index cannot answer it: a question (q), the relevance order, a platform that is not
 * printable ASCII (JavaScript and PostgreSQL could lowercase it differently). Throws
 * InvalidCursorError for a cursor of another list, as the statements would.
 */
export function indexPage(
  index: ListIndex,
  query: OpportunityQuery,
  newestSorted = NEWEST_SORTED,
): IndexPage | undefined {
  if (searchText(query.q)) return undefined;
  const sort = sortOf(query);
  if (sort === "relevance") return undefined;
  if (query.platform && !/^[\x20-\x7e]*$/.test(query.platform)) return undefined;
  const keys = cursorKeys(query)?.map(Number);
  const filter = filterOf(index, query);
  if (!filter) return { total: 0, ids: [] };
  const window = { skip: keys ? 0 : (query.page - 1) * query.page_size, want: query.page_size + 1 };
  const found = isSubScoreSort(sort)
    ? subScorePage(index, filter, sort, window, keys)
    : sort === "newest"
    ? newestPage(index, filter, window, keys, newestSorted)
    : scorePage(index, filter, window, keys);
  return { total: found.total, ids: found.positions.map((p) => index.id[p]) };
}

interface Window {
  skip: number;
  want: number;
}

interface Found {
  total: number;
  positions: number[];
}

/** The filter's codes; null when a name it gives names nothing (the list is empty). */
function filterOf(index: ListIndex, query: OpportunityQuery): Filter | null {
  const code = (map: Map<string, number>, name: string | undefined) =>
    name ? map.get(name) ?? null : -1;
  const platform = code(index.platforms, query.platform?.toLowerCase());
  const channel = code(index.channels, query.channel);
  const theme = code(index.themes, query.theme);
  const category = code(index.categories, query.category);
  if (platform === null || channel === null || theme === null || category === null) return null;
  return {
    online: query.online_only ? 1 : 0,
    verdict: query.recommendation
      ? (RECOMMENDATIONS as readonly string[]).indexOf(query.recommendation)
      : -1,
    platform,
    channel,
    theme,
    category,
    minPain: query.min_pain_point_intensity ?? 0,
    minPay: query.min_willingness_to_pay ?? 0,
    maxDifficulty: query.max_tech_difficulty ?? 10,
    minSustainability: query.min_sustainability ?? 0,
    end: index.scoreEnd[Math.max(0, Math.min(101, query.min_score))],
  };
}

/** Whether the row at a position passes the filter (its score aside: see Filter.end). */
function matcher(index: ListIndex, f: Filter): (p: number) => boolean {
  const { online, verdict, platform, channel, theme, themeCategory } = index;
  const { pain, pay, difficulty, sustainability } = index;
  return (p) =>
    online[p] >= f.online && (f.verdict < 0 || verdict[p] === f.verdict) &&
    (f.platform < 0 || platform[p] === f.platform) && (f.channel < 0 || channel[p] === f.channel) &&
    (f.theme < 0 || theme[p] === f.theme) &&
    (f.category < 0 || themeCategory[theme[p]] === f.category) &&
    pain[p] >= f.minPain && pay[p] >= f.minPay && difficulty[p] <= f.maxDifficulty &&
    sustainability[p] >= f.minSustainability;
}

/** Calls `visit` with every matching position, ascending. */
function eachMatch(index: ListIndex, f: Filter, visit: (p: number) => void): void {
  const ok = matcher(index, f);
  // The smallest of the postings the filter names, cut at `end`; else positions 0 to end.
  let list: Int32Array | undefined;
  let from = 0;
  let to = f.end;
  const narrow = (postings: { offsets: Int32Array; positions: Int32Array }, value: number) => {
    if (value < 0) return;
    const a = postings.offsets[value];
    const b = firstAtLeast(postings.positions, a, postings.offsets[value + 1], f.end);
    if (b - a >= to - from) return;
    list = postings.positions;
    from = a;
    to = b;
  };
  narrow(index.byChannel, f.channel);
  narrow(index.byTheme, f.theme);
  narrow(index.byCategory, f.category);
  narrow(index.byPlatform, f.platform);
  if (list === undefined) {
    for (let p = from; p < to; p++) if (ok(p)) visit(p);
  } else {
    for (let k = from; k < to; k++) if (ok(list[k])) visit(list[k]);
  }
}

/** The first k in [lo, hi) with sorted[k] >= value (hi when none). */
function firstAtLeast(sorted: Int32Array, lo: number, hi: number, value: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first position after the keys (score, created_at in microseconds, id) of a cursor. */
function afterKeys(index: ListIndex, score: number, us: number, id: number): number {
  const s = index.score, u = index.us, d = index.id;
  let lo = 0, hi = index.rows;
  while (lo < hi) {
    const p = (lo + hi) >>> 1;
    const after = s[p] < score || (s[p] === score && (u[p] < us || (u[p] === us && d[p] < id)));
    if (after) hi = p;
    else lo = p + 1;
  }
  return lo;
}

function scorePage(index: ListIndex, f: Filter, w: Window, keys?: number[]): Found {
  const from = keys ? afterKeys(index, keys[0], keys[1], keys[2]) : 0;
  const positions: number[] = [];
  let total = 0;
  let seen = 0;
  eachMatch(index, f, (p) => {
    total++;
    if (p < from) return;
    if (seen >= w.skip && positions.length < w.want) positions.push(p);
    seen++;
  });
  return { total, positions };
}

function subScorePage(
  index: ListIndex,
  f: Filter,
  sort: "pain_point_intensity" | "willingness_to_pay" | "tech_difficulty" | "sustainability",
  w: Window,
  keys?: number[],
): Found {
  const column = {
    pain_point_intensity: index.pain,
    willingness_to_pay: index.pay,
    tech_difficulty: index.difficulty,
    sustainability: index.sustainability,
  }[sort];
  // The order's key, 0-10 and descending: the difficulty's is 10 minus it (easiest first).
  const flip = sort === "tech_difficulty";
  const keyOf = (p: number) => flip ? 10 - column[p] : column[p];
  const counts = new Array<number>(11).fill(0);
  const cursorKey = keys ? (flip ? 10 - keys[0] : keys[0]) : -1;
  const from = keys ? afterKeys(index, keys[1], keys[2], keys[3]) : 0;
  let before = 0;
  eachMatch(index, f, (p) => {
    const k = keyOf(p);
    counts[k]++;
    if (k === cursorKey && p < from) before++;
  });
  // base[k]: the matches whose key is above k, which come first.
  const base = new Array<number>(12).fill(0);
  for (let k = 10; k >= 0; k--) base[k] = base[k + 1] + counts[k];
  const total = base[0];
  for (let k = 0; k <= 10; k++) base[k] -= counts[k];
  const skip = keys
    ? (cursorKey >= 0 && cursorKey <= 10 ? base[cursorKey] + before : total)
    : w.skip;
  const positions: number[] = [];
  if (skip >= total) return { total, positions };
  const end = Math.min(total, skip + w.want);
  const seen = new Array<number>(11).fill(0);
  eachMatch(index, f, (p) => {
    const k = keyOf(p);
    const rank = base[k] + seen[k]++;
    if (rank >= skip && rank < end) positions[rank - skip] = p;
  });
  return { total, positions };
}

function newestPage(
  index: ListIndex,
  f: Filter,
  w: Window,
  keys: number[] | undefined,
  sorted: number,
): Found {
  const { newest, us, id } = index;
  // The first rank in the newest order after the cursor's keys (created_at, id).
  let from = 0;
  if (keys) {
    let hi = index.rows;
    while (from < hi) {
      const k = (from + hi) >>> 1;
      const p = newest[k];
      if (us[p] < keys[0] || (us[p] === keys[0] && id[p] < keys[1])) hi = k;
      else from = k + 1;
    }
  }
  const kept: number[] = [];
  let total = 0;
  eachMatch(index, f, (p) => {
    if (total++ < sorted) kept.push(p);
  });
  if (total <= sorted) {
    const rank = index.newestRank;
    kept.sort((a, b) => rank[a] - rank[b]);
    const start = keys ? firstRankAtLeast(kept, rank, from) : w.skip;
    return { total, positions: kept.slice(start, start + w.want) };
  }
  const ok = matcher(index, f);
  const positions: number[] = [];
  let seen = 0;
  for (let k = from; k < index.rows && positions.length < w.want; k++) {
    const p = newest[k];
    if (p >= f.end || !ok(p)) continue;
    if (seen++ >= w.skip) positions.push(p);
  }
  return { total, positions };
}

/** The first index of `kept` (sorted by rank) whose rank is at least `from`. */
function firstRankAtLeast(kept: number[], rank: Int32Array, from: number): number {
  let lo = 0, hi = kept.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (rank[kept[mid]] < from) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
