import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { unaccent } from "@electric-sql/pglite/contrib/unaccent";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import postgres from "postgres";

/** The embedded PostgreSQL (PGlite), served on a loopback socket so postgres.js can reach it. */
export interface EmbeddedServer {
  readonly host: string;
  readonly port: number;
  /** A snapshot of the whole database, to start other instances from (tests use it). */
  dump(): Promise<Blob>;
  close(): Promise<void>;
}

interface ServerFile {
  host: string;
  port: number;
  pid: number;
}

const MEMORY = "memory://";

function serverFilePath(dataDir: string): string {
  return `${dataDir.replace(/\/+$/, "")}/server.json`;
}

/** The WAL a checkpoint keeps: two segments, the least PostgreSQL accepts. */
const WAL_BOUNDS = ["-c", "min_wal_size=32MB", "-c", "max_wal_size=32MB"];

/**
 * Opens PGlite in `dataDir` (or in memory) with the extensions the schema needs, loaded from the
 * snapshot `from` if given. startEmbedded serves it; tests reuse one between tests
 * (tests/helpers/embedded_pool.ts).
 */
export async function openPglite(dataDir: string, options: { from?: Blob } = {}): Promise<PGlite> {
  const inMemory = dataDir.startsWith(MEMORY);
  if (!inMemory) await Deno.mkdir(`${dataDir}/pgdata`, { recursive: true });
  return await PGlite.create({
    dataDir: inMemory ? MEMORY : `${dataDir}/pgdata`,
    extensions: { pg_trgm, unaccent },
    loadDataDir: options.from,
    // PGlite is PostgreSQL in single-user mode: nothing checkpoints by the volume of WAL, and a
    // checkpoint keeps up to max_wal_size of old segments for reuse (1 GB by default). Kept small,
    // a checkpoint after a large write (the demo seed: 257 MB of WAL) gives the disk back.
    startParams: [...PGlite.defaultStartParams, ...WAL_BOUNDS],
  });
}

/** `db` served on a loopback port of its own; `stop` closes the port and its connections. */
export async function servePglite(
  db: PGlite,
): Promise<{ host: string; port: number; stop(): Promise<void> }> {
  const socket = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: 20 });
  await socket.start();
  const port = Number(socket.getServerConn().split(":").pop());
  return { host: "127.0.0.1", port, stop: () => socket.stop() };
}

/**
 * Starts PGlite in `dataDir` (or in memory) and serves it on 127.0.0.1. The address is written
 * to `dataDir/server.json` so that a second process (the operator CLI) can share the one owner's
 * database instead of opening the files twice.
 */
export async function startEmbedded(
  dataDir: string,
  options: { from?: Blob } = {},
): Promise<EmbeddedServer> {
  const db = await openPglite(dataDir, options);
  const socket = await servePglite(db);
  const file = dataDir.startsWith(MEMORY) ? undefined : serverFilePath(dataDir);
  if (file) {
    const info: ServerFile = { host: socket.host, port: socket.port, pid: Deno.pid };
    await Deno.writeTextFile(file, JSON.stringify(info));
  }
  let closed = false;
  return {
    host: socket.host,
    port: socket.port,
    dump: () => db.dumpDataDir("none"),
    close: async () => {
      if (closed) return;
      closed = true;
      if (file) await Deno.remove(file).catch(() => {});
      await socket.stop();
      await db.close();
    },
  };
}

/** The address of a live embedded server on `dataDir`, or undefined when none answers. */
export async function findRunningEmbedded(dataDir: string): Promise<ServerFile | undefined> {
  if (dataDir.startsWith(MEMORY)) return undefined;
  let info: ServerFile;
  try {
    info = JSON.parse(await Deno.readTextFile(serverFilePath(dataDir)));
  } catch {
    return undefined;
  }
  if (info.pid === Deno.pid) return undefined;
  const probe = postgres({
    host: info.host,
    port: info.port,
    user: "postgres",
    database: "postgres",
    max: 1,
    connect_timeout: 2,
    onnotice: () => {},
  });
  try {
    await probe`select 1`;
    return info;
  } catch {
    // A stale file from a process that died: nobody owns the files now.
    return undefined;
  } finally {
    await probe.end({ timeout: 1 }).catch(() => {});
  }
}
