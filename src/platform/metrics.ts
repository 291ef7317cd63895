/**
 * Prometheus metrics for self-hosting: fed by the handler's request log entries (one per
 * request), rendered in the Prometheus text format at GET /metrics behind an operator token.
 * Labels are route patterns and statuses only, never a raw path, key or account, so the number
 * of series stays small and nothing secret can leak into a scrape.
 */
import { bearerToken, sha256Hex, timingSafeEqual } from "./crypto.ts";
import { json } from "./responses.ts";
import { type MemoryBudget, memoryMetricLines } from "./memory.ts";

/** What the metrics read from the list index (src/catalog/lists/list_index_holder.ts `stats()`). */
export interface ListIndexCounts {
  /** The data version of the index held, and its rows (null and 0: none). */
  version: number | null;
  rows: number;
  /** Loads finished. */
  loads: number;
  /** Lists answered from the index, and lists that went to PostgreSQL while it could not. */
  answered: number;
  passed: number;
  /** Of the answered, those whose rows the admission statement read (ListPlan, content.ts). */
  prefetched: number;
}

/** What the metrics read from the admission groups (src/metering/admission_group.ts `stats`). */
export interface AdmissionCounts {
  /** Group statements that admitted their calls. */
  groups: number;
  /** Calls those groups admitted. */
  calls: number;
  /** Groups that deadlocked and went call by call. */
  deadlocks: number;
}

/** What the metrics read from the content cache (src/catalog/content.ts `stats()`). */
export interface CacheCounts {
  hits: number;
  misses: number;
  entries: number;
}

export interface MetricsOptions {
  /** The content operations, whose cache counts are read at each scrape. */
  content?: { stats(): CacheCounts; listIndex?(): ListIndexCounts | null };
  /**
   * Reads the database's client connections by state at each scrape (db/status.ts
   * connectionsByState: pg_stat_activity); undefined when the database does not answer.
   */
  connections?: () => Promise<{ state: string; n: number }[] | undefined>;
  /** The configured pool size per instance (DB_POOL_MAX), shown as a gauge. */
  poolMax?: number;
  /** The admission groups' counts, read at each scrape. */
  admissions?: () => AdmissionCounts;
  /** How the read replicas stand at each scrape (src/db/replicas.ts), with DATABASE_READ_URL. */
  replicas?: () => Promise<ReplicaCounts>;
  /** The memory budget (MEMORY_BUDGET_MB) and what each part holds (src/platform/memory.ts). */
  memory?: Pick<MemoryBudget, "report">;
}

/** What the metrics read of the read replicas (db/replicas.ts ReplicaStatus, primaryReads). */
export interface ReplicaCounts {
  replicas: {
    replica: number;
    state: string;
    lag_seconds: number | null;
    lag_bytes: number | null;
    reads: number;
    faults: number;
  }[];
  /** Catalogue reads the primary answered: no replica was ready, or the replica's read failed. */
  primaryReads: { none_ready: number; failed: number };
}

/** Request metrics of one instance. */
export interface Metrics {
  /** Counts one request log entry (status, route, ms, quota). */
  record(entry: Record<string, unknown>): void;
  /** The metrics in the Prometheus text exposition format (version 0.0.4). */
  render(): Promise<string>;
}

/** Upper bounds of the latency histogram, in seconds. */
export const LATENCY_BUCKETS = [
  0.001,
  0.0025,
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.25,
  0.5,
  1,
  2.5,
  5,
  10,
];

interface Histogram {
  counts: number[];
  sum: number;
  count: number;
}

/** A label value as Prometheus wants it quoted. */
function labelValue(value: string): string {
  return value.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("\n", "\\n");
}

/** A number as Prometheus prints it. */
function num(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  return String(value);
}

function routeOf(entry: Record<string, unknown>): string {
  return typeof entry.route === "string" ? entry.route : "unmatched";
}

/** Builds the metrics of one instance. */
export function createMetrics(options: MetricsOptions = {}): Metrics {
  // Keyed by `route\u0000status`: both come from fixed sets (route patterns, HTTP statuses).
  const requests = new Map<string, number>();
  const latency = new Map<string, Histogram>();
  let charges = 0;
  let rejections = 0;

  function record(entry: Record<string, unknown>): void {
    const route = routeOf(entry);
    const status = typeof entry.status === "number" ? entry.status : 0;
    const key = `${route}\u0000${status}`;
    requests.set(key, (requests.get(key) ?? 0) + 1);
    if (entry.quota === "charged") charges++;
    if (entry.quota === "rejected") rejections++;
    if (typeof entry.ms !== "number" || !Number.isFinite(entry.ms)) return;
    const seconds = entry.ms / 1000;
    let h = latency.get(route);
    if (!h) {
      h = { counts: LATENCY_BUCKETS.map(() => 0), sum: 0, count: 0 };
      latency.set(route, h);
    }
    for (let i = 0; i < LATENCY_BUCKETS.length; i++) {
      if (seconds <= LATENCY_BUCKETS[i]) h.counts[i]++;
    }
    h.sum += seconds;
    h.count++;
  }

  async function render(): Promise<string> {
    const out: string[] = [];
    const family = (name: string, type: string, help: string) =>
      out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);

    family("oppintel_http_requests_total", "counter", "Requests answered, by route and status.");
    for (const [key, value] of [...requests].sort(([a], [b]) => a.localeCompare(b))) {
      const [route, status] = key.split("\u0000");
      out.push(
        `oppintel_http_requests_total{route="${labelValue(route)}",status="${status}"} ${value}`,
      );
    }

    family(
      "oppintel_http_request_duration_seconds",
      "histogram",
      "Time from receiving a request to its response, by route.",
    );
    for (const [route, h] of [...latency].sort(([a], [b]) => a.localeCompare(b))) {
      const r = `route="${labelValue(route)}"`;
      LATENCY_BUCKETS.forEach((le, i) => {
        out.push(`oppintel_http_request_duration_seconds_bucket{${r},le="${le}"} ${h.counts[i]}`);
      });
      out.push(`oppintel_http_request_duration_seconds_bucket{${r},le="+Inf"} ${h.count}`);
      out.push(`oppintel_http_request_duration_seconds_sum{${r}} ${num(h.sum)}`);
      out.push(`oppintel_http_request_duration_seconds_count{${r}} ${h.count}`);
    }

    family("oppintel_quota_charges_total", "counter", "Calls that took one unit of quota.");
    out.push(`oppintel_quota_charges_total ${charges}`);
    family(
      "oppintel_quota_rejections_total",
      "counter",
      "Calls refused with 429 because the monthly quota was used up.",
    );
    out.push(`oppintel_quota_rejections_total ${rejections}`);

    if (options.content) {
      const { hits, misses, entries } = options.content.stats();
      family("oppintel_cache_hits_total", "counter", "Content cache lookups answered from cache.");
      out.push(`oppintel_cache_hits_total ${hits}`);
      family("oppintel_cache_misses_total", "counter", "Content cache lookups that queried.");
      out.push(`oppintel_cache_misses_total ${misses}`);
      family("oppintel_cache_entries", "gauge", "Answers held in the content cache.");
      out.push(`oppintel_cache_entries ${entries}`);
      family(
        "oppintel_cache_hit_ratio",
        "gauge",
        "Hits over lookups since start (0 before the first lookup).",
      );
      out.push(`oppintel_cache_hit_ratio ${num(hits + misses > 0 ? hits / (hits + misses) : 0)}`);
      const lists = options.content.listIndex?.();
      if (lists) {
        family(
          "oppintel_list_index_rows",
          "gauge",
          "Opportunities in the list index held (0: none).",
        );
        out.push(`oppintel_list_index_rows ${lists.rows}`);
        family(
          "oppintel_list_index_version",
          "gauge",
          "Data version of the list index (-1: none).",
        );
        out.push(`oppintel_list_index_version ${lists.version ?? -1}`);
        family("oppintel_list_index_loads_total", "counter", "List index loads finished.");
        out.push(`oppintel_list_index_loads_total ${lists.loads}`);
        family(
          "oppintel_list_index_lists_total",
          "counter",
          "Lists without q that missed the cache, by whether the list index answered them.",
        );
        out.push(`oppintel_list_index_lists_total{answered="true"} ${lists.answered}`);
        out.push(`oppintel_list_index_lists_total{answered="false"} ${lists.passed}`);
        family(
          "oppintel_list_index_prefetched_total",
          "counter",
          "Lists from the list index whose rows the admission statement read.",
        );
        out.push(`oppintel_list_index_prefetched_total ${lists.prefetched}`);
      }
    }

    if (options.admissions) {
      const { groups, calls, deadlocks } = options.admissions();
      family(
        "oppintel_admission_groups_total",
        "counter",
        "Calls admitted together, by statement.",
      );
      out.push(`oppintel_admission_groups_total ${groups}`);
      family(
        "oppintel_admission_grouped_calls_total",
        "counter",
        "Calls those statements admitted.",
      );
      out.push(`oppintel_admission_grouped_calls_total ${calls}`);
      family("oppintel_admission_deadlocks_total", "counter", "Groups that went call by call.");
      out.push(`oppintel_admission_deadlocks_total ${deadlocks}`);
    }

    if (options.memory) out.push(...memoryMetricLines(options.memory.report()));

    if (options.poolMax !== undefined) {
      family("oppintel_db_pool_max", "gauge", "Connections this instance may open (DB_POOL_MAX).");
      out.push(`oppintel_db_pool_max ${options.poolMax}`);
    }

    if (options.connections) out.push(...await databaseLines(options.connections));
    if (options.replicas) out.push(...replicaLines(await options.replicas()));
    return out.join("\n") + "\n";
  }

  return { record, render };
}

const CONNECTION_STATES = ["active", "idle", "idle in transaction", "other"];

/** Whether the database answers, and its connections by state. */
async function databaseLines(
  connections: () => Promise<{ state: string; n: number }[] | undefined>,
): Promise<string[]> {
  const out = [
    "# HELP oppintel_db_up Whether the database answered the scrape's query (1) or not (0).",
    "# TYPE oppintel_db_up gauge",
  ];
  const rows = await connections();
  if (!rows) {
    out.push("oppintel_db_up 0");
    return out;
  }
  out.push("oppintel_db_up 1");
  const byState = new Map<string, number>();
  for (const { state, n } of rows) {
    const s = CONNECTION_STATES.includes(state) ? state : "other";
    byState.set(s, (byState.get(s) ?? 0) + n);
  }
  out.push(
    "# HELP oppintel_db_connections Client connections to this database by state, all instances.",
    "# TYPE oppintel_db_connections gauge",
  );
  for (const state of CONNECTION_STATES) {
    out.push(`oppintel_db_connections{state="${state}"} ${byState.get(state) ?? 0}`);
  }
  return out;
}

/** Each replica's state, lag and reads, and the catalogue reads the primary took instead. */
function replicaLines({ replicas, primaryReads }: ReplicaCounts): string[] {
  const out: string[] = [];
  const family = (name: string, type: string, help: string, values: [string, number][]) => {
    out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const [labels, value] of values) out.push(`${name}{${labels}} ${num(value)}`);
  };
  const each = (value: (r: ReplicaCounts["replicas"][number]) => number | null) =>
    replicas.flatMap((r): [string, number][] => {
      const v = value(r);
      return v === null ? [] : [[`replica="${r.replica}"`, v]];
    });
  family(
    "oppintel_db_replica_up",
    "gauge",
    "Whether the replica takes catalogue reads (1: ready or only behind) or is skipped (0).",
    each((r) => r.state === "ready" || r.state === "behind" ? 1 : 0),
  );
  family(
    "oppintel_db_replica_lag_seconds",
    "gauge",
    "How far the replica's replay is behind, in seconds (0: it replayed all it received).",
    each((r) => r.lag_seconds),
  );
  family(
    "oppintel_db_replica_lag_bytes",
    "gauge",
    "Bytes of the primary's WAL the replica has not replayed.",
    each((r) => r.lag_bytes),
  );
  family(
    "oppintel_db_replica_reads_total",
    "counter",
    "Catalogue reads the replica answered.",
    each((r) => r.reads),
  );
  family(
    "oppintel_db_replica_faults_total",
    "counter",
    "Times the replica was skipped for a fault (down, a time-out).",
    each((r) => r.faults),
  );
  family(
    "oppintel_db_primary_catalogue_reads_total",
    "counter",
    "Catalogue reads the primary answered, by why: no replica ready (behind, lagging, down) or " +
      "the replica's read failed.",
    [
      ['reason="none_ready"', primaryReads.none_ready],
      ['reason="failed"', primaryReads.failed],
    ],
  );
  return out;
}

function jsonError(status: number, error: string, message: string, headers = {}): Response {
  return json(status, { error, message }, headers);
}

/**
 * The GET /metrics endpoint: 404 when no token is configured (the endpoint does not exist),
 * 401 without `Authorization: Bearer <token>`, 405 for another method, else the metrics.
 */
export function metricsHandler(
  metrics: Metrics,
  token: string | undefined,
): (request: Request) => Promise<Response> {
  return async function serveMetrics(request: Request): Promise<Response> {
    if (!token) return jsonError(404, "not_found", 'Cannot find "/metrics"');
    // Both digested first, so the comparison's time says nothing about the token's length.
    const given = bearerToken(request);
    if (!given || !timingSafeEqual(await sha256Hex(given), await sha256Hex(token))) {
      return jsonError(401, "unauthorized", "A valid metrics token is required", {
        "WWW-Authenticate": 'Bearer realm="metrics"',
      });
    }
    if (request.method !== "GET" && request.method !== "HEAD") {
      return jsonError(
        405,
        "method_not_allowed",
        `Method ${request.method} is not allowed here; use GET`,
        {
          Allow: "GET",
        },
      );
    }
    const body = await metrics.render();
    return new Response(request.method === "HEAD" ? null : body, {
      status: 200,
      headers: {
        "Content-Type": "text/plain; version=0.0.4; charset=utf-8",
        "Cache-Control": "no-store",
      },
    });
  };
}
