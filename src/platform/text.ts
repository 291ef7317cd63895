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
