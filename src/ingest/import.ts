/**
 * JSON Lines import of content (categories, themes, opportunities with their evidence, blog
 * posts). A whole file is one transaction: every line is validated before it is queued, a bad
 * line throws an ImportError naming it, and the transaction is rolled back. Rows are upserted
 * by slug or external_id, so importing the same file twice changes nothing the second time.
 */
import type { Sql } from "../db/open.ts";
import { type ImportRecord, parseLine } from "./records.ts";
import {
  type ContentWriter,
  withContentWriter,
  WriteFailure,
  type WriteSummary,
} from "./writer.ts";

/**
 * A line of an import file that cannot be imported; nothing of the file was written. A refusal
 * of the database, which writes records in batches, names the lines of the batch (`lastLine`).
 */
export class ImportError extends Error {
  constructor(readonly line: number, readonly reason: string, readonly lastLine = line) {
    super(`${lastLine > line ? `Lines ${line}-${lastLine}` : `Line ${line}`}: ${reason}`);
    this.name = "ImportError";
  }
}

/** What an import read: lines, records of each type and evidence quotes, and whether data changed. */
export type ImportSummary = WriteSummary;

export interface ImportOptions {
  /** Called every few thousand lines with the number of lines read so far. */
  onProgress?: (linesDone: number) => void;
}

const PROGRESS_EVERY = 5000;

/** Imports JSON Lines in one transaction; throws ImportError (nothing written) on a bad line. */
export async function importLines(
  sql: Sql,
  lines: AsyncIterable<string> | Iterable<string>,
  options: ImportOptions = {},
): Promise<ImportSummary> {
  try {
    return await writeLines(sql, lines, options);
  } catch (error) {
    // Every record was validated first, so this is rare: a rule of the database that the record
    // format does not know. The batch's lines are named with the database's reason.
    if (!(error instanceof WriteFailure)) throw error;
    const reason = `The database refused a record of ${
      error.lastLine > error.firstLine ? "these lines" : "this line"
    }: ${error.message}`;
    throw new ImportError(error.firstLine, reason, error.lastLine);
  }
}

async function writeLines(
  sql: Sql,
  lines: AsyncIterable<string> | Iterable<string>,
  options: ImportOptions,
): Promise<ImportSummary> {
  return await withContentWriter(sql, async (writer) => {
    let line = 0;
    for await (const text of lines) {
      line++;
      if (line % PROGRESS_EVERY === 0) options.onProgress?.(line);
      if (text.trim() === "") continue;
      let record: ImportRecord;
      try {
        record = parseLine(text);
      } catch (reason) {
        if (typeof reason === "string") throw new ImportError(line, reason);
        throw reason;
      }
      const problem = await missingReference(writer, record);
      if (problem) throw new ImportError(line, problem);
      try {
        writer.add(record, line);
      } catch (error) {
        throw new ImportError(line, (error as Error).message);
      }
      await writer.throttle();
    }
    return line;
  });
}

async function missingReference(
  writer: ContentWriter,
  record: ImportRecord,
): Promise<string | undefined> {
  if (record.type === "theme" && !writer.hasCategory(record.category)) {
    return `Unknown category "${record.category}"`;
  }
  if (
    (record.type === "opportunity" || record.type === "theme_mentions") &&
    !writer.hasTheme(record.theme)
  ) {
    return `Unknown theme "${record.theme}"`;
  }
  if (
    record.type === "blog_post" && record.related_opportunity &&
    !(await writer.hasOpportunity(record.related_opportunity))
  ) {
    return `Unknown related_opportunity "${record.related_opportunity}"`;
  }
  return undefined;
}

/** Imports a JSON Lines file (`-` for standard input) in one transaction. */
export async function importFile(
  sql: Sql,
  path: string,
  options: ImportOptions = {},
): Promise<ImportSummary> {
  const stream = path === "-" ? Deno.stdin.readable : (await Deno.open(path)).readable;
  return await importLines(sql, readLines(stream), options);
}

/** The lines of a byte stream, without their line ends. */
async function* readLines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let rest = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    rest += chunk;
    let start = 0;
    let end: number;
    while ((end = rest.indexOf("\n", start)) !== -1) {
      yield rest.slice(start, end).replace(/\r$/, "");
      start = end + 1;
    }
    rest = rest.slice(start);
  }
  if (rest !== "") yield rest.replace(/\r$/, "");
}
