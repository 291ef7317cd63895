/**
 * Text the service can store and search: the check every name, query and imported string passes.
 */

// C0 control characters: PostgreSQL refuses NUL in text and jsonb, and the others have no place
// in a search word, a name or a slug. Text that can span lines keeps tab, line feed and CR.
// deno-lint-ignore no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u001f]/;
// deno-lint-ignore no-control-regex -- as above
const CONTROL_MULTILINE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/;

/**
 * What keeps `value` from being stored or searched, as a message for a 422 or an import error:
 * a C0 control character (tab, line feed and carriage return allowed in `multiline` text) or a
 * lone UTF-16 surrogate, which has no UTF-8 form. Undefined when the text is clean.
 */
export function textProblem(
  value: string,
  options: { multiline?: boolean } = {},
): string | undefined {
  if ((options.multiline ? CONTROL_MULTILINE : CONTROL).test(value)) {
    return options.multiline
      ? "must not contain control characters other than tab and line breaks"
      : "must not contain control characters";
  }
  if (!value.isWellFormed()) return "must not contain unpaired surrogates";
  return undefined;
}

/**
 * The most UTF-8 bytes a run without white space keeps before splitting. PostgreSQL refuses a
 * word over 2,047 bytes in a tsquery ("word is too long in tsquery"), and scripts written without
 * spaces (Chinese, Japanese, Thai) make a whole paragraph one word; half the limit leaves room
 * for lowercasing and unaccenting, which can lengthen a word.
 */
export const MAX_WORD_BYTES = 1024;

const encoder = new TextEncoder();

/**
 * `value` with every run of non-space characters longer than `maxBytes` in UTF-8 split by spaces
 * into runs that fit (between characters, never inside one). Shorter text comes back unchanged.
 */
export function splitLongWords(value: string, maxBytes = MAX_WORD_BYTES): string {
  if (value.length * 3 <= maxBytes) return value; // no run can be longer: the usual case
  return value.replace(/\S+/gu, (word) => {
    if (encoder.encode(word).length <= maxBytes) return word;
    const parts: string[] = [];
    let part = "";
    let bytes = 0;
    for (const char of word) {
      const size = encoder.encode(char).length;
      if (bytes + size > maxBytes) {
        parts.push(part);
        part = "";
        bytes = 0;
      }
      part += char;
      bytes += size;
    }
    parts.push(part);
    return parts.join(" ");
  });
}
