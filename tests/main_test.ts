/**
 * main.ts as a user runs it: the first start on an empty embedded database seeds the demo data
 * and prints a working key once; later starts print the address only; SIGTERM stops cleanly.
 */
import assert from "node:assert/strict";
import { ENGINES, withTestDb } from "./helpers/db.ts";
import { KEEPER } from "./helpers/db_pools.ts";
import { prepare } from "../main.ts";
import { readConfig } from "../src/platform/config.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

interface Running {
  port: number;
  process: Deno.ChildProcess;
  stderr: () => string;
  stop(signal?: Deno.Signal): Promise<Deno.CommandStatus>;
}

/** Starts main.ts and waits for /healthz to answer 200 (at most 60 s). */
async function start(env: Record<string, string>): Promise<Running> {
  const port = freePort();
  const process = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN],
    env: { ...env, PORT: String(port), NO_COLOR: "1" },
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let text = "";
  const decoder = new TextDecoder();
  const reading = (async () => {
    for await (const chunk of process.stderr) text += decoder.decode(chunk);
  })();
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      await res.body?.cancel();
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      process.kill("SIGKILL");
      throw new Error(`main.ts did not answer /healthz within 180 s:\n${text}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    port,
    process,
    stderr: () => text,
    stop: async (signal = "SIGTERM") => {
      process.kill(signal);
      const status = await process.status;
      await reading;
      return status;
    },
  };
}

Deno.test({
  name: "main.ts: the first start seeds, prints a working demo key once; later starts do not",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "oi-main-" });
    try {
      const first = await start({ DATA_DIR: dataDir });
      const key = /Demo API key[^:]*: (oi_live_\w+)/.exec(first.stderr())?.[1];
      assert.ok(key, `a demo key is printed:\n${first.stderr()}`);
      assert.match(first.stderr(), /curl -H "X-API-Key: oi_live_\w+"/);
      const res = await fetch(`http://127.0.0.1:${first.port}/api/v1/opportunities?page_size=1`, {
        headers: { "X-API-Key": key },
      });
      assert.equal(res.status, 200, "the printed key works (Pro plan)");
      const body = await res.json();
      assert.ok(body.total >= 1500, `the demo data is there (${body.total} online ideas)`);
      assert.equal((await first.stop()).code, 0);
      assert.match(first.stderr(), /Shutting down/);

      const second = await start({ DATA_DIR: dataDir });
      assert.equal((await second.stop()).code, 0);
      assert.match(second.stderr(), /listening on http:\/\/localhost:\d+/);
      assert.doesNotMatch(second.stderr(), /oi_live_/, "no key is printed again");
    } finally {
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    }
  },
});

Deno.test({
  name: "main.ts: SIGTERM finishes requests in flight, closes the pool and exits 0",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withTestDb("postgres", async (db) => {
      const running = await start({ DATABASE_URL: db.url, SEED_DEMO: "off" });
      const base = `http://127.0.0.1:${running.port}`;
      // Requests on their way when the signal comes still get their answers.
      // allSettled is attached at once: a request the stop cuts off rejects while stop() is
      // awaited, and a rejection with no handler yet fails the whole module.
      // The signal is sent once the first answer has come back, not after a fixed wait: on a
      // busy machine 20 ms was not always enough for any request to reach the server.
      const requests = Array.from({ length: 20 }, () =>
        fetch(`${base}/healthz`).then(async (res) => {
          await res.json(); // a body cut off by the stop would throw here
          return res.status;
        }));
      const inFlight = Promise.allSettled(requests);
      await Promise.any(requests);
      const status = await running.stop("SIGTERM");
      const answered = await inFlight;
      const statuses = answered.map((a) => a.status === "fulfilled" ? a.value : "refused");
      assert.equal(status.code, 0);
      assert.ok(statuses.every((s) => s === 200 || s === "refused"), String(statuses));
      assert.ok(statuses.includes(200));
      await assert.rejects(fetch(`${base}/healthz`), "the port is closed after the stop");
      const [{ n }] = await db.sql<{ n: number }[]>`
        select count(*)::int as n from pg_stat_activity
        where datname = current_database() and application_name not in ('psql', ${KEEPER})
          and pid <> pg_backend_pid()
          and query not like '%pg_stat_activity%'`;
      assert.ok(n <= 1, `the service's connections are closed (${n} left)`);
    }),
});

Deno.test({
  name: "serve.ts under deno serve: a failed start answers 503 JSON and is retried",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withTestDb("postgres", async (db) => {
      // DATABASE_URL points at a port where PostgreSQL appears only later (a forwarder).
      const target = new URL(db.url);
      const dbPort = freePort();
      const viaPort = new URL(db.url);
      viaPort.port = String(dbPort);
      const port = freePort();
      const child = new Deno.Command(Deno.execPath(), {
        args: [
          "serve",
          "-A",
          "--port",
          String(port),
          new URL("../serve.ts", import.meta.url).pathname,
        ],
        env: { DATABASE_URL: viaPort.toString(), DB_CONNECT_TIMEOUT_S: "1", NO_COLOR: "1" },
        stdout: "null",
        stderr: "null",
      }).spawn();
      let forwarder: Deno.Listener | undefined;
      try {
        let first: Response | undefined;
        for (let i = 0; i < 100 && !first; i++) {
          first = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined);
          if (!first) await new Promise((r) => setTimeout(r, 200));
        }
        assert.ok(first, "deno serve listens");
        assert.equal(first.status, 503);
        assert.equal(first.headers.get("content-type"), "application/json; charset=utf-8");
        assert.equal((await first.json()).error, "service_unavailable");

        forwarder = Deno.listen({ hostname: "127.0.0.1", port: dbPort });
        (async () => {
          for await (const conn of forwarder!) {
            const upstream = await Deno.connect({
              hostname: target.hostname,
              port: Number(target.port || 5432),
            });
            conn.readable.pipeTo(upstream.writable).catch(() => {});
            upstream.readable.pipeTo(conn.writable).catch(() => {});
          }
        })().catch(() => {});
        const again = await fetch(`http://127.0.0.1:${port}/healthz`);
        assert.equal(again.status, 200, "the next request starts the service");
        const health = await again.json();
        assert.equal(health.status, "ok");
        // The encoder loads in the background: questions are read by their words meanwhile.
        assert.ok(["loading", "ready"].includes(health.encoder.state), JSON.stringify(health));
      } finally {
        // Not a shutdown test: deno serve waits for idle keep-alive connections on SIGTERM.
        child.kill("SIGKILL");
        await child.status;
        forwarder?.close();
      }
    }),
});

Deno.test({
  name:
    "prepare: the first-start seed on PostgreSQL is not bound by the serving statement time-out",
  ignore: !ENGINES.includes("postgres"),
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withTestDb("postgres", async ({ url, sql }) => {
      // 50 ms cancels the longest statements of the seed when it runs on the serving pool.
      const config = readConfig({
        DATABASE_URL: url,
        SEED_DEMO: "on",
        DB_STATEMENT_TIMEOUT_MS: "1",
      });
      const { db, firstStart } = await prepare(config);
      try {
        assert.equal(firstStart?.opportunities, 2000);
        assert.match(firstStart!.key, /^oi_live_/);
        const [{ count }] = await sql<{ count: number }[]>`
          select count(*)::int as count from opportunities`;
        assert.equal(count, 2000);
      } finally {
        await db.close();
      }
    }),
});
