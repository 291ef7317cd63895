/**
 * `deno task bench:questions MODE`: the questions agents send, answered fast and right. Modes:
 * `search` (keyword search at scale, bench/questions/search.ts), `relevance` (the judged questions
 * and the questions in other words, bench/questions/relevance.ts), `ideas` (idea match and
 * similar, bench/questions/ideas.ts) and `meaning` (reading by words beside reading by meaning,
 * bench/questions/meaning.ts).
 *
 * Example: deno task bench:questions relevance --engines postgres --count 80
 */
import { runMode } from "./harness/modes.ts";

await runMode("bench:questions", {
  search: {
    about: "Keyword search at 1,000,000 rows: exact totals, first and repeated p95, load",
    run: async (args) => (await import("./questions/search.ts")).runSearch(args),
  },
  relevance: {
    about: "Does q answer the questions agents send? Zero results, precision, other words",
    run: async () => (await import("./questions/relevance.ts")).runRelevance(),
  },
  ideas: {
    about: "Idea match and similar: quality on the demo data, speed with --scale URL",
    run: async () => (await import("./questions/ideas.ts")).runIdeas(),
  },
  meaning: {
    about: "Questions read by their words and by meaning (the sentence encoder), side by side",
    // The module measures as it loads (a script with no export to call).
    run: () => import("./questions/meaning.ts"),
  },
});
