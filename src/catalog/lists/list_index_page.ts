/**
 * A list's exact total and the ids of its page, from the list index (list_index.ts), for every
 * combination of the list filters, in the score, newest and sub-score orders, by page number or
 * by cursor.
 *
 * - A list filtered only by `online_only`, `recommendation`, `platform` and `min_score` is counted
 *   from the index's counts per group and score (per sub-score key too, for the sub-score orders),
 *   and its page is found by walking its order (the positions; a platform's postings; each
 *   sub-score key's postings; the newest order) until the page is full.
 * - Any other (a sub-score bound, a channel, theme or category) scans the smallest set its filters
 *   name (a channel's, theme's, category's or platform's postings, else every row) as far as
 *   `min_score` reaches (scores descend along the positions) and keeps every match, in position
 *   order: the total is their number, and the page is cut from them, sorted by their sub-score key
 *   or their rank in the newest order when the order asks (a newest list of more than
 *   NEWEST_SORTED matches walks the newest order instead).
 *
 * A cursor is the position after its keys: the walk starts there, or the page starts at the first
 * match past it.
 */
import { GROUPS_PER_PLATFORM, type ListIndex, SUB_ORDERS, subKey } from "./list_index.ts";
import { type OpportunityQuery, RECOMMENDATIONS, type SubScoreSort } from "../schemas.ts";
import { searchText } from "../common.ts";
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
  /** Whether each group (online, recommendation, platform) passes. */
  groupOk: Uint8Array;
  platform: number;
  channel: number;
  theme: number;
  category: number;
  bounded: boolean;
  minPain: number;
  minPay: number;
  maxDifficulty: number;
  minSustainability: number;
  minScore: number;
  /** The positions below it have a score of at least min_score. */
  end: number;
  /** Counted from the index's counts (and the cube, with bounds): no channel, theme or category. */
  counted: boolean;
}

/** Where a page is cut: rows skipped, and rows wanted (the page and the next row). */
interface Window {
  skip: number;
  want: number;
}

/**
 * The page of `query` (page_size rows and the next one, when there is one) and its total;
 * undefined when the index cannot answer it: a question (q), the relevance order, a platform
 * that is not printable ASCII (JavaScript and PostgreSQL could lowercase it differently). Throws
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
  const f = filterOf(index, query);
  if (!f) return { total: 0, ids: [] };
  const w = { skip: keys ? 0 : (query.page - 1) * query.page_size, want: query.page_size + 1 };
  const { total, positions } = isSubScoreSort(sort)
    ? subScorePage(index, f, sort, w, keys)
    : sort === "newest"
    ? newestPage(index, f, w, keys, newestSorted)
    : scorePage(index, f, w, keys);
  return { total, ids: Array.from(positions, (p) => index.id[p]) };
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
  const verdict = query.recommendation
    ? (RECOMMENDATIONS as readonly string[]).indexOf(query.recommendation)
    : -1;
  const groupOk = new Uint8Array(index.groups);
  for (let g = 0; g < index.groups; g++) {
    groupOk[g] = ((g & 1) === 1 || !query.online_only) &&
        (verdict < 0 || ((g >> 1) % 3) === verdict) &&
        (platform < 0 || Math.floor(g / GROUPS_PER_PLATFORM) === platform)
      ? 1
      : 0;
  }
  const minPain = query.min_pain_point_intensity ?? 0;
  const minPay = query.min_willingness_to_pay ?? 0;
  const maxDifficulty = query.max_tech_difficulty ?? 10;
  const minSustainability = query.min_sustainability ?? 0;
  const bounded = minPain > 0 || minPay > 0 || maxDifficulty < 10 || minSustainability > 0;
  const minScore = Math.max(0, Math.min(101, query.min_score));
  return {
    groupOk,
    platform,
    channel,
    theme,
    category,
    bounded,
    minPain,
    minPay,
    maxDifficulty,
    minSustainability,
    minScore,
    end: index.scoreEnd[minScore],
    counted: channel < 0 && theme < 0 && category < 0,
  };
}

/**
 * Writes the matching positions of `list[from..to)` (or of the positions from..to without a list)
 * that are below `below` into `out` from `at`, until `out` holds `limit`; returns the new end.
 */
function collect(
  index: ListIndex,
  f: Filter,
  list: Int32Array | undefined,
  from: number,
  to: number,
  below: number,
  out: Int32Array,
  at: number,
  limit: number,
): number {
  const { group, subs, channel, theme, themeCategory } = index;
  const { groupOk, bounded } = f;
  const fc = f.channel, ft = f.theme, fk = f.category;
  const pass = (p: number): boolean => {
    if (p >= below || groupOk[group[p]] === 0) return false;
    if (bounded && !inBounds(f, subs[p])) return false;
    return (fc < 0 || channel[p] === fc) && (ft < 0 || theme[p] === ft) &&
      (fk < 0 || themeCategory[theme[p]] === fk);
  };
  if (list === undefined) {
    for (let p = from; p < to && at < limit; p++) if (pass(p)) out[at++] = p;
  } else {
    for (let k = from; k < to && at < limit; k++) {
      const p = list[k];
      if (pass(p)) out[at++] = p;
    }
  }
  return at;
}

/**
 * The smallest set the filter names, as a list and its range of positions in [start, end):
 * a channel's, theme's, category's or platform's postings, or the positions themselves.
 */
function driverOf(
  index: ListIndex,
  f: Filter,
  start: number,
): { list?: Int32Array; from: number; to: number } {
  let best: { list?: Int32Array; from: number; to: number } = { from: start, to: f.end };
  const narrow = (postings: { offsets: Int32Array; positions: Int32Array }, value: number) => {
    if (value < 0) return;
    const { offsets, positions } = postings;
    const from = firstAtLeast(positions, offsets[value], offsets[value + 1], start);
    const to = firstAtLeast(positions, from, offsets[value + 1], f.end);
    if (to - from < best.to - best.from) best = { list: positions, from, to };
  };
  narrow(index.byChannel, f.channel);
  narrow(index.byTheme, f.theme);
  narrow(index.byCategory, f.category);
  narrow(index.byPlatform, f.platform);
  return best;
}

/**
 * Every match, in position order (the list order), in a buffer of the index's size that the next
 * call reuses (a page is read from it before indexPage returns).
 */
function allMatches(index: ListIndex, f: Filter): Int32Array {
  const { list, from, to } = driverOf(index, f, 0);
  const out = scratch.get(index) ?? new Int32Array(index.rows);
  scratch.set(index, out);
  const end = collect(index, f, list, from, to, f.end, out, 0, out.length);
  return out.subarray(0, end);
}

/** The buffer of allMatches, one per index. */
const scratch = new WeakMap<ListIndex, Int32Array>();

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

/** Whether a row's sub-scores code passes the filter's bounds. */
function inBounds(f: Filter, c: number): boolean {
  return (c & 15) >= f.minPain && ((c >> 4) & 15) >= f.minPay &&
    ((c >> 8) & 15) <= f.maxDifficulty && (c >> 12) >= f.minSustainability;
}

/**
 * The matches of a bounded filter without channel, theme or category, from the cube: the total,
 * and with `order` the matches of each key of that sub-score order.
 */
function cubeCounts(index: ListIndex, f: Filter, order = -1): { total: number; keys: number[] } {
  const { subs, n, start, end } = index.cube;
  const keys = new Array<number>(11).fill(0);
  let total = 0;
  for (let g = 0; g < index.groups; g++) {
    if (f.groupOk[g] === 0) continue;
    for (let i = start[g]; i < end[g * 102 + f.minScore]; i++) {
      if (!inBounds(f, subs[i])) continue;
      total += n[i];
      if (order >= 0) keys[subKey(subs[i], order)] += n[i];
    }
  }
  return { total, keys };
}

/** The rows of the filter's groups with a score of at least min_score. */
function countedTotal(index: ListIndex, f: Filter): number {
  if (f.bounded) return cubeCounts(index, f).total;
  let total = 0;
  for (let g = 0; g < index.groups; g++) {
    if (f.groupOk[g]) total += index.groupAtLeast[g * 102 + f.minScore];
  }
  return total;
}

function scorePage(index: ListIndex, f: Filter, w: Window, keys?: number[]): Found {
  const from = keys ? afterKeys(index, keys[0], keys[1], keys[2]) : 0;
  if (f.counted) {
    const { list, from: a, to } = driverOf(index, f, from);
    const out = new Int32Array(w.skip + w.want);
    const end = collect(index, f, list, a, to, f.end, out, 0, out.length);
    return { total: countedTotal(index, f), positions: out.subarray(Math.min(w.skip, end), end) };
  }
  const all = allMatches(index, f);
  const start = keys ? firstAtLeast(all, 0, all.length, from) : w.skip;
  return { total: all.length, positions: all.subarray(start, start + w.want) };
}

interface Found {
  total: number;
  positions: Int32Array | number[];
}

function subScorePage(
  index: ListIndex,
  f: Filter,
  sort: SubScoreSort,
  w: Window,
  keys?: number[],
): Found {
  const order = SUB_ORDERS.indexOf(sort);
  // The cursor's key in the order (its sub-score, as the order ranks it) and its position.
  const cursorKey = keys ? subKey(Math.max(0, Math.min(15, keys[0])) << (order * 4), order) : 11;
  const from = keys ? afterKeys(index, keys[1], keys[2], keys[3]) : 0;
  if (f.counted) {
    const counts = f.bounded ? cubeCounts(index, f, order).keys : new Array<number>(11).fill(0);
    for (let g = 0; g < index.groups && !f.bounded; g++) {
      if (!f.groupOk[g]) continue;
      for (let k = 0; k <= 10; k++) {
        counts[k] += index.subAtLeast[order][(g * 11 + k) * 102 + f.minScore];
      }
    }
    const total = counts.reduce((a, b) => a + b, 0);
    // Walk each key's postings from the highest key (from the cursor's), the keys wholly above
    // the page skipped by their counts; out[r] is the match of rank r (its skipped ranks unset).
    const out = new Int32Array(w.skip + w.want);
    const { offsets, positions } = index.bySub[order];
    let at = -1;
    let above = 0;
    for (let k = 10; k >= 0 && at < out.length; k--) {
      if (keys && k > cursorKey) continue;
      if (at < 0) {
        if (!keys && above + counts[k] <= w.skip) {
          above += counts[k];
          continue;
        }
        at = keys ? 0 : above;
      }
      const a = firstAtLeast(positions, offsets[k], offsets[k + 1], k === cursorKey ? from : 0);
      const b = firstAtLeast(positions, a, offsets[k + 1], f.end);
      at = collect(index, f, positions, a, b, f.end, out, at, out.length);
    }
    at = Math.max(at, 0);
    return { total, positions: out.subarray(Math.min(w.skip, at), at) };
  }
  const all = allMatches(index, f);
  const subs = index.subs;
  const counts = new Array<number>(12).fill(0);
  let before = 0;
  for (let i = 0; i < all.length; i++) {
    const k = subKey(subs[all[i]], order);
    counts[k]++;
    if (k === cursorKey && all[i] < from) before++;
  }
  // base[k]: the matches whose key is above k, which come first.
  const base = new Array<number>(12).fill(0);
  for (let k = 9; k >= 0; k--) base[k] = base[k + 1] + counts[k + 1];
  const skip = !keys
    ? w.skip
    : cursorKey > 10
    ? 0
    : cursorKey < 0
    ? all.length
    : base[cursorKey] + before;
  const end = Math.min(all.length, skip + w.want);
  const page: number[] = [];
  const seen = new Array<number>(11).fill(0);
  for (let i = 0; i < all.length && skip < end; i++) {
    const k = subKey(subs[all[i]], order);
    const rank = base[k] + seen[k]++;
    if (rank >= skip && rank < end) page[rank - skip] = all[i];
  }
  return { total: all.length, positions: page };
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
  let total: number;
  if (f.counted) total = countedTotal(index, f);
  else {
    const all = allMatches(index, f);
    total = all.length;
    if (total <= sorted) {
      const rank = index.newestRank;
      const byRank = Array.from(all).sort((a, b) => rank[a] - rank[b]);
      let start = w.skip;
      if (keys) {
        start = 0;
        while (start < byRank.length && rank[byRank[start]] < from) start++;
      }
      return { total, positions: byRank.slice(start, start + w.want) };
    }
  }
  const out = new Int32Array(w.skip + w.want);
  const end = collect(index, f, newest, from, index.rows, f.end, out, 0, out.length);
  return { total, positions: out.subarray(Math.min(w.skip, end), end) };
}
