/**
 * Catalogue reads on read replicas (DATABASE_READ_URL). postgres.js does no read/write routing
 * (its several hosts are for failover), so this chooses, for each read, the primary or a replica:
 *
 * - Coherent by data version: every import bumps `data_version` in the transaction of its data,
 *   and a request knows the version the primary reported for it (the admission statement reads
 *   it). A replica is read only once it has replayed that version, and never one older than the
 *   newest version this instance has seen, so no instance serves an older catalogue than one it
 *   has already served. A replica behind is checked once more (it may have caught up since); if
 *   still behind, that read goes to the primary.
 * - Faults: a replica that fails a read (down, a statement time-out, no answer within the read
 *   deadline) is skipped with a log line, its read done again on the primary, and tried again
 *   after a back-off (1 s, doubling to 30 s). One whose replay is behind by more than the lag
 *   bound is skipped until it catches up. The quota's statement is never here: it runs on the
 *   primary before the read, so a replica's failure cannot undo a charge.
 */
import type postgres from "postgres";
import { ApiError } from "../platform/errors.ts";

// postgres.Sql, as open.ts names it (open.ts imports this file).
type Sql = postgres.Sql;

/** How a replica stands, as /healthz and /metrics show it (no host: /healthz is public). */
export interface ReplicaStatus {
  /** Its place in DATABASE_READ_URL, from 1. */
  replica: number;
  /** ready: read; behind: has not replayed the newest version; lagging: past the bound. */
  state: "ready" | "behind" | "lagging" | "down" | "unknown";
  /** The data version it has replayed, as last seen. */
  version: number | null;
  /** Seconds its replay is behind (0 when it has replayed all it received). */
  lag_seconds: number | null;
  /** Bytes of the primary's WAL it has not replayed. */
  lag_bytes: number | null;
  /** Its replay is paused (pg_wal_replay_pause). */
  paused: boolean;
  /** Catalogue reads it answered since start. */
  reads: number;
  /** Times it was skipped for a fault (down, slow) since start. */
  faults: number;
}

/** Chooses where each catalogue read runs. */
export interface ReadRouter {
  /**
   * Runs `read` on a replica that has replayed data version `version` (undefined: the version
   * the primary reports now), or on the primary; a replica's failure is retried on the primary.
   * A domain error (not found ...) is the answer, not a failure.
   */
  run<T>(version: number | undefined, read: (sql: Sql) => Promise<T>): Promise<T>;
  /** Checks every replica now (bounded by the read deadline) and says how each stands. */
  check(): Promise<ReplicaStatus[]>;
  /** Catalogue reads answered by the primary since start, by why. */
  primaryReads(): { none_ready: number; failed: number };
  close(): Promise<void>;
}

export interface RouterOptions {
  primary: Sql;
  /** One pool per replica; `name` (host:port/database, no password) is for log lines only. */
  replicas: { sql: Sql; name: string }[];
  /** A replica whose replay is further behind is skipped; 0: no bound. */
  maxLagMs: number;
  /** A replica's read unanswered after this is abandoned for the primary; 0: no deadline. */
  readDeadlineMs: number;
  log?: (entry: Record<string, unknown>) => void;
}

interface Replica {
  readonly index: number;
  readonly name: string;
  readonly sql: Sql;
  version: number;
  lagS: number | null;
  lagBytes: number | null;
  paused: boolean;
  /** When it was last checked (ms since the epoch); 0: never. */
  checkedAt: number;
  checking?: Promise<void>;
  /** Skipped for a fault until `retryAt`. */
  down: boolean;
  retryAt: number;
  failures: number;
  lagging: boolean;
  reads: number;
  faults: number;
}

/** Background checks refresh a replica's version and lag at most this often. */
const REFRESH_MS = 1_000;
/** A replica behind is checked again, awaited, at most this often. */
const RECHECK_MS = 50;
const MAX_BACKOFF_MS = 30_000;
/** How long /healthz and /metrics wait for the replicas' checks. */
const CHECK_WAIT_MS = 1_000;

/** The name of a replica in log lines: host, port and database, never the password. */
export function replicaName(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}${u.port ? `:${u.port}` : ""}${u.pathname}`;
  } catch {
    return "replica";
  }
}

class DeadlineError extends Error {}

function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  if (ms <= 0) return work;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError(`no answer within ${ms} ms`)), ms);
  });
  work.catch(() => {});
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Builds the router over the primary and its replicas. */
export function createReadRouter(options: RouterOptions): ReadRouter {
  const { primary, maxLagMs, readDeadlineMs } = options;
  const log = options.log ?? ((entry) => console.error(JSON.stringify(entry)));
  const replicas: Replica[] = options.replicas.map((r, i) => ({
    index: i + 1,
    name: r.name,
    sql: r.sql,
    version: -1,
    lagS: null,
    lagBytes: null,
    paused: false,
    checkedAt: 0,
    down: false,
    retryAt: 0,
    failures: 0,
    lagging: false,
    reads: 0,
    faults: 0,
  }));
  // The newest data version this instance has been told of: never read below it.
  let newest = -1;
  let turn = 0;
  const fallbacks = { none_ready: 0, failed: 0 };

  function fail(replica: Replica, error: unknown): void {
    replica.failures++;
    replica.faults++;
    const backoff = Math.min(1_000 * 2 ** (replica.failures - 1), MAX_BACKOFF_MS);
    replica.down = true;
    replica.retryAt = Date.now() + backoff;
    log({
      level: "warn",
      event: "replica_skipped",
      replica: replica.name,
      reason: messageOf(error),
      retry_in_ms: backoff,
    });
  }

  function noteLag(replica: Replica): void {
    const lagging = maxLagMs > 0 && replica.lagS !== null && replica.lagS * 1000 > maxLagMs;
    if (lagging !== replica.lagging) {
      log({
        level: lagging ? "warn" : "info",
        event: lagging ? "replica_lagging" : "replica_caught_up",
        replica: replica.name,
        lag_seconds: replica.lagS,
        max_lag_ms: maxLagMs,
      });
    }
    replica.lagging = lagging;
  }

  /**
   * Reads the replica's data version; `withLag` also its lag (and the primary's WAL position),
   * which a provider may not let a role see: then the lag is unknown, not a fault.
   */
  function refresh(replica: Replica, withLag: boolean): Promise<void> {
    replica.checking ??= (async () => {
      const deadline = readDeadlineMs || 5_000;
      try {
        const [row] = await withDeadline(
          replica.sql<{ version: number }[]>`select version::float8 as version from data_version`,
          deadline,
        );
        replica.version = Math.max(replica.version, row.version);
        if (withLag) await readLag(replica, deadline);
        replica.checkedAt = Date.now();
        if (replica.down) {
          log({ level: "info", event: "replica_restored", replica: replica.name });
          replica.down = false;
          replica.failures = 0;
        }
      } catch (error) {
        if (!replica.down || Date.now() >= replica.retryAt) fail(replica, error);
      } finally {
        replica.checking = undefined;
      }
    })();
    return replica.checking;
  }

  async function readLag(replica: Replica, deadline: number): Promise<void> {
    const lsn = await primaryLsn();
    try {
      const [row] = await withDeadline(
        replica.sql<{ lag_s: number | null; bytes: number | null; paused: boolean }[]>`
          select
            case when not pg_is_in_recovery() then 0
              when pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() then 0
              else extract(epoch from clock_timestamp() - pg_last_xact_replay_timestamp())
            end::float8 as lag_s,
            case when ${lsn}::pg_lsn is not null
              then greatest(pg_wal_lsn_diff(${lsn}::pg_lsn, pg_last_wal_replay_lsn()), 0)::float8
            end as bytes,
            case when pg_is_in_recovery() then pg_is_wal_replay_paused() else false end as paused`,
        deadline,
      );
      replica.lagS = row.lag_s === null ? null : Math.max(row.lag_s, 0);
      replica.lagBytes = row.bytes;
      replica.paused = row.paused;
    } catch (error) {
      if (
        !(error instanceof Error && "code" in error && typeof error.code === "string" &&
          /^(42|0A)/.test(error.code))
      ) throw error;
      // Not allowed or not supported here (a permission, an engine of the provider's own).
      replica.lagS = null;
      replica.lagBytes = null;
    }
    noteLag(replica);
  }

  async function primaryLsn(): Promise<string | null> {
    try {
      const [row] = await primary<{ lsn: string }[]>`select pg_current_wal_lsn()::text as lsn`;
      return row.lsn;
    } catch {
      return null;
    }
  }

  async function primaryVersion(): Promise<number> {
    const [row] = await primary<{ version: number }[]>`
      select version::float8 as version from data_version`;
    return row?.version ?? 0;
  }

  /** Usable for a read now: not skipped for a fault (or due a retry, started in background). */
  function usable(replica: Replica, now: number): boolean {
    if (replica.down) {
      if (now >= replica.retryAt && !replica.checking) void refresh(replica, false);
      return false;
    }
    if (now - replica.checkedAt > REFRESH_MS && !replica.checking) void refresh(replica, true);
    return !replica.lagging;
  }

  async function choose(required: number): Promise<Replica | undefined> {
    const now = Date.now();
    const order = replicas.map((_, i) => replicas[(turn + i) % replicas.length]);
    turn = (turn + 1) % replicas.length;
    const live = order.filter((r) => usable(r, now));
    const ready = live.find((r) => r.version >= required);
    if (ready) return ready;
    // Behind as last seen: it may have replayed the version since. Checked once more (shared
    // by the reads waiting for it), unless it was checked a moment ago.
    for (const replica of live) {
      if (Date.now() - replica.checkedAt < RECHECK_MS && !replica.checking) continue;
      await refresh(replica, false);
      if (!replica.down && !replica.lagging && replica.version >= required) return replica;
    }
    return undefined;
  }

  return {
    async run(version, read) {
      const asked = version ?? await primaryVersion();
      newest = Math.max(newest, asked);
      const replica = replicas.length > 0 ? await choose(newest) : undefined;
      if (!replica) {
        fallbacks.none_ready++;
        return await read(primary);
      }
      try {
        const answer = await withDeadline(read(replica.sql), readDeadlineMs);
        replica.reads++;
        return answer;
      } catch (error) {
        if (error instanceof ApiError) throw error;
        if (!replica.down) fail(replica, error);
        fallbacks.failed++;
        return await read(primary);
      }
    },
    async check() {
      newest = Math.max(newest, await primaryVersion().catch(() => -1));
      const now = Date.now();
      // A replica that does not answer must not hold /healthz past a load balancer's time-out:
      // after CHECK_WAIT_MS its last known state is shown (the check goes on in the background).
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        Promise.all(
          replicas.map((r) => !r.down || now >= r.retryAt ? refresh(r, true) : undefined),
        ),
        new Promise((resolve) => timer = setTimeout(resolve, CHECK_WAIT_MS)),
      ]);
      clearTimeout(timer);
      return replicas.map((r) => ({
        replica: r.index,
        state: r.down
          ? "down"
          : r.checkedAt === 0
          ? "unknown"
          : r.lagging
          ? "lagging"
          : r.version < newest
          ? "behind"
          : "ready",
        version: r.version < 0 ? null : r.version,
        lag_seconds: r.lagS,
        lag_bytes: r.lagBytes,
        paused: r.paused,
        reads: r.reads,
        faults: r.faults,
      }));
    },
    primaryReads: () => ({ ...fallbacks }),
    async close() {
      await Promise.all(replicas.map((r) => r.sql.end({ timeout: 5 })));
    },
  };
}
