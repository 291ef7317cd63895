import postgres from "postgres";
import type { Config } from "../platform/config.ts";
import type { EmbeddedServer } from "./embedded.ts";
import { createReadRouter, type ReadRouter, replicaName } from "./replicas.ts";

export type Sql = postgres.Sql;

/** The largest value of a PostgreSQL `integer` column (ids, counts). */
export const MAX_INTEGER = 2_147_483_647;

/** An open database: the postgres.js handle every query uses, whichever engine is behind it. */
export interface Database {
  readonly sql: Sql;
  readonly kind: "postgres" | "embedded";
  /** True when this process reached an embedded database owned by another process. */
  readonly shared: boolean;
  /**
   * Where catalogue reads run, with DATABASE_READ_URL (the serving pool only): a replica that
   * has replayed the request's data version, or the primary. Undefined: all on `sql`.
   */
  readonly replicas?: ReadRouter;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** Pool size of postgres.js; the configured DB_POOL_MAX by default. */
  max?: number;
  /**
   * The settings of the service's own pool: the statement time-out, and asynchronous commit.
   * The service writes only the quota counter and last_used_at; with asynchronous commit a
   * crash may lose the last few increments (a few calls go uncounted) but can never add one.
   * The CLI, imports and migrations do not use them.
   */
  serving?: boolean;
  /**
   * For the embedded database: use the socket of a server already running on the same
   * DATA_DIR when there is one (the operator CLI), instead of refusing to start (the server).
   */
  joinRunning?: boolean;
  /** Receives the replicas' log lines (skipped, restored); a JSON line on stderr by default. */
  log?: (entry: Record<string, unknown>) => void;
}

const silent = () => {};

/** Opens PostgreSQL when `DATABASE_URL` is set, else the embedded database in `DATA_DIR`. */
export async function openDatabase(config: Config, options: OpenOptions = {}): Promise<Database> {
  const max = options.max ?? config.db.poolMax;
  if (config.databaseUrl) {
    const pooled = config.db.transactionPooler;
    const connection: Record<string, string> = {};
    // A transaction-mode pooler refuses startup parameters: set these on the role instead.
    if (options.serving && !pooled) {
      connection.synchronous_commit = "off";
      connection.statement_timeout = String(config.db.statementTimeoutMs);
    }
    const open = (url: string) =>
      postgres(url, {
        max,
        onnotice: silent,
        connect_timeout: config.db.connectTimeoutS,
        // A transaction-mode pooler cannot keep named prepared statements across transactions.
        prepare: !pooled,
        connection,
        // postgres.js backs off up to 20 s between reconnects and queries wait for it: cap it,
        // so that while the database is away requests answer 503 fast and recover at once.
        backoff: (retries: number) => Math.min(0.05 * 2 ** retries, 0.5),
      });
    const sql = open(config.databaseUrl);
    const urls = options.serving ? config.databaseReadUrls : [];
    if (urls.length === 0) {
      return { sql, kind: "postgres", shared: false, close: () => sql.end({ timeout: 5 }) };
    }
    const timeout = config.db.statementTimeoutMs;
    const replicas = createReadRouter({
      primary: sql,
      replicas: urls.map((url) => ({ sql: open(url), name: replicaName(url) })),
      maxLagMs: config.db.readMaxLagMs,
      // A read is one statement or a few (a list's counts, then its page).
      readDeadlineMs: timeout > 0 ? 2 * timeout : 0,
      log: options.log,
    });
    return {
      sql,
      kind: "postgres",
      shared: false,
      replicas,
      close: async () => {
        await replicas.close();
        await sql.end({ timeout: 5 });
      },
    };
  }
  // Loaded only here, so a service on DATABASE_URL (Deno Deploy) never loads PGlite.
  const { findRunningEmbedded, startEmbedded } = await import("./embedded.ts");
  const running = await findRunningEmbedded(config.dataDir);
  if (running) {
    if (!options.joinRunning) {
      throw new Error(
        `Another process (pid ${running.pid}) already serves the embedded database in ` +
          `"${config.dataDir}"; stop it or set another DATA_DIR`,
      );
    }
    const sql = connectEmbedded(running, max);
    return { sql, kind: "embedded", shared: true, close: () => sql.end({ timeout: 5 }) };
  }
  const server: EmbeddedServer = await startEmbedded(config.dataDir);
  const sql = connectEmbedded(server, max);
  return {
    sql,
    kind: "embedded",
    shared: false,
    close: async () => {
      await sql.end({ timeout: 5 });
      await server.close();
    },
  };
}

/**
 * One connection to the embedded server, whatever the pool size asked: PGlite is one backend
 * session behind its socket, so the statements and the unnamed portal of several connections are
 * one session's, and a Bind of one connection could land between another's Bind and Execute
 * ("portal does not exist" under concurrent transactions). PGlite runs one statement at a time in
 * any case; postgres.js pipelines the queries of its one connection.
 */
function connectEmbedded(address: { host: string; port: number }, _max: number): Sql {
  return postgres({
    host: address.host,
    port: address.port,
    user: "postgres",
    database: "postgres",
    max: 1,
    onnotice: silent,
  });
}
