/**
 * The database going away mid-traffic: requests answer 503 service_unavailable JSON, nothing is
 * charged, the process stays up, and it recovers by itself. The service reaches the local
 * PostgreSQL through a TCP proxy that the test cuts and restores, so other tests running at the
 * same time keep their database.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { buildHandler } from "../../main.ts";
import { readConfig } from "../../src/platform/config.ts";
import { createContent } from "../../src/catalog/content.ts";
import { createApp } from "../../src/app.ts";
import { withTestDb } from "../helpers/db.ts";
import { BASE, loadFixture, makeKey, usedOf } from "../helpers/app.ts";

/** A TCP proxy to PostgreSQL on a fixed port that can be cut (all connections) and restored. */
function startProxy(port: number, target: { hostname: string; port: number }) {
  let listener: Deno.Listener | undefined;
  const open = new Set<Deno.Conn>();
  const pipe = async (from: Deno.Conn, to: Deno.Conn) => {
    try {
      await from.readable.pipeTo(to.writable);
    } catch {
      // A cut connection ends its pipe.
    }
  };
  const accept = async (l: Deno.Listener) => {
    for await (const client of l) {
      try {
        const server = await Deno.connect(target);
        open.add(client).add(server);
        pipe(client, server);
        pipe(server, client);
      } catch {
        client.close();
      }
    }
  };
  const up = () => {
    listener = Deno.listen({ hostname: "127.0.0.1", port });
    accept(listener).catch(() => {});
  };
  up();
  return {
    port: (listener!.addr as Deno.NetAddr).port,
    cut() {
      listener?.close();
      listener = undefined;
      for (const c of open) {
        try {
          c.close();
        } catch { /* already closed */ }
      }
      open.clear();
    },
    restore: up,
  };
}

Deno.test({
  name: "REST answers 503 JSON while PostgreSQL is unreachable and recovers by itself",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () =>
    withTestDb("postgres", async (db) => {
      const ids = await loadFixture(db.sql);
      const { key, accountId } = await makeKey(db.sql, "pro");
      const target = new URL(db.url);
      const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      const port = (probe.addr as Deno.NetAddr).port;
      probe.close();
      const proxy = startProxy(port, {
        hostname: target.hostname,
        port: Number(target.port || 5432),
      });
      const viaProxy = new URL(db.url);
      viaProxy.port = String(proxy.port);
      const sql = postgres(viaProxy.toString(), { max: 3, onnotice: () => {}, connect_timeout: 2 });
      const handler = buildHandler(
        { sql, kind: "postgres", shared: false, close: () => sql.end() },
        readConfig({ DATA_DIR: "memory://" }),
        { log: () => {} },
      );
      const originalError = console.error;
      const get = (path: string) =>
        handler(new Request(BASE + path, { headers: { "X-API-Key": key } }));
      try {
        const ok = await get(`/api/v1/opportunities/${ids["opp-1"]}`);
        assert.equal(ok.status, 200);
        await ok.body?.cancel();
        const usedBefore = await usedOf(db.sql, accountId);

        proxy.cut();
        console.error = () => {}; // the handler logs nothing for 503s, but postgres.js may
        for (const path of [`/api/v1/opportunities/${ids["opp-1"]}`, "/api/v1/opportunities"]) {
          const res = await get(path);
          assert.equal(res.status, 503, path);
          assert.equal(res.headers.get("content-type"), "application/json; charset=utf-8");
          const body = await res.json();
          assert.equal(body.error, "service_unavailable");
          assert.ok(!/ECONN|postgres|connect/i.test(body.message), "no driver text leaks");
        }
        const health = await handler(new Request(`${BASE}/healthz`));
        assert.equal(health.status, 503);
        await health.body?.cancel();
        assert.equal(await usedOf(db.sql, accountId), usedBefore, "failed calls are not charged");

        proxy.restore();
        let recovered = 0;
        for (let i = 0; i < 50 && recovered === 0; i++) {
          // Another opportunity than before the cut: opp-1 again would be a repeat, free.
          const res = await get(`/api/v1/opportunities/${ids["opp-2"]}`);
          await res.body?.cancel();
          if (res.status === 200) recovered = i + 1;
          else await new Promise((r) => setTimeout(r, 100));
        }
        assert.ok(recovered > 0, "the service answers again once the database is back");
        assert.equal(await usedOf(db.sql, accountId), usedBefore + 1);
      } finally {
        console.error = originalError;
        proxy.cut();
        await sql.end({ timeout: 1 });
      }
    }),
});

Deno.test({
  name: "a statement time-out answers 503 service_unavailable, charges nothing, keeps the pool",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () =>
    withTestDb("postgres", async (db) => {
      await loadFixture(db.sql);
      const { key, accountId } = await makeKey(db.sql, "pro");
      const sql = postgres(db.url, {
        max: 2,
        onnotice: () => {},
        connection: { statement_timeout: 100 },
      });
      const real = createContent(sql, { publicBaseUrl: BASE });
      let slow = true;
      const content = {
        ...real,
        // A list whose statement outlives the time-out, as a huge count would.
        listOpportunities: async (v: number, q: Parameters<typeof real.listOpportunities>[1]) => {
          if (slow) await sql`select pg_sleep(1)`;
          return real.listOpportunities(v, q);
        },
      };
      const handler = createApp({ sql, content, log: () => {} });
      const get = () =>
        handler(new Request(`${BASE}/api/v1/opportunities`, { headers: { "X-API-Key": key } }));
      try {
        const res = await get();
        assert.equal(res.status, 503);
        const body = await res.json();
        assert.equal(body.error, "service_unavailable");
        assert.match(body.message, /took too long/);
        assert.equal(await usedOf(db.sql, accountId), 0, "the charge was given back");
        slow = false;
        const again = await get();
        assert.equal(again.status, 200, "the pool is healthy after the time-out");
        await again.body?.cancel();
        assert.equal(await usedOf(db.sql, accountId), 1);
      } finally {
        await sql.end({ timeout: 1 });
      }
    }),
});
