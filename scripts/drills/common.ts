/**
 * What both failure drills share: a scratch database on the local PostgreSQL, request records
 * and their summary, and the PASS/FAIL verdict. The drills are not tests: they disturb the
 * shared PostgreSQL (or load it), so they run by hand, one at a time.
 */
import postgres from "postgres";
import { migrate } from "../../src/db/migrate.ts";
import type { Sql } from "../../src/db/open.ts";

/** The local PostgreSQL's admin URL; DRILL_ADMIN_URL overrides it. */
export const ADMIN_URL = Deno.env.get("DRILL_ADMIN_URL") ??
  "postgres://postgres@127.0.0.1:5432/postgres";

const silent = () => {};

/** A fresh migrated database of its own, dropped by `drop()`. */
export interface Scratch {
  url: string;
  sql: Sql;
  drop(): Promise<void>;
}

/** Creates and migrates a scratch database named `prefix_<random>`. */
export async function scratchDatabase(prefix: string): Promise<Scratch> {
  const name = `${prefix}_${crypto.randomUUID().replaceAll("-", "").slice(0, 8)}`;
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: silent });
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const u = new URL(ADMIN_URL);
  u.pathname = `/${name}`;
  const url = u.toString();
  const sql = postgres(url, { max: 4, onnotice: silent });
  await migrate(sql);
  return {
    url,
    sql,
    async drop() {
      await sql.end({ timeout: 5 }).catch(() => {});
      const admin = postgres(ADMIN_URL, { max: 1, onnotice: silent });
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

/** One request of a drill and how it ended. */
export interface Call {
  instance: string;
  /** Milliseconds since the drill began, when the request was sent. */
  at: number;
  ms: number;
  /** The HTTP status, or 0 when no response came (connection refused, time-out). */
  status: number;
  /** The `error` code of a JSON error body. */
  error?: string;
  json: boolean;
  /** Why no response came. */
  failure?: string;
}

/** GETs `base + path` with `key` and records the outcome; never throws. */
export async function call(
  instance: string,
  base: string,
  path: string,
  key: string | undefined,
  origin: number,
  timeoutMs: number,
): Promise<Call> {
  const started = performance.now();
  const at = Math.round(started - origin);
  try {
    const response = await fetch(base + path, {
      headers: key ? { "X-API-Key": key } : {},
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    const json = /^application\/json/.test(response.headers.get("content-type") ?? "");
    let error: string | undefined;
    if (json && response.status >= 400) error = JSON.parse(text).error;
    const ms = Math.round(performance.now() - started);
    return { instance, at, ms, status: response.status, error, json };
  } catch (e) {
    const ms = Math.round(performance.now() - started);
    return { instance, at, ms, status: 0, json: false, failure: (e as Error).name };
  }
}

/** Counts of calls by `status error`, e.g. {"200": 812, "503 service_unavailable": 96}. */
export function tally(calls: Call[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const c of calls) {
    const k = c.status === 0
      ? `no response (${c.failure})`
      : `${c.status}${c.error ? ` ${c.error}` : ""}`;
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

/** Prints the checks and a final PASS or FAIL line; returns the exit code. */
export function verdict(name: string, checks: [string, boolean][]): number {
  for (const [what, ok] of checks) console.log(`  [${ok ? "ok" : "FAILED"}] ${what}`);
  const pass = checks.every(([, ok]) => ok);
  console.log(`${pass ? "PASS" : "FAIL"}: ${name}`);
  return pass ? 0 : 1;
}
