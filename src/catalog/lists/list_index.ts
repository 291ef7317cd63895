/**
 * The list index: the columns every list filter and order reads, of every opportunity, held in
 * memory as typed arrays once per data version, with the rows in the list order (score, newest,
 * id: a row's position is its rank in that order). A list without `q` is then answered from
 * memory, its exact total and its page's ids (list_index_page.ts), and PostgreSQL reads only
 * the page's rows by primary key. A cold list at a million rows had cost three statements
 * (admission, count, page), each planned afresh among many shapes; it now costs the admission
 * and one lookup of its ids.
 *
 * One index is held at a time, read in one snapshot with the data version it belongs to, and a
 * list is answered from it only at that version; at any other version (the first seconds of a
 * process, the seconds after an import) the list goes to PostgreSQL as before while the newer
 * index loads (list_index_holder.ts). A catalogue of more than `maxRows` opportunities is not held.
 */
import type { Sql } from "../../db/open.ts";
import { RECOMMENDATIONS } from "../schemas.ts";

/** Opportunities held at most by default (about 70 bytes each); past it, lists stay in PostgreSQL. */
export const MAX_INDEX_ROWS = 2_000_000;

/** The positions of each value's rows, ascending: value v's are positions[offsets[v]..offsets[v+1]]. */
export interface Postings {
  offsets: Int32Array;
  positions: Int32Array;
}

/**
 * The filter and order columns of every opportunity, by position in the list order. Three filters
 * are one code, the group (online, recommendation, platform: GROUPS_PER_PLATFORM per platform), and
 * the four sub-scores another (4 bits each), so that a row is checked in two reads.
 */
export interface ListIndex {
  /** The data version of the snapshot the index was read in. */
  version: number;
  rows: number;
  id: Int32Array;
  /** created_at in microseconds since the epoch (exact in a double). */
  us: Float64Array;
  score: Uint8Array;
  /** online (1 bit) + 2 x the recommendation's index in RECOMMENDATIONS + 6 x the platform's. */
  group: Uint16Array;
  groups: number;
  /** pain | willingness to pay << 4 | tech difficulty << 8 | sustainability << 12. */
  subs: Uint16Array;
  /** Index into `channels`, `themes`. */
  channel: Uint32Array;
  theme: Uint32Array;
  /** The positions in the newest order (created_at, id, both descending). */
  newest: Int32Array;
  /** Each position's rank in the newest order. */
  newestRank: Int32Array;
  /** scoreEnd[s]: the first position whose score is below s (0 <= s <= 101). */
  scoreEnd: Int32Array;
  /** groupAtLeast[g * 102 + s]: the rows of group g whose score is at least s. */
  groupAtLeast: Int32Array;
  /**
   * Per sub-score order (SUB_ORDERS), [(g * 11 + k) * 102 + s]: the rows of group g whose key in
   * that order is k (0-10, descending: the difficulty's is 10 minus it) and whose score is at
   * least s.
   */
  subAtLeast: Int32Array[];
  /** Per sub-score order, the positions of each key (0-10), ascending. */
  bySub: Postings[];
  /**
   * The rows counted by (score, group, sub-scores): the counts of lists with sub-score bounds
   * come from it (217,000 entries for a million rows), its entries in descending score.
   */
  cube: Cube;
  /** Lowercased by PostgreSQL, as the platform filter compares it. */
  platforms: Map<string, number>;
  channels: Map<string, number>;
  /** A theme's slug to its index, and each theme's category (an index into `categories`). */
  themes: Map<string, number>;
  categories: Map<string, number>;
  themeCategory: Int32Array;
  byPlatform: Postings;
  byChannel: Postings;
  byTheme: Postings;
  byCategory: Postings;
}

/**
 * Rows counted by group, score and sub-scores, each group's entries in descending score:
 * group g's entries with a score of at least s are [start[g], end[g * 102 + s]).
 */
export interface Cube {
  subs: Uint16Array;
  n: Int32Array;
  start: Int32Array;
  end: Int32Array;
}

/** The sub-score orders, in the order of ListIndex.subAtLeast and bySub. */
export const SUB_ORDERS = [
  "pain_point_intensity",
  "willingness_to_pay",
  "tech_difficulty",
  "sustainability",
] as const;

/** Groups of one platform: online (2) x recommendation (3). */
export const GROUPS_PER_PLATFORM = 6;

/**
 * Platforms at most: the counts per group, sub-score and score take 180 KB per platform; a
 * catalogue with more is not held.
 */
const MAX_PLATFORMS = 64;

/** A sub-score order's key of a row's sub-scores code (0-10, descending in the order). */
export function subKey(subs: number, order: number): number {
  const value = (subs >> (order * 4)) & 15;
  return order === 2 ? 10 - value : value;
}

type IndexRow = [
  number,
  number,
  number,
  boolean,
  string,
  string,
  number,
  string,
  number,
  number,
  number,
  number,
];

/**
 * Reads the index in one read-only snapshot, with its data version; "too_large" past `maxRows`
 * (or past MAX_PLATFORMS platforms, or when `admit` refuses its rows). Rows arrive in the list order through a cursor, 20,000 at a
 * time.
 */
export async function loadListIndex(
  sql: Sql,
  maxRows = MAX_INDEX_ROWS,
  /** Whether memory can hold an index of `rows` rows (src/platform/memory.ts); none: yes. */
  admit: (rows: number) => boolean = () => true,
): Promise<ListIndex | "too_large"> {
  const read = await sql.begin("isolation level repeatable read read only", async (tx) => {
    // One long read at a million rows: longer than a request's statement time-out.
    await tx`select set_config('statement_timeout', '120s', true)`;
    const [{ version, n }] = await tx<{ version: number; n: number }[]>`
      select (select version::float8 from data_version) as version,
        (select count(*)::int from opportunities) as n`;
    if (n > maxRows || !admit(n)) return "too_large" as const;
    const themeRows = await tx<{ id: number; slug: string; category: string }[]>`
      select t.id, t.slug, c.slug as category
      from themes t join categories c on c.id = t.category_id order by t.id`;
    const index = emptyIndex(version, n);
    const themeOf = new Map<number, number>();
    const categories = new Map<string, number>();
    index.themeCategory = new Int32Array(themeRows.length);
    themeRows.forEach((t, i) => {
      themeOf.set(t.id, i);
      index.themes.set(t.slug, i);
      if (!categories.has(t.category)) categories.set(t.category, categories.size);
      index.themeCategory[i] = categories.get(t.category)!;
    });
    index.categories = categories;
    const code = (map: Map<string, number>, key: string) => {
      let found = map.get(key);
      if (found === undefined) map.set(key, found = map.size);
      return found;
    };
    let i = 0;
    await tx`
      select o.id, o.score, (extract(epoch from o.created_at) * 1000000)::bigint::float8 as us,
        o.is_online_deliverable, o.recommendation, lower(o.platform), o.theme_id, o.channel_name,
        o.pain_point_intensity, o.willingness_to_pay_score, o.tech_difficulty,
        o.sustainability_score
      from opportunities o order by o.score desc, o.created_at desc, o.id desc`
      .values().cursor(20_000, (batch) => {
        for (const r of batch as IndexRow[]) {
          // A row written after the count (not in this snapshot) cannot be met; the check
          // keeps the arrays' bounds whatever happens.
          if (i >= n) break;
          index.id[i] = r[0];
          index.score[i] = r[1];
          index.us[i] = r[2];
          const verdict = (RECOMMENDATIONS as readonly string[]).indexOf(r[4]);
          index.group[i] = (r[3] ? 1 : 0) + 2 * verdict +
            GROUPS_PER_PLATFORM * Math.min(code(index.platforms, r[5]), MAX_PLATFORMS - 1);
          index.theme[i] = themeOf.get(r[6]) ?? 0;
          index.channel[i] = code(index.channels, r[7]);
          index.subs[i] = r[8] | (r[9] << 4) | (r[10] << 8) | (r[11] << 12);
          i++;
        }
      });
    if (i !== n) throw new Error(`The list index read ${i} rows of ${n}`);
    if (index.platforms.size > MAX_PLATFORMS) return "too_large" as const;
    return index;
  }) as ListIndex | "too_large";
  // Built after the snapshot's transaction, letting requests run between its steps.
  return read === "too_large" ? read : await finish(read);
}

/** Lets the event loop run (requests, the embedded database) between the steps of a long build. */
const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * The positions in the newest order (created_at, id, both descending): sorted in chunks and
 * merged, the event loop let run between steps (one sort of a million positions held a server's
 * requests for most of a second).
 */
export async function newestOrder(us: Float64Array, id: Int32Array): Promise<Int32Array> {
  const n = us.length;
  const before = (a: number, b: number) => us[b] - us[a] || id[b] - id[a];
  let from = new Int32Array(n);
  for (let p = 0; p < n; p++) from[p] = p;
  const CHUNK = 1 << 16;
  for (let start = 0; start < n; start += CHUNK) {
    from.subarray(start, Math.min(n, start + CHUNK)).sort(before);
    await tick();
  }
  let to = new Int32Array(n);
  for (let width = CHUNK; width < n; width *= 2) {
    for (let left = 0; left < n; left += 2 * width) {
      const mid = Math.min(n, left + width);
      const end = Math.min(n, left + 2 * width);
      let i = left, j = mid, k = left;
      while (i < mid && j < end) to[k++] = before(from[i], from[j]) <= 0 ? from[i++] : from[j++];
      while (i < mid) to[k++] = from[i++];
      while (j < end) to[k++] = from[j++];
      await tick();
    }
    [from, to] = [to, from];
  }
  return from;
}

function emptyIndex(version: number, n: number): ListIndex {
  const postings = { offsets: new Int32Array(1), positions: new Int32Array(0) };
  return {
    version,
    rows: n,
    id: new Int32Array(n),
    us: new Float64Array(n),
    score: new Uint8Array(n),
    group: new Uint16Array(n),
    groups: 0,
    subs: new Uint16Array(n),
    channel: new Uint32Array(n),
    theme: new Uint32Array(n),
    newest: new Int32Array(n),
    newestRank: new Int32Array(n),
    scoreEnd: new Int32Array(102),
    groupAtLeast: new Int32Array(0),
    subAtLeast: [],
    bySub: [],
    cube: {
      subs: new Uint16Array(0),
      n: new Int32Array(0),
      start: new Int32Array(0),
      end: new Int32Array(0),
    },
    platforms: new Map(),
    channels: new Map(),
    themes: new Map(),
    categories: new Map(),
    themeCategory: new Int32Array(0),
    byPlatform: postings,
    byChannel: postings,
    byTheme: postings,
    byCategory: postings,
  };
}

/** The derived parts: score bounds, counts, the newest order, the postings of each filter. */
async function finish(index: ListIndex): Promise<ListIndex> {
  const { rows: n, score, group, subs } = index;
  // Scores descend along the positions.
  let at = n;
  for (let s = 0; s <= 101; s++) {
    while (at > 0 && score[at - 1] < s) at--;
    index.scoreEnd[s] = at;
  }
  const groups = index.groups = GROUPS_PER_PLATFORM * Math.max(1, index.platforms.size);
  // Counts of each score first, then summed from the top score down.
  const atLeast = new Int32Array(groups * 102);
  const subAtLeast = SUB_ORDERS.map(() => new Int32Array(groups * 11 * 102));
  for (let p = 0; p < n; p++) {
    atLeast[group[p] * 102 + score[p]]++;
    for (let o = 0; o < SUB_ORDERS.length; o++) {
      subAtLeast[o][(group[p] * 11 + subKey(subs[p], o)) * 102 + score[p]]++;
    }
  }
  const accumulate = (counts: Int32Array) => {
    for (let base = 0; base < counts.length; base += 102) {
      for (let s = 99; s >= 0; s--) counts[base + s] += counts[base + s + 1];
    }
  };
  accumulate(atLeast);
  subAtLeast.forEach(accumulate);
  await tick();
  index.groupAtLeast = atLeast;
  index.subAtLeast = subAtLeast;
  const { us, id } = index;
  const newest = await newestOrder(us, id);
  index.newest = newest;
  for (let k = 0; k < n; k++) index.newestRank[newest[k]] = k;
  await tick();
  const platform = new Uint32Array(n);
  for (let p = 0; p < n; p++) platform[p] = Math.floor(group[p] / GROUPS_PER_PLATFORM);
  index.byPlatform = postingsOf(platform, index.platforms.size);
  index.byChannel = postingsOf(index.channel, index.channels.size);
  index.byTheme = postingsOf(index.theme, index.themes.size);
  const category = new Uint32Array(n);
  for (let p = 0; p < n; p++) category[p] = index.themeCategory[index.theme[p]];
  index.byCategory = postingsOf(category, index.categories.size);
  await tick();
  index.cube = cubeOf(score, group, subs, groups);
  index.bySub = [];
  for (let o = 0; o < SUB_ORDERS.length; o++) {
    await tick();
    const keys = new Uint32Array(n);
    for (let p = 0; p < n; p++) keys[p] = subKey(subs[p], o);
    index.bySub.push(postingsOf(keys, 11));
  }
  return index;
}

/** The rows counted by (group, score, sub-scores), by group and then descending score. */
function cubeOf(score: Uint8Array, group: Uint16Array, subs: Uint16Array, groups: number): Cube {
  // A key that sorts by group, then descending score, then sub-scores.
  const keyOf = (p: number) => group[p] * 2 ** 24 + (255 - score[p]) * 2 ** 16 + subs[p];
  const counts = new Map<number, number>();
  for (let p = 0; p < score.length; p++) {
    const key = keyOf(p);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const keys = Float64Array.from(counts.keys()).sort();
  const cube: Cube = {
    subs: new Uint16Array(keys.length),
    n: new Int32Array(keys.length),
    start: new Int32Array(groups + 1),
    end: new Int32Array(groups * 102),
  };
  const groupOf = (key: number) => Math.floor(key / 2 ** 24);
  const scoreOf = (key: number) => 255 - (Math.floor(key / 2 ** 16) % 2 ** 8);
  keys.forEach((key, i) => {
    cube.subs[i] = key % 2 ** 16;
    cube.n[i] = counts.get(key)!;
  });
  let i = 0;
  for (let g = 0; g < groups; g++) {
    cube.start[g] = i;
    while (i < keys.length && groupOf(keys[i]) === g) i++;
    // Within the group, entries i0..i descend in score: end[s] is the first below s.
    let end = i;
    for (let s = 0; s <= 101; s++) {
      while (end > cube.start[g] && scoreOf(keys[end - 1]) < s) end--;
      cube.end[g * 102 + s] = end;
    }
  }
  cube.start[groups] = i;
  return cube;
}

/** Each value's positions in ascending order (a counting sort). */
function postingsOf(column: Uint32Array, values: number): Postings {
  const offsets = new Int32Array(values + 1);
  for (let p = 0; p < column.length; p++) offsets[column[p] + 1]++;
  for (let v = 0; v < values; v++) offsets[v + 1] += offsets[v];
  const next = offsets.slice(0, values);
  const positions = new Int32Array(column.length);
  for (let p = 0; p < column.length; p++) positions[next[column[p]]++] = p;
  return { offsets, positions };
}
