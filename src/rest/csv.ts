/**
 * The CSV of the export (RFC 4180), with cells that stay text in a spreadsheet: a text cell that
 * begins with `=`, `+`, `-`, `@`, a tab or a carriage return would be read as a formula by
 * Excel, LibreOffice or Google Sheets (quoting does not stop them), so it gets a leading `'`, as
 * OWASP's "CSV Injection" page advises. A cell holding `;` is always quoted: spreadsheets set to
 * split on `;` (common European settings) would otherwise read `x;=cmd|...` as two cells, the
 * second a formula; quoted, it stays one cell that begins with `x`. Numbers and booleans are
 * written as they are: a negative number is a number to a spreadsheet, never a formula.
 */

/** The characters that make a spreadsheet read a cell as a formula (OWASP). */
const FORMULA_START = /^[=+\-@\t\r]/;

/** One CSV cell: text neutralised (see above), then quoted when it holds `,` `;` `"` CR or LF. */
export function csvCell(value: unknown): string {
  let text = String(value);
  if (typeof value === "string" && FORMULA_START.test(text)) text = `'${text}`;
  return /[",;\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One CSV line of `columns` of `item`, CRLF-terminated. */
export function csvLine<T extends object>(columns: (keyof T)[], item: T): string {
  return columns.map((c) => csvCell(item[c])).join(",") + "\r\n";
}
