/**
 * Drill: PostgreSQL restarted under load. Two instances serve a steady request loop of charged
 * calls (GET /api/v1/opportunities/:id) and /healthz; the local cluster is stopped for a few
 * seconds and started again. Expected: during the gap every request is answered 503 JSON
 * (never a hang beyond the connect time-out, never a crash), both instances recover by
 * themselves, and the quota counter equals the number of 200s (no unit charged for a failure).
 *
 *   deno run -A scripts/drills/postgres_restart.ts [--gap 3] [--connect-timeout 5] [--mode proxy]
 *
 * By default it stops the machine's shared PostgreSQL (pg_ctlcluster, as root): other work on it
 * fails for the few seconds of the gap. `--mode proxy` puts a TCP proxy between the instances
 * and PostgreSQL and cuts that instead, which leaves everyone else alone.
 */
import { parseArgs } from "node:util";
import { loadFixture, makeKey, setUsed, usedOf } from "../../tests/helpers/app.ts";
import { freePort, type Instance, startInstance, stopAll } from "../../tests/helpers/instances.ts";
import { type Call, call, scratchDatabase, tally, verdict } from "./common.ts";

const { values } = parseArgs({
  options: {
    gap: { type: "string", default: "3" },
    "connect-timeout": { type: "string", default: "5" },
    // "cluster" stops the real PostgreSQL; "proxy" cuts a TCP proxy in front of it instead,
    // which disturbs nobody else (live connections are dropped rather than told to shut down).
    mode: { type: "string", default: "cluster" },
  },
});
const MODE = values.mode === "proxy" ? "proxy" : "cluster";
const GAP_MS = Number(values.gap) * 1000;
const CONNECT_TIMEOUT_S = Number(values["connect-timeout"]);
// A request that takes longer than this counts as a hang.
const HANG_MS = CONNECT_TIMEOUT_S * 1000 + 2000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A TCP proxy to the database that can be cut (every connection dropped) and restored. */
class Proxy {
  #listener?: Deno.Listener;
  #conns = new Set<Deno.Conn>();
  constructor(readonly port: number, readonly target: { hostname: string; port: number }) {}

  up(): void {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: this.port });
    this.#listener = listener;
    (async () => {
      for await (const client of listener) this.#pipe(client);
    })().catch(() => {});
  }

  async #pipe(client: Deno.Conn): Promise<void> {
    this.#conns.add(client);
    try {
      const server = await Deno.connect(this.target);
      this.#conns.add(server);
      await Promise.all([
        client.readable.pipeTo(server.writable).catch(() => {}),
        server.readable.pipeTo(client.writable).catch(() => {}),
      ]);
    } catch {
      this.#close(client);
    }
  }

  #close(conn: Deno.Conn): void {
    try {
      conn.close();
    } catch {
      // Already closed.
    }
  }

  down(): void {
    this.#listener?.close();
    this.#listener = undefined;
    for (const conn of this.#conns) this.#close(conn);
    this.#conns.clear();
  }
}

let proxy: Proxy | undefined;

async function cluster(action: "stop" | "start"): Promise<void> {
  if (proxy) return action === "stop" ? proxy.down() : proxy.up();
  const version = [...Deno.readDirSync("/etc/postgresql")].map((e) => e.name).sort().at(-1)!;
  const args = ["--skip-systemctl-redirect", version, "main", action];
  if (action === "stop") args.push("--", "-m", "fast");
  const { code, stderr } = await new Deno.Command("pg_ctlcluster", { args, stderr: "piped" })
    .output();
  if (code !== 0) throw new Error(`pg_ctlcluster ${action}: ${new TextDecoder().decode(stderr)}`);
}

async function main(): Promise<number> {
  const scratch = await scratchDatabase("oi_drill_restart");
  let instances: Instance[] = [];
  let restarted = true;
  try {
    const ids = await loadFixture(scratch.sql);
    const { key, accountId } = await makeKey(scratch.sql, "business");
    await setUsed(scratch.sql, accountId, 0);
    const env = { DB_CONNECT_TIMEOUT_S: String(CONNECT_TIMEOUT_S) };
    let url = scratch.url;
    if (MODE === "proxy") {
      const direct = new URL(scratch.url);
      proxy = new Proxy(freePort(), { hostname: direct.hostname, port: Number(direct.port) });
      proxy.up();
      direct.port = String(proxy.port);
      url = direct.toString();
    }
    console.log(`Mode: ${MODE}`);
    instances = await Promise.all([
      startInstance("a", url, env),
      startInstance("b", url, env),
    ]);
    const path = `/api/v1/opportunities/${ids["opp-1"]}`;
    const origin = performance.now();
    const calls: Call[] = [];
    const health: Call[] = [];
    let stop = false;
    // Two readers per instance, each about 40 requests a second, and one health probe each.
    const loops = instances.flatMap((instance) => [
      ...[0, 1].map(async () => {
        while (!stop) {
          calls.push(await call(instance.name, instance.base, path, key, origin, HANG_MS));
          await sleep(25);
        }
      }),
      (async () => {
        while (!stop) {
          health.push(
            await call(instance.name, instance.base, "/healthz", undefined, origin, HANG_MS),
          );
          await sleep(100);
        }
      })(),
    ]);

    await sleep(2000);
    const stoppedAt = Math.round(performance.now() - origin);
    restarted = false;
    await cluster("stop");
    console.log(`PostgreSQL stopped at ${stoppedAt} ms`);
    await sleep(GAP_MS);
    const startAt = Math.round(performance.now() - origin);
    await cluster("start");
    restarted = true;
    const startedAt = Math.round(performance.now() - origin);
    console.log(`PostgreSQL start issued at ${startAt} ms, accepting by ${startedAt} ms`);
    // Run on until each instance has answered 20 calls in a row with 200 (or 30 s pass).
    const deadline = Date.now() + 30_000;
    const recovered = (name: string) => {
      const mine = calls.filter((c) => c.instance === name && c.at > startedAt);
      return mine.length >= 20 && mine.slice(-20).every((c) => c.status === 200);
    };
    while (Date.now() < deadline && !instances.every((i) => recovered(i.name))) await sleep(100);
    stop = true;
    await Promise.all(loops);
    // Let the instances' last writes (last_used_at, refunds) land before reading the counter.
    await sleep(500);

    const ok = calls.filter((c) => c.status === 200).length;
    const used = await usedOf(scratch.sql, accountId);
    const failed = calls.filter((c) => c.status !== 200);
    const gapCalls = calls.filter((c) => c.at >= stoppedAt && c.at < startedAt);
    const bad = calls.concat(health).filter((c) =>
      !(c.status === 200 || (c.status === 503 && c.json && c.error === "service_unavailable") ||
        (c.status === 503 && c.json && c.error === undefined))
    );
    const firstOk = Object.fromEntries(instances.map((i) => {
      const first = calls.find((c) =>
        c.instance === i.name && c.at > startedAt && c.status === 200
      );
      return [i.name, first ? first.at - startedAt : null];
    }));
    const alive = await Promise.all(instances.map(async (i) => {
      const r = await call(i.name, i.base, "/healthz", undefined, origin, HANG_MS);
      return r.status === 200;
    }));
    const maxMs = Math.max(...calls.concat(health).map((c) => c.ms));
    const maxGapMs = Math.max(0, ...failed.map((c) => c.ms));

    console.log(JSON.stringify(
      {
        gap_ms: startedAt - stoppedAt,
        charged_calls: tally(calls),
        healthz: tally(health),
        calls_sent_during_gap: gapCalls.length,
        failed_call_latency_ms_max: maxGapMs,
        any_call_latency_ms_max: maxMs,
        first_200_after_start_ms: firstOk,
        quota_counter: used,
        answered_200: ok,
        unexpected: bad.slice(0, 5),
      },
      null,
      2,
    ));
    return verdict("PostgreSQL restarted under load", [
      ["requests failed during the gap (the drill saw the outage)", failed.length > 0],
      [
        "every answer is 200 or 503 service_unavailable JSON, no connection error",
        bad.length === 0,
      ],
      [`no request took longer than the connect time-out + 2 s (${HANG_MS} ms)`, maxMs < HANG_MS],
      [
        "both instances recovered by themselves (20 calls in a row answered 200)",
        instances.every((i) => recovered(i.name)),
      ],
      ["both instances still answer /healthz 200", alive.every(Boolean)],
      [`quota counter (${used}) equals the number of 200s (${ok})`, used === ok],
    ]);
  } finally {
    if (!restarted) await cluster("start").catch((e) => console.error(String(e)));
    await stopAll(instances);
    // PostgreSQL may still be starting: retry the drop for a while.
    for (let i = 0; i < 30; i++) {
      try {
        await scratch.drop();
        break;
      } catch {
        await sleep(500);
      }
    }
  }
}

Deno.exit(await main());
