/**
 * Instances of the service as separate processes (`deno run -A main.ts`) on one database, as
 * Deno Deploy or a load balancer runs them: used by the scale-out test and the failure drills.
 */

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

/** A running instance of the service. */
export interface Instance {
  readonly name: string;
  readonly base: string;
  readonly process: Deno.ChildProcess;
  /** What the instance wrote to standard error so far (start-up messages, failures). */
  stderr(): string;
  /** Stops the instance (SIGTERM, then SIGKILL after 5 s) and waits for it. */
  stop(): Promise<void>;
}

/** A TCP port nobody listens on right now. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

async function drain(stream: ReadableStream<Uint8Array>, sink?: (text: string) => void) {
  const decoder = new TextDecoder();
  try {
    for await (const chunk of stream) sink?.(decoder.decode(chunk, { stream: true }));
  } catch {
    // The process went away; nothing more to read.
  }
}

/**
 * Starts an instance on `databaseUrl` with `env` added (SEED_DEMO=off, a free PORT) and waits
 * until /healthz answers 200. Its request log (stdout) is read and dropped.
 */
export async function startInstance(
  name: string,
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<Instance> {
  const port = freePort();
  const command = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN],
    env: { DATABASE_URL: databaseUrl, PORT: String(port), SEED_DEMO: "off", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  });
  const process = command.spawn();
  let errors = "";
  drain(process.stdout);
  drain(process.stderr, (text) => errors = (errors + text).slice(-20_000));
  let exited = false;
  const status = process.status.then((s) => {
    exited = true;
    return s;
  });
  const instance: Instance = {
    name,
    base: `http://127.0.0.1:${port}`,
    process,
    stderr: () => errors,
    async stop() {
      if (exited) return;
      try {
        process.kill("SIGTERM");
      } catch {
        return;
      }
      const timer = setTimeout(() => {
        try {
          process.kill("SIGKILL");
        } catch {
          // Already gone.
        }
      }, 5000);
      await status;
      clearTimeout(timer);
    },
  };
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (exited) {
      throw new Error(`Instance "${name}" exited during start: ${errors.trim()}`);
    }
    try {
      const response = await fetch(`${instance.base}/healthz`);
      await response.body?.cancel();
      if (response.ok) return instance;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await instance.stop();
  throw new Error(`Instance "${name}" did not answer /healthz within 60 s: ${errors.trim()}`);
}

/** Stops every instance, ignoring ones that already ended. */
export async function stopAll(instances: Instance[]): Promise<void> {
  await Promise.all(instances.map((i) => i.stop().catch(() => {})));
}

/** The status and JSON body of a GET with `key` in X-API-Key. */
export async function getJson(
  base: string,
  path: string,
  key?: string,
  init: { signal?: AbortSignal } = {},
): Promise<{ status: number; body: Record<string, unknown>; contentType: string }> {
  const headers: Record<string, string> = key ? { "X-API-Key": key } : {};
  const response = await fetch(base + path, { headers, signal: init.signal });
  const text = await response.text();
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text);
  } catch {
    body = { unparsed: text };
  }
  return { status: response.status, body, contentType: response.headers.get("content-type") ?? "" };
}
