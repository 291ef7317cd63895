/**
 * What bench:relevance and bench:ideas share: a fresh engine for the demo data, the verdicts and
 * quantiles of their tables, and the sections they write between markers of
 * bench/results/RELEVANCE.md.
 */
import postgres from "postgres";
import { readConfig } from "../../src/platform/config.ts";

const ROOT = new URL("../..", import.meta.url).pathname;

export function verdict(pass: boolean): string {
  return pass ? "PASS" : "MISS";
}

/** The p-th quantile of `values` (nearest rank). */
export function quantile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? 0;
}

/**
 * The configuration of a fresh engine with public address `base`: the embedded database in
 * memory, or PostgreSQL database `database` (TEST_DATABASE_URL's server), dropped and made again.
 */
export async function openEngine(engine: string, database: string, base: string) {
  if (engine === "embedded") {
    return readConfig({ DATA_DIR: "memory://", PUBLIC_BASE_URL: base, SEED_DEMO: "false" });
  }
  const admin = Deno.env.get("TEST_DATABASE_URL") ??
    "postgres://postgres@127.0.0.1:5432/postgres";
  const sql = postgres(admin, { max: 1, onnotice: () => {} });
  await sql.unsafe(`drop database if exists ${database}`);
  await sql.unsafe(`create database ${database}`);
  await sql.end();
  const url = new URL(admin);
  url.pathname = `/${database}`;
  return readConfig({ DATABASE_URL: url.toString(), PUBLIC_BASE_URL: base, SEED_DEMO: "false" });
}

/** Writes `section` between the markers `name` of bench/results/RELEVANCE.md (at its end if none). */
export async function writeSection(name: string, section: string) {
  const path = `${ROOT}bench/results/RELEVANCE.md`;
  const doc = await Deno.readTextFile(path).catch(() => "");
  const [start, end] = [`<!-- ${name}:start -->`, `<!-- ${name}:end -->`];
  const at = doc.indexOf(start), to = doc.indexOf(end);
  await Deno.writeTextFile(
    path,
    at >= 0 && to > at
      ? doc.slice(0, at + start.length) + "\n" + section + "\n" + doc.slice(to)
      : `${doc}\n${start}\n${section}\n${end}\n`,
  );
  // The tables as deno fmt writes them, so that `deno task check` stays clean.
  await new Deno.Command(Deno.execPath(), { args: ["fmt", path], stderr: "null" }).output();
}
