/**
 * Shared pieces of the watch tests: a webhook receiver on loopback (a real Deno.serve) that
 * records what it gets and answers as told, import lines for new or changed opportunities,
 * and JSON requests to the app.
 */
import { BASE, FIXTURE_LINES, type TestApp } from "./app.ts";
import type { Sql } from "../../src/db/open.ts";

/** What the receiver got. */
export interface Received {
  headers: Record<string, string>;
  body: string;
}

/** A webhook receiver on 127.0.0.1; `answer` decides each response (200 by default). */
export function startReceiver(
  answer: (request: Request, n: number) => Response | Promise<Response> = () => new Response("ok"),
) {
  const received: Received[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const body = await req.text();
    received.push({ headers: Object.fromEntries(req.headers), body });
    return await answer(req, received.length);
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/hook`,
    received,
    close: () => server.shutdown(),
  };
}

/** The fixture's opportunity `external_id` as an import line, with fields changed. */
export function opportunityLine(externalId: string, changes: Record<string, unknown>): string {
  const base = FIXTURE_LINES.map((l) => JSON.parse(l)).find((r) => r.type === "opportunity")!;
  return JSON.stringify({ ...base, external_id: externalId, ...changes });
}

/** The fixture line of `externalId` with fields changed. */
export function changedFixtureLine(externalId: string, changes: Record<string, unknown>): string {
  const line = FIXTURE_LINES.map((l) => JSON.parse(l)).find((r) => r.external_id === externalId)!;
  return JSON.stringify({ ...line, ...changes });
}

/** Sends `body` as JSON with `method` and the key. */
export function sendJson(
  app: TestApp,
  method: string,
  path: string,
  key: string | undefined,
  body?: unknown,
): Promise<Response> {
  const headers = new Headers({ "Content-Type": "application/json" });
  if (key) headers.set("X-API-Key", key);
  return app.handler(
    new Request(BASE + path, {
      method,
      headers,
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    }),
  );
}

/** The external ids of each batch of a watch, oldest batch first. */
export async function batchesOf(sql: Sql, watchId: number): Promise<string[][]> {
  const rows = await sql<{ ids: string[] }[]>`
    select array(
      select o.external_id from unnest(b.opportunity_ids) u(id)
      join opportunities o on o.id = u.id order by o.external_id) as ids
    from watch_batches b where b.watch_id = ${watchId} order by b.id`;
  return rows.map((r) => r.ids);
}
