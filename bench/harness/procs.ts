/**
 * Child processes of the benchmark: every process it starts is registered here, so that one
 * call stops them all however the run ends (error, Ctrl-C, normal end).
 */

/** A started child process with where its standard error went. */
export interface Proc {
  name: string;
  child: Deno.ChildProcess;
  pid: number;
  /** The file standard error is copied to, for a post-mortem. */
  logFile: string;
  startedAt: number;
}

const running = new Set<Proc>();
let logDir: string | undefined;

/** The directory holding the logs of the children, made on first use. */
export async function logDirectory(): Promise<string> {
  logDir ??= await Deno.makeTempDir({ prefix: "oppintel_bench_logs_" });
  return logDir;
}

/** A free TCP port on 127.0.0.1 (asked from the kernel, then released). */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** Milliseconds to wait. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Starts `deno run -A <args>` (or another command) in `cwd`, standard output discarded (the
 * service writes a log line per request) and standard error copied to a log file.
 */
export async function start(
  name: string,
  args: string[],
  options: { env: Record<string, string>; cwd: string; command?: string; clearEnv?: boolean },
): Promise<Proc> {
  const logFile = `${await logDirectory()}/${name}-${Date.now()}.log`;
  const file = await Deno.open(logFile, { write: true, create: true, truncate: true });
  const child = new Deno.Command(options.command ?? Deno.execPath(), {
    args: options.command ? args : ["run", "-A", ...args],
    cwd: options.cwd,
    env: options.env,
    clearEnv: options.clearEnv ?? false,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  // The copy ends when the child closes its standard error; a failed copy must not crash the run.
  child.stderr.pipeTo(file.writable).catch(() => {});
  const proc: Proc = { name, child, pid: child.pid, logFile, startedAt: performance.now() };
  running.add(proc);
  return proc;
}

/** The last lines of a child's log, for an error message. */
export async function tailLog(proc: Proc, lines = 15): Promise<string> {
  const text = await Deno.readTextFile(proc.logFile).catch(() => "");
  return text.split("\n").slice(-lines).join("\n");
}

/**
 * Polls `url` until it answers 200 or `timeoutMs` passes; returns the milliseconds from the
 * process start to the first 200. Throws when the process exits or the time runs out.
 */
export async function waitReady(
  proc: Proc,
  url: string,
  timeoutMs = 120_000,
): Promise<number> {
  let exited = false;
  proc.child.status.then(() => exited = true);
  const deadline = performance.now() + timeoutMs;
  // Bounded: at most timeoutMs / 20 polls.
  while (performance.now() < deadline) {
    if (exited) {
      throw new Error(`Process "${proc.name}" exited before it was ready:\n${await tailLog(proc)}`);
    }
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await response.body?.cancel();
      if (response.status === 200) return performance.now() - proc.startedAt;
    } catch {
      // Not listening yet.
    }
    await sleep(20);
  }
  throw new Error(
    `Process "${proc.name}" was not ready at "${url}" after ${timeoutMs} ms:\n${await tailLog(
      proc,
    )}`,
  );
}

/** Stops one child: SIGTERM, then SIGKILL after `graceMs`. */
export async function stop(proc: Proc, graceMs = 5000): Promise<void> {
  if (!running.has(proc)) return;
  running.delete(proc);
  try {
    proc.child.kill("SIGTERM");
  } catch {
    // Already gone.
  }
  const timer = setTimeout(() => {
    try {
      proc.child.kill("SIGKILL");
    } catch {
      // Already gone.
    }
  }, graceMs);
  await proc.child.status;
  clearTimeout(timer);
}

/** Stops every child still running. */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((proc) => stop(proc)));
}

/** Resident memory of a process in MiB, from /proc (undefined when it cannot be read). */
export async function rssMib(pid: number): Promise<number | undefined> {
  try {
    const status = await Deno.readTextFile(`/proc/${pid}/status`);
    const match = status.match(/^VmRSS:\s+(\d+)\s+kB/m);
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Runs a command to its end and returns its exit code, standard output and standard error. */
export async function runToEnd(
  args: string[],
  options: { env: Record<string, string>; cwd: string; clearEnv?: boolean; onStderr?: boolean },
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", ...args],
    cwd: options.cwd,
    env: options.env,
    clearEnv: options.clearEnv ?? false,
    stdin: "null",
    stdout: "piped",
    stderr: options.onStderr ? "inherit" : "piped",
  }).spawn();
  const proc: Proc = {
    name: args.join(" "),
    child,
    pid: child.pid,
    logFile: "",
    startedAt: performance.now(),
  };
  running.add(proc);
  try {
    const [stdout, stderr, status] = await Promise.all([
      new Response(child.stdout).text(),
      options.onStderr ? Promise.resolve("") : new Response(child.stderr).text(),
      child.status,
    ]);
    return { code: status.code, stdout, stderr };
  } finally {
    running.delete(proc);
  }
}

// Clock ticks per second of /proc/PID/stat (USER_HZ), 100 on Linux.
const TICKS = 100;

async function statSeconds(pid: number | string): Promise<number | undefined> {
  try {
    const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
    // The command name may hold spaces: the fields start after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / TICKS;
  } catch {
    return undefined;
  }
}

/** CPU seconds (user + system) a process has used so far. */
export async function cpuSeconds(pid: number): Promise<number> {
  return (await statSeconds(pid)) ?? 0;
}

/**
 * CPU seconds used so far by each PostgreSQL backend connected to `database`, by pid: the
 * backends name their database in their process title.
 */
export async function backendCpu(database: string): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  const needle = ` ${database} `;
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    const cmdline = await Deno.readTextFile(`/proc/${entry.name}/cmdline`).catch(() => "");
    if (!cmdline.startsWith("postgres:") || !cmdline.includes(needle)) continue;
    const seconds = await statSeconds(entry.name);
    if (seconds !== undefined) out.set(Number(entry.name), seconds);
  }
  return out;
}

/** CPU seconds the backends of `after` used since `before` (new backends count from zero). */
export function backendDelta(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, seconds] of after) total += seconds - (before.get(pid) ?? 0);
  return total;
}

/** Whether a file or folder is at `path`. */
export async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

/** Runs `command` in `cwd` to its end, its output discarded; throws with its standard error. */
export async function run(command: string, args: string[], cwd: string): Promise<void> {
  const out = await new Deno.Command(command, { args, cwd, stdout: "null", stderr: "piped" })
    .output();
  if (out.code !== 0) {
    throw new Error(`${command} ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
}
