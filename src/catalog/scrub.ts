/**
 * Scrubbing of community text (docs/DECISIONS.md section 8): user names and handles become `[user]`,
 * e-mail addresses and telephone numbers are removed, and the white space left around a removed
 * item is tidied. Judgment calls, each pinned by a case in tests/catalog/scrub_test.ts:
 *
 * - One left-to-right scan with one precompiled regex; the first alternative that matches at a
 *   position wins, so a URL or an e-mail is consumed whole before its parts could look like a
 *   handle, a `u/` name or a telephone number. Every pattern starts only at a token boundary and
 *   has no nested ambiguous repetition, so the scan stays linear.
 * - URLs (`http(s)://…`, `www.…`) are kept, including any `u/` or `@` in their path
 *   (`https://example.com/u/42`, `https://medium.com/@writer/post`). Only e-mails inside a URL
 *   are removed. A Reddit profile URL (`[sub.]reddit.com/u/name` or `/user/name`, with or without
 *   scheme, with any path after it) names a person, so the whole URL becomes `[user]`.
 * - Markdown is left as it is. Inside code (closed fenced blocks and inline backticks) `@word` is
 *   kept, because there it is a decorator or a CSS at-rule (`@Override`, `@media`); user names,
 *   e-mails and telephone numbers are removed there too. An unclosed fence is not code.
 * - A handle is `@` at a token start followed by a letter or `_`, then letters, digits, `_`, `-`
 *   and inner dots (`@dev_42`, `@jane.doe`, `@octo-cat`, Mastodon `@me@example.social`). `@5pm`
 *   and `@2x` are kept. `@scope/pkg` is an npm package, not a person, and is kept.
 * - An e-mail (`mailto:` included) is removed whole and is never a handle. `user@localhost`
 *   without a dot in the domain is not an e-mail and stays.
 * - Telephone numbers, 7 to 15 digits, are recognised in three shapes only:
 *   1. international, starting with `+` (`+1 415 555 0132`, `+49 (0)30 123456`, `+14155550132`);
 *   2. starting with a trunk `0` or `00`, in groups of at least two digits split by one kind of
 *      separator (`020 7946 0958`, `0049 30 1234567`, `(030) 123456`, `01.23.45.67.89`);
 *   3. North American (`(415) 555-0132`, `415.555.0132`, `1-800-555-0199`, `555-0132`).
 *   Everything else made of digits stays: a bare run of digits without `+` (`1000000`), dates
 *   (`2024-05-19`, `05/19/2024`, `19.05.2024`, `09.05.2024`), year ranges (`1990-2024`), round
 *   ranges (`500-1000`), decimals, IPv4 addresses, versions (`v2.10.3`, `1.2.3.4`, and longer
 *   dotted numbers such as Chrome's `124.0.6367.91`, which fit none of the shapes), prices,
 *   percentages, times, `#12345` and thousands with a plus (`+1.000.000`, `+1 000 000`).
 *   National forms of other countries written without `0` or `+` (Spanish `912 345 678`) are
 *   not recognised: telling them from counts would cost more false positives.
 * - Removing an item also removes the white space on one side of it, any space before following
 *   punctuation, brackets left empty (`(bob@example.com)`) and lines left empty. White space
 *   elsewhere is untouched; the result is trimmed. NUL characters are dropped (PostgreSQL text
 *   cannot hold them, and the scan uses NUL to mark removals).
 * - Scrubbing is idempotent: scrubbing a scrubbed text changes nothing.
 */

// Separators between the digit groups of a telephone number; a parenthesised group may stand
// between groups with or without a separator around it (`+49 (0)30`, `+1 (415) 555`).
const SEP = String.raw`(?:[ .-]?\(\d{1,4}\)[ .-]?|[ .-])`;
// A telephone number does not start inside a word, a number, a price, an ID or a path ...
const PHONE_START = String.raw`(?<![\w#$€£¥₹%+.,/@-])`;
// ... and does not end before a letter, a percent sign or the rest of a number.
const PHONE_END = String.raw`(?![\w%]|[.,/:-]\d)`;

const PARTS = {
  // A fence counts as code only when it closes: an unclosed one must not shield the rest.
  code: String.raw`\x60\x60\x60[\s\S]*?\x60\x60\x60|\x60[^\x60\n]+\x60`,
  profile: String.raw`(?<![\w.-])(?:https?:\/\/)?(?:[\w-]+\.)*reddit\.com\/(?:u|user)\/[\w-]+\S*`,
  url: String.raw`(?<![\w.-])(?:https?:\/\/|www\.)\S+`,
  email: String.raw`(?<![\w.%+-])(?:mailto:)?[\w.%+-]{1,64}@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*` +
    String.raw`\.[A-Za-z]{2,24}(?![\w-])`,
  reddit: String.raw`(?<![\w\/])\/?[uU]\/[\w-]+`,
  handle: String.raw`(?<![\w@.+-])@[A-Za-z_][\w.-]*(?:@[\w-]+(?:\.[\w-]+)+)?`,
  intl: String.raw`${PHONE_START}\+\d+(?:${SEP}\d+)*${PHONE_END}`,
  trunk: String.raw`${PHONE_START}(?:\(0\d{0,4}\)|0\d+)(?:${SEP}\d{2,})+${PHONE_END}`,
  nanp: String.raw`${PHONE_START}(?:(?:1[ .-])?(?:\([2-9]\d\d\)[ .-]?|[2-9]\d\d[ .-])\d{3}[ .-]` +
    String.raw`|[2-9]\d\d-)\d{4}${PHONE_END}`,
};

type Kind = keyof typeof PARTS;

function combine(kinds: Kind[]): RegExp {
  return new RegExp(kinds.map((k) => `(${PARTS[k]})`).join("|"), "g");
}

const ALL_KINDS: Kind[] = [
  "code",
  "profile",
  "url",
  "email",
  "reddit",
  "handle",
  "intl",
  "trunk",
  "nanp",
];
// Inside code, `@word` is a decorator or an at-rule, not a person; everything else applies.
const CODE_KINDS: Kind[] = ["profile", "url", "email", "reddit", "intl", "trunk", "nanp"];
const ALL = combine(ALL_KINDS);
const IN_CODE = combine(CODE_KINDS);
const EMAIL_IN_URL = new RegExp(PARTS.email, "g");

// Marks a removal until the tidying pass; NUL cannot occur in stored text.
const GAP = "\0";
const TRAILING_PUNCTUATION = /[.,;:!?)\]}'"»]+$/;
const DIGIT_SEPARATORS = /\d([ .-])(?=\d)/g;
// Only trunk candidates are checked: other dates never match a telephone shape.
const DATE = /^\d{1,2}([ .-])\d{1,2}\1\d{2,4}$/;

/** Replaces user names and handles with `[user]` and removes e-mails and phone numbers. */
export function scrubText(text: string): string {
  if (text === "") return text;
  const marked = scan(text.replaceAll(GAP, ""), ALL, ALL_KINDS);
  return marked.includes(GAP) ? tidy(marked).trim() : marked.trim();
}

/** Scrubs a value that may be absent, keeping `null` and `undefined` as they are. */
export function scrubOptional<T extends string | null | undefined>(text: T): T {
  return (typeof text === "string" ? scrubText(text) : text) as T;
}

function scan(text: string, regex: RegExp, kinds: Kind[]): string {
  let out = "";
  let last = 0;
  regex.lastIndex = 0;
  for (let m = regex.exec(text); m; m = regex.exec(text)) {
    const kind = kinds[m.slice(1).findIndex((g) => g !== undefined)];
    out += text.slice(last, m.index) + replace(kind, m[0], text, m.index + m[0].length);
    last = m.index + m[0].length;
  }
  return last === 0 ? text : out + text.slice(last);
}

function replace(kind: Kind, match: string, text: string, end: number): string {
  switch (kind) {
    case "code":
      // The general tidying does not know a closing backtick is punctuation.
      return scan(match, IN_CODE, CODE_KINDS).replace(/[ \t]*\0[ \t\0]*(?=\x60)/g, "");
    case "profile": {
      const tail = TRAILING_PUNCTUATION.exec(match)?.[0] ?? "";
      return "[user]" + tail;
    }
    case "url":
      return match.replace(EMAIL_IN_URL, "");
    case "email":
      return GAP;
    case "reddit":
      return "[user]";
    case "handle": {
      // Dots and dashes at the end belong to the sentence, not to the handle.
      const handle = match.replace(/[.-]+$/, "");
      if (text[end - (match.length - handle.length)] === "/") return match;
      return "[user]" + match.slice(handle.length);
    }
    case "intl":
    case "trunk":
    case "nanp":
      return isTelephone(kind, match) ? GAP : match;
  }
}

function isTelephone(kind: "intl" | "trunk" | "nanp", candidate: string): boolean {
  const digits = candidate.replace(/\D/g, "");
  if (digits.length < 7 || digits.length > 15) return false;
  const groups = candidate.split(/[^\d]+/).filter((g) => g !== "");
  const separators = new Set([...candidate.matchAll(DIGIT_SEPARATORS)].map((s) => s[1]));
  if (kind === "intl") {
    // "+1.000.000" and "+1 000 000" are signed counts, not numbers to call.
    const thousands = groups[0].length <= 3 && groups.length > 1 &&
      groups.slice(1).every((g) => g.length === 3) && separators.size === 1 &&
      !candidate.includes("(");
    return !(thousands && (separators.has(".") || groups[groups.length - 1] === "000"));
  }
  if (kind === "trunk") {
    return separators.size <= 1 && !DATE.test(candidate);
  }
  // A North American seven-digit form of two round numbers is a range ("500-1000 users").
  return !(groups.length === 2 && groups.every((g) => g.endsWith("0")));
}

// Removes each marked gap and the white space it leaves behind.
function tidy(text: string): string {
  return text
    .replace(/\(\s*\0[\s\0]*\)|\[\s*\0[\s\0]*\]|<\s*\0[\s\0]*>/g, GAP)
    .replace(/^[ \t]*\0[ \t\0]*(?:\r?\n|$)/gm, "")
    .replace(/[ \t]*\0[ \t\0]*/g, (gap, offset: number, whole: string) => {
      const before = whole[offset - 1];
      const after = whole[offset + gap.length];
      if (before === undefined || after === undefined) return "";
      if (/[\s([{<"'«]/.test(before) || /[\s,.;:!?)\]}>"'»]/.test(after)) return "";
      return /[ \t]/.test(gap) ? " " : "";
    });
}
