/** Operator commands for the database and its content: migrations, import, demo data. */
import { AccountError } from "../platform/errors.ts";
import { DEFAULT_OPPORTUNITIES } from "../ingest/demo.ts";
import { seedDemo } from "../ingest/seed.ts";
import { importFile } from "../ingest/import.ts";
import { rescrubStored } from "../ingest/rescrub.ts";
import { encoderStatus, startEncoder } from "../catalog/meaning/encoder.ts";
import { syncMeaning } from "../catalog/meaning/vectors.ts";
import { type Command, positiveInteger, text } from "./args.ts";

/** `migrate`: listed first in the help, as the command an operator runs first. */
export const MIGRATE_COMMAND: Command = {
  path: ["migrate"],
  summary: "Apply the pending database migrations",
  description: "Applies every migration of sql/ not yet applied, in order, in one transaction.\n" +
    "Prints {applied: [versions applied by this run]}.",
  flags: [],
  run: ({ applied }) => Promise.resolve({ applied }),
};

export const CONTENT_COMMANDS: Command[] = [
  {
    path: ["import"],
    summary: "Import a JSON Lines file (- for standard input)",
    description:
      "Imports categories, themes, opportunities and blog posts from JSON Lines, one record a\n" +
      "line with a `type`. Upserts by slug or external_id; the whole file is one transaction, so\n" +
      "a bad line writes nothing and is reported with its line number. Prints the summary.",
    flags: [],
    argument: { name: "FILE", help: "The .jsonl file to import, or - for standard input" },
    run: async ({ sql, args, log }) => {
      const path = args[0];
      if (path !== "-") {
        try {
          await Deno.stat(path);
        } catch (error) {
          throw new AccountError(`Cannot read file "${path}": ${(error as Error).message}`);
        }
      }
      return await importFile(sql, path, {
        onProgress: (lines) => log(`Imported ${lines.toLocaleString("en-US")} lines`),
      });
    },
  },
  {
    path: ["seed-demo"],
    summary: "Fill the database with deterministic demo data",
    description: "Writes the demo categories, themes, opportunities, evidence quotes and blog\n" +
      "posts, with progress on standard error. Prints the summary.",
    flags: [{
      name: "opportunities",
      value: "N",
      help:
        `How many opportunities to generate (default ${DEFAULT_OPPORTUNITIES}; 1000000 for benchmarks)`,
      check: positiveInteger(Number.MAX_SAFE_INTEGER),
    }],
    run: async ({ sql, flags, log }) => {
      const wanted = text(flags, "opportunities");
      let lastPercent = -1;
      return await seedDemo(sql, {
        opportunities: wanted === undefined ? undefined : Number(wanted),
        onProgress: (done, total) => {
          // The generator may report often; a line per percent is enough for a person.
          const percent = total > 0 ? Math.floor((done * 100) / total) : 100;
          if (percent === lastPercent && done !== total) return;
          lastPercent = percent;
          log(
            `Seeded ${done.toLocaleString("en-US")} of ${
              total.toLocaleString("en-US")
            } (${percent}%)`,
          );
        },
      });
    },
  },
  {
    path: ["rescrub"],
    summary: "Scrub the stored content again with the current scrubber",
    description:
      "Reads every opportunity (title, target audience, description, differentiation), evidence\n" +
      "quote and article excerpt, scrubs it with the current rules and writes back what changed\n" +
      "(an opportunity's slug follows its title; a quote left empty is deleted), in batches of\n" +
      "1000 rows, each its own transaction. The data version is bumped once at the end when\n" +
      "anything changed, so cached answers are dropped. Safe to run again: a second run changes\n" +
      "nothing. Titles that would be left empty are not changed and are listed by id.\n" +
      "Prints {opportunities, evidence_quotes, blog_posts: {scanned, changed}, empty_titles,\n" +
      "dry_run, changed}.",
    flags: [{ name: "dry-run", help: "Count what would change without writing anything" }],
    run: async ({ sql, flags, log }) => {
      const dryRun = flags["dry-run"] === true;
      const lastPercent = new Map<string, number>();
      return await rescrubStored(sql, {
        dryRun,
        onProgress: (table, done, total) => {
          const percent = total > 0 ? Math.floor((done * 100) / total) : 100;
          if (lastPercent.get(table) === percent && done !== total) return;
          lastPercent.set(table, percent);
          log(
            `${dryRun ? "Checked" : "Rescrubbed"} ${table} ${done.toLocaleString("en-US")} of ${
              total.toLocaleString("en-US")
            } (${percent}%)`,
          );
        },
      });
    },
  },
  {
    path: ["embed"],
    summary: "Embed the catalogue's texts that have no sentence vector yet",
    description:
      "Loads the sentence encoder (about a second) and embeds every theme, category and title of\n" +
      "a theme's best opportunities that has no vector in meaning_vectors, then deletes the\n" +
      'vectors of texts no longer there (docs/rest.md, "Reading by meaning"). A running server\n' +
      "does the same at its start and after an import; this is for an operator who wants it done\n" +
      "before the first question. Prints {embedded}.",
    flags: [],
    run: async ({ sql, log }) => {
      const encoder = await startEncoder();
      if (!encoder) throw new Error(`The sentence encoder did not load: ${encoderStatus().error}`);
      const embedded = await syncMeaning(sql, encoder, {
        onProgress: (done, total) => log(`Embedded ${done} of ${total}`),
      });
      return { embedded };
    },
  },
];
