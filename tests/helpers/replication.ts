/**
 * A real primary and hot standby of the local PostgreSQL 15, for the read-replica tests and the
 * replica benchmark: `initdb`, `pg_basebackup -R` and `pg_ctl` run as the `postgres` user (we
 * may be root), each cluster on a free port with its sockets and files in a temporary folder that
 * `close` removes, even when the start failed half-way. Both log every statement (`log_statement
 * = all`), so a test can see which server ran a read.
 */
import postgres from "postgres";
import type { Sql } from "../../src/db/open.ts";
import { freePort } from "./instances.ts";

/** Where Debian puts PostgreSQL 15's programs; PG_BIN overrides it. */
export const PG_BIN = Deno.env.get("PG_BIN") ?? "/usr/lib/postgresql/15/bin";

/** True when the programs a replica pair needs are installed. */
export function canReplicate(): boolean {
  try {
    return ["initdb", "pg_ctl", "pg_basebackup"].every((p) =>
      Deno.statSync(`${PG_BIN}/${p}`).isFile
    );
  } catch {
    return false;
  }
}

/** A primary and its hot standby, with a database `oppintel` on both. */
export interface ReplicaPair {
  readonly primaryUrl: string;
  readonly standbyUrl: string;
  /** Administrative connections to the `oppintel` database on each. */
  readonly primary: Sql;
  readonly standby: Sql;
  /** What each server logged from `mark` (a length of its log) on; the length now. */
  log(server: "primary" | "standby", from?: number): Promise<{ text: string; end: number }>;
  /** The data folder of each server (its postmaster.pid names its main process). */
  dataDir(server: "primary" | "standby"): string;
  /** Stops the standby (fast shutdown: its connections are cut) or starts it again. */
  stopStandby(): Promise<void>;
  startStandby(): Promise<void>;
  /** Waits until the standby has replayed everything the primary has written. */
  caughtUp(timeoutMs?: number): Promise<void>;
  /** Stops both servers and removes their folder. */
  close(): Promise<void>;
}

const silent = () => {};

async function run(program: string, args: string[]): Promise<string> {
  const asRoot = Deno.uid() === 0;
  const command = new Deno.Command(asRoot ? "runuser" : `${PG_BIN}/${program}`, {
    args: asRoot ? ["-u", "postgres", "--", `${PG_BIN}/${program}`, ...args] : args,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  });
  const { code, stdout, stderr } = await command.output();
  const text = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
  if (code !== 0) throw new Error(`${program} ${args.join(" ")} failed (${code}): ${text}`);
  return text;
}

async function appendConf(dir: string, lines: string[]): Promise<void> {
  await Deno.writeTextFile(`${dir}/postgresql.conf`, `\n${lines.join("\n")}\n`, { append: true });
}

/** Starts a primary and a streaming hot standby; `settings` adds lines to both configurations. */
export async function startReplicaPair(settings: string[] = []): Promise<ReplicaPair> {
  const root = await Deno.makeTempDir({ prefix: "oi_replicas_" });
  if (Deno.uid() === 0) {
    await new Deno.Command("chown", { args: ["postgres:postgres", root] }).output();
  }
  const primaryDir = `${root}/primary`;
  const standbyDir = `${root}/standby`;
  const ports = { primary: freePort(), standby: freePort() };
  const logs = { primary: `${root}/primary.log`, standby: `${root}/standby.log` };
  const started: string[] = [];
  const connections: Sql[] = [];
  const close = async () => {
    await Promise.all(connections.map((c) => c.end({ timeout: 1 }).catch(() => {})));
    for (const dir of started.reverse()) {
      await run("pg_ctl", ["-D", dir, "-m", "immediate", "-w", "stop"]).catch(() => {});
    }
    await Deno.remove(root, { recursive: true }).catch(() => {});
  };
  const start = async (dir: string, log: string) => {
    await run("pg_ctl", ["-D", dir, "-l", log, "-w", "-t", "60", "start"]);
    if (!started.includes(dir)) started.push(dir);
  };
  try {
    await run("initdb", [
      "-D",
      primaryDir,
      "-A",
      "trust",
      "-U",
      "postgres",
      "-E",
      "UTF8",
      "--locale=C.UTF-8",
      "--no-sync",
    ]);
    await appendConf(primaryDir, [
      `port = ${ports.primary}`,
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${root}'`,
      "fsync = off",
      "full_page_writes = off",
      "shared_buffers = 32MB",
      "max_connections = 120",
      "log_statement = 'all'",
      "log_line_prefix = '%m [%p] '",
      ...settings,
    ]);
    await Deno.writeTextFile(
      `${primaryDir}/pg_hba.conf`,
      "host replication all 127.0.0.1/32 trust\n",
      { append: true },
    );
    await start(primaryDir, logs.primary);
    await run("pg_basebackup", [
      "-h",
      "127.0.0.1",
      "-p",
      String(ports.primary),
      "-U",
      "postgres",
      "-D",
      standbyDir,
      "-R",
      "-X",
      "stream",
    ]);
    await appendConf(standbyDir, [`port = ${ports.standby}`]);
    await start(standbyDir, logs.standby);
    const url = (port: number, database: string) =>
      `postgres://postgres@127.0.0.1:${port}/${database}`;
    const admin = postgres(url(ports.primary, "postgres"), { max: 1, onnotice: silent });
    await admin.unsafe("create database oppintel");
    await admin.end();
    const primaryUrl = url(ports.primary, "oppintel");
    const standbyUrl = url(ports.standby, "oppintel");
    const primary = postgres(primaryUrl, { max: 2, onnotice: silent });
    connections.push(primary);
    const standbyConnection = () => {
      const sql = postgres(standbyUrl, { max: 2, onnotice: silent });
      connections.push(sql);
      return sql;
    };
    const caughtUp = async (timeoutMs = 30_000) => {
      const deadline = Date.now() + timeoutMs;
      const [{ lsn }] = await primary<{ lsn: string }[]>`select pg_current_wal_lsn()::text as lsn`;
      for (;;) {
        try {
          const [row] = await standby<{ done: boolean }[]>`
            select pg_last_wal_replay_lsn() >= ${lsn}::pg_lsn as done`;
          if (row.done) return;
        } catch {
          // Not accepting connections yet (a database just created, a start under way).
        }
        if (Date.now() > deadline) throw new Error(`The standby did not replay ${lsn}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    let standby = standbyConnection();
    await caughtUp();
    return {
      primaryUrl,
      standbyUrl,
      primary,
      get standby() {
        return standby;
      },
      dataDir: (server) => server === "primary" ? primaryDir : standbyDir,
      async log(server, from = 0) {
        const bytes = await Deno.readFile(logs[server]);
        return { text: new TextDecoder().decode(bytes.subarray(from)), end: bytes.length };
      },
      async stopStandby() {
        await run("pg_ctl", ["-D", standbyDir, "-m", "fast", "-w", "stop"]);
      },
      async startStandby() {
        await start(standbyDir, logs.standby);
        standby = standbyConnection();
      },
      caughtUp,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
