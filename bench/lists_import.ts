/**
 * What the list indexes cost an import: 10,000 new demo opportunities imported (the JSON Lines
 * path, one transaction) into each of two copies of the 1M database, A (main's schema) and B
 * (this checkout's), in turns; after each import its rows are deleted, so that every round
 * starts from the same live rows. Prints each time and the median ratio B/A.
 *
 * Example: deno run -A bench/lists_import.ts --a oppintel_1m_38a --b oppintel_1m_38 --rounds 3
 */
import postgres from "postgres";
import { exitWithHelpIfAsked } from "./args.ts";
import { DEFAULT_SEED, externalId, opportunityAt, themeInfos } from "../src/ingest/demo.ts";
import { importLines } from "../src/ingest/import.ts";

exitWithHelpIfAsked(`
Usage: deno run -A bench/lists_import.ts --a DB --b DB [--rounds N] [--rows N]

Imports --rows (default 10000) new demo opportunities into database A and database B in turns,
deleting them after each import, and prints the times and the median ratio B/A.
`);

function option(name: string, fallback: string): string {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 && Deno.args[i + 1] ? Deno.args[i + 1] : fallback;
}

const ROWS = Number(option("rows", "10000"));
const ROUNDS = Number(option("rounds", "3"));
const DBS = { A: option("a", ""), B: option("b", "") };
if (!DBS.A || !DBS.B) throw new Error("--a and --b name the two databases");

// New external ids, after any the 1M seed made.
const FIRST = 5_000_000;
const themes = themeInfos(DEFAULT_SEED);
const totalWeight = themes.reduce((sum, t) => sum + t.weight, 0);
const lines = Array.from(
  { length: ROWS },
  (_, k) => JSON.stringify(opportunityAt(DEFAULT_SEED, FIRST + k, themes, totalWeight)),
);
const ids = Array.from({ length: ROWS }, (_, k) => externalId(FIRST + k));

async function importOnce(database: string): Promise<number> {
  const sql = postgres(`postgres://postgres@127.0.0.1:5432/${database}`, {
    max: 2,
    onnotice: () => {},
  });
  try {
    const started = performance.now();
    await importLines(sql, lines);
    const ms = performance.now() - started;
    await sql`delete from evidence_quotes where opportunity_id in (
      select id from opportunities where external_id = any(${ids}))`;
    await sql`update blog_posts set related_opportunity_id = null where related_opportunity_id in (
      select id from opportunities where external_id = any(${ids}))`;
    await sql`delete from opportunities where external_id = any(${ids})`;
    // No vacuum of the 1M table between rounds (minutes on the loaded machine): both sides keep
    // the same dead rows, and the turns alternate.
    return ms;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

const load = async () =>
  (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(" ");
console.log(`Import of ${ROWS} opportunities; A = ${DBS.A}, B = ${DBS.B}; load ${await load()}`);
const ratios: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? ["A", "B"] as const : ["B", "A"] as const;
  const ms: Record<string, number> = {};
  for (const side of order) {
    ms[side] = await importOnce(DBS[side]);
    console.log(
      `round ${round + 1} ${side}: ${(ms[side] / 1000).toFixed(1)} s (load ${await load()})`,
    );
  }
  ratios.push(ms.B / ms.A);
}
ratios.sort((a, b) => a - b);
console.log(
  `B/A per round (sorted): ${ratios.map((r) => r.toFixed(2)).join(", ")}; median ${
    ratios[Math.floor(ratios.length / 2)].toFixed(2)
  }`,
);
