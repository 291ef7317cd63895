/**
 * The plans of the suite's list statements (bench/suite/run.ts): each page and count query of the
 * default list and of a common and a rare keyword, under EXPLAIN (ANALYZE, BUFFERS), summarised
 * as its execution time and the access path of its first children.
 */
import postgres from "postgres";

/** Each statement's execution time and access path on the database at `url`. */
export async function explainSummary(
  url: string,
  words: { common: string; rare: string },
): Promise<{ label: string; ms: number; plan: string }[]> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  const filter = (word: string) =>
    `o.is_online_deliverable and o.search @@ oi_search_query('${word}')`;
  const order = "order by o.score desc, o.created_at desc, o.id desc limit 20";
  const statements: [string, string][] = [
    ["page, default", `select o.id from opportunities o where o.is_online_deliverable ${order}`],
    ["count, default", "select count(*) from opportunities o where o.is_online_deliverable"],
    [
      `page, q=${words.common}`,
      `select o.id from opportunities o where ${filter(words.common)} ${order}`,
    ],
    [
      `count, q=${words.common}`,
      `select count(*) from opportunities o where ${filter(words.common)}`,
    ],
    [
      `page, q=${words.rare}`,
      `select o.id from opportunities o where ${filter(words.rare)} ${order}`,
    ],
    [`count, q=${words.rare}`, `select count(*) from opportunities o where ${filter(words.rare)}`],
  ];
  const out: { label: string; ms: number; plan: string }[] = [];
  try {
    for (const [label, statement] of statements) {
      const rows = await sql.unsafe(`explain (analyze, buffers, format json) ${statement}`);
      const doc = (rows[0] as Record<string, unknown>)["QUERY PLAN"] as {
        Plan: Record<string, unknown>;
        "Execution Time": number;
      }[];
      const plan = doc[0].Plan;
      const nodes: string[] = [];
      // Walks the first children down: enough to name the access path.
      let node: Record<string, unknown> | undefined = plan;
      for (let depth = 0; node && depth < 6; depth++) {
        const name = [node["Node Type"], node["Index Name"] ?? node["Relation Name"]]
          .filter(Boolean).join(" ");
        const buffers = Number(node["Shared Hit Blocks"] ?? 0) +
          Number(node["Shared Read Blocks"] ?? 0);
        nodes.push(`${name} (rows ${node["Actual Rows"]}, buffers ${buffers})`);
        node = (node["Plans"] as Record<string, unknown>[] | undefined)?.[0];
      }
      out.push({ label, ms: doc[0]["Execution Time"], plan: nodes.join(" > ") });
    }
  } finally {
    await sql.end({ timeout: 5 });
  }
  return out;
}
