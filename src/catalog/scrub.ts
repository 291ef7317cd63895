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
 *   without a dot in the domain is not an e-mail and stays. A quoted local part is part of the
 *   address (`"bob smith"@example.com`, also in typographic quotes). The dots of a domain may
 *   all be ideographic full stops (`bob@example。com`, also half-width `｡` and full-width `．`),
 *   as IDNA reads them; a domain mixes no two kinds and its last label after such a stop is in
 *   Latin letters, so that an address followed by `。` and Japanese text (which needs no space
 *   after the stop) loses only the address. In a local part only `.` is a dot
 *   (`bob。smith@example.com` keeps `bob。`): a local part that could run across an ideographic
 *   full stop would take the sentence before it.
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
 * - Matching runs on a normalised copy, and what is removed is cut from the original: each code
 *   point is put in Unicode NFKC (full-width `＠`, `ｂｏｂ`, `４１５` become `@`, `bob`, `415`;
 *   no-break, narrow and ideographic spaces become spaces), zero-width characters (ZWSP, ZWNJ,
 *   ZWJ, word joiner, BOM, soft hyphen) are dropped, every dash (hyphens, en and em dash,
 *   minus sign) becomes `-`, and every decimal digit of any script (\p{Nd}: Arabic-Indic
 *   `٤١٥`, Persian `۴۱۵`, Devanagari `४१५` ...) its ASCII digit, so that a number in any script
 *   is a telephone number (or a year, price or count that stays) exactly when its ASCII twin is.
 *   Text that is kept keeps its characters (`m²` is not made `m2`).
 * - Letters are any script's: a handle may be `@иван` or `@山田`, an e-mail may have an accented
 *   local part (`josé@example.com`) and an internationalised domain (`anna@bücher.de`,
 *   `info@例え.テスト`); handles still start with a letter or `_`, so `@5pm` stays.
 * - A slash may split a telephone number where national forms use it: after the trunk prefix
 *   (`030/1234567`, `0171/123 4567`: one slash beside the one other separator), inside the
 *   international form (`+49 30/123456`) and after a North American area code (`415/555-0132`).
 *   Dates with slashes (`05/19/2024`, `19/05/2024`) stay.
 */

// Separators between the digit groups of a telephone number; a parenthesised group may stand
// between groups with or without a separator around it (`+49 (0)30`, `+1 (415) 555`).
const SEP = String.raw`(?:[ .\/-]?\(\d{1,4}\)[ .\/-]?|[ .\/-])`;
// A telephone number does not start inside a word, a number, a price, an ID or a path ...
const PHONE_START = String.raw`(?<![\p{L}\p{N}_#$€£¥₹%+.,\/@-])`;
// ... and does not end before a letter, a percent sign or the rest of a number.
const PHONE_END = String.raw`(?![\p{L}\p{N}_%]|[.,\/:-]\d)`;
// Letters and digits of any script, with combining marks (an accent typed after its letter).
const WORD = String.raw`\p{L}\p{N}\p{M}_`;
// A local part: plain, or quoted (where spaces and most punctuation may stand).
const LOCAL = String.raw`(?:["“](?:[^"“”\\\r\n]|\\.){1,64}["”]|[${WORD}.%+-]{1,64})`;
// The last label of a domain: letters, or an internationalised name in punycode. After an
// ideographic full stop only Latin letters: Japanese text goes on after one without a space, and
// its next words must not be read as the last label.
const TLD = String.raw`(?:[\p{L}\p{M}]{2,24}|xn--[a-z0-9-]{1,59})`;
const LATIN_TLD = String.raw`(?:[A-Za-z]{2,24}|xn--[a-z0-9-]{1,59})`;
// The labels after the first, split by one kind of dot (NFKC has made `．` a `.` and `｡` a `。`).
const DOMAIN_REST = String
  .raw`(?:(?:\.[${WORD}-]+)*\.${TLD}|(?:\u3002[${WORD}-]+)*\u3002${LATIN_TLD})`;

const PARTS = {
  // A fence counts as code only when it closes: an unclosed one must not shield the rest.
  code: String.raw`\x60\x60\x60[\s\S]*?\x60\x60\x60|\x60[^\x60\n]+\x60`,
  profile: String.raw`(?<![\w.-])(?:https?:\/\/)?(?:[\w-]+\.)*reddit\.com\/(?:u|user)\/[\w-]+\S*`,
  url: String.raw`(?<![\w.-])(?:https?:\/\/|www\.)\S+`,
  email: String.raw`(?<![${WORD}.%+-])(?:mailto:)?${LOCAL}@[${WORD}-]+${DOMAIN_REST}(?![${WORD}-])`,
  reddit: String.raw`(?<![\w\/])\/?[uU]\/[\w-]+`,
  // A chain of `@` parts is one handle (Mastodon `@me@example.social`, or `@a@b`), so that no
  // `@` is left next to a `[user]` for a second scrub to find.
  handle: String.raw`(?<![${WORD}@.+-])@[\p{L}_][${WORD}.-]*(?:@[${WORD}.-]+)*`,
  intl: String.raw`${PHONE_START}\+\d+(?:${SEP}\d+)*${PHONE_END}`,
  trunk: String.raw`${PHONE_START}(?:\(0\d{0,4}\)|0\d+)(?:${SEP}\d{2,})+${PHONE_END}`,
  nanp: String.raw`${PHONE_START}(?:(?:1[ .-])?(?:\([2-9]\d\d\)[ .-]?|[2-9]\d\d[ .\/-])\d{3}` +
    String.raw`[ .-]|[2-9]\d\d-)\d{4}${PHONE_END}`,
};

type Kind = keyof typeof PARTS;

function combine(kinds: Kind[]): RegExp {
  return new RegExp(kinds.map((k) => `(${PARTS[k]})`).join("|"), "gu");
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
const EMAIL_IN_URL = new RegExp(PARTS.email, "gu");

// Marks a removal until the tidying pass; NUL cannot occur in stored text.
const GAP = "\0";
const TRAILING_PUNCTUATION = /[.,;:!?)\]}'"»]+$/;
const DIGIT_SEPARATORS = /\d([ .\/-])(?=\d)/g;
// Only trunk candidates are checked: other dates never match a telephone shape.
const DATE = /^\d{1,2}([ .\/-])\d{1,2}\1\d{2,4}$/;

// Characters the normalisation drops (zero-width) or turns into a plain dash; NFKC already makes
// the other space variants a space and full-width forms ASCII.
const ZERO_WIDTH = /[\u00ad\u200b-\u200d\u2060\ufeff]/;
const DASHES = /[\u2010-\u2015\u2212\ufe58\ufe63\uff0d]/;
const NEEDS_NORMALISING = /[^\u0020-\u007e\t\n\r]/;
// Decimal digits other than ASCII's, which NFKC leaves as they are (except full-width ones).
const OTHER_DIGIT = /(?![0-9])\p{Nd}/u;
const IS_DIGIT = /^\p{Nd}$/u;
const DIGIT_CACHE = new Map<string, string>();

/**
 * The ASCII digit of a decimal digit of any script. Unicode encodes decimal digits only in runs
 * of ten from 0 to 9, so a digit's value is its distance from the start of its run of digits,
 * modulo 10 (adjacent runs, such as the mathematical digits, are whole runs of ten).
 */
function asciiDigit(char: string): string {
  let digit = DIGIT_CACHE.get(char);
  if (digit === undefined) {
    const code = char.codePointAt(0)!;
    let start = code;
    while (IS_DIGIT.test(String.fromCodePoint(start - 1))) start--;
    digit = String((code - start) % 10);
    DIGIT_CACHE.set(char, digit);
  }
  return digit;
}

/**
 * The text matched against: `text` normalised code point by code point, with `from[i]` the
 * index in `text` where character i of it came from (`from[length]` is `text.length`). Plain
 * ASCII text is its own normalisation.
 */
interface Normalised {
  text: string;
  from?: number[];
}

function normalise(text: string): Normalised {
  // Most text (ASCII, or accented letters already composed) needs no map: check that at once.
  if (!NEEDS_NORMALISING.test(text)) return { text };
  if (
    !ZERO_WIDTH.test(text) && !DASHES.test(text) && !OTHER_DIGIT.test(text) &&
    text.normalize("NFKC") === text
  ) {
    return { text };
  }
  let out = "";
  const from: number[] = [];
  let i = 0;
  for (const char of text) {
    const n = char.charCodeAt(0) < 0x80
      ? char
      : ZERO_WIDTH.test(char)
      ? ""
      : DASHES.test(char)
      ? "-"
      : OTHER_DIGIT.test(char)
      ? asciiDigit(char)
      : char.normalize("NFKC");
    for (let k = 0; k < n.length; k++) from.push(i);
    out += n;
    i += char.length;
  }
  from.push(text.length);
  return out === text ? { text } : { text: out, from };
}

/** Replaces user names and handles with `[user]` and removes e-mails and phone numbers. */
export function scrubText(text: string): string {
  if (text === "") return text;
  const original = text.replaceAll(GAP, "");
  const marked = new Scan(original).run(ALL, ALL_KINDS);
  return marked.includes(GAP) ? tidy(marked).trim() : marked.trim();
}

/** Scrubs a value that may be absent, keeping `null` and `undefined` as they are. */
export function scrubOptional<T extends string | null | undefined>(text: T): T {
  return (typeof text === "string" ? scrubText(text) : text) as T;
}

/** One scrub of a text: matches on its normalisation, output cut from the original. */
class Scan {
  readonly n: string;
  readonly #from?: number[];

  constructor(readonly original: string) {
    const normalised = normalise(original);
    this.n = normalised.text;
    this.#from = normalised.from;
  }

  /** The original text behind characters [start, end) of the normalised text. */
  orig(start: number, end: number): string {
    if (!this.#from) return this.original.slice(start, end);
    // A character that normalises to several (`㎡`) is kept whole or cut whole.
    const to = end >= this.n.length ? this.original.length : this.#from[end];
    return this.original.slice(this.#from[start], to);
  }

  /** The scrubbed original of normalised [start, end) (all of it by default). */
  run(regex: RegExp, kinds: Kind[], start = 0, end = this.n.length): string {
    const segment = start === 0 && end === this.n.length ? this.n : this.n.slice(start, end);
    let out = "";
    let last = 0;
    regex.lastIndex = 0;
    for (let m = regex.exec(segment); m; m = regex.exec(segment)) {
      const kind = kinds[m.slice(1).findIndex((g) => g !== undefined)];
      const at = start + m.index;
      out += this.orig(start + last, at) + this.replace(kind, m[0], at, segment, m.index);
      last = m.index + m[0].length;
    }
    return last === 0 ? this.orig(start, end) : out + this.orig(start + last, end);
  }

  replace(kind: Kind, match: string, at: number, segment: string, index: number): string {
    const end = at + match.length;
    switch (kind) {
      case "code":
        // The general tidying does not know a closing backtick is punctuation.
        return this.run(IN_CODE, CODE_KINDS, at, end).replace(/[ \t]*\0[ \t\0]*(?=\x60)/g, "");
      case "profile": {
        const tail = TRAILING_PUNCTUATION.exec(match)?.[0] ?? "";
        return "[user]" + this.orig(end - tail.length, end);
      }
      case "url": {
        // Only e-mails go; the rest of the URL is kept as it was written.
        let out = "";
        let last = 0;
        for (const e of match.matchAll(EMAIL_IN_URL)) {
          out += this.orig(at + last, at + e.index);
          last = e.index + e[0].length;
        }
        return out + this.orig(at + last, end);
      }
      case "email":
        return GAP;
      case "reddit":
        return "[user]";
      case "handle": {
        // Dots and dashes at the end belong to the sentence, not to the handle.
        const handle = match.replace(/[.-]+$/, "");
        if (segment[index + handle.length] === "/") return this.orig(at, end);
        return "[user]" + this.orig(at + handle.length, end);
      }
      case "intl":
      case "trunk":
      case "nanp":
        return isTelephone(kind, match) ? GAP : this.orig(at, end);
    }
  }
}

function isTelephone(kind: "intl" | "trunk" | "nanp", candidate: string): boolean {
  const digits = candidate.replace(/\D/g, "");
  if (digits.length < 7 || digits.length > 15) return false;
  const groups = candidate.split(/[^\d]+/).filter((g) => g !== "");
  const found = [...candidate.matchAll(DIGIT_SEPARATORS)].map((s) => s[1]);
  const separators = new Set(found);
  if (kind === "intl") {
    // "+1.000.000" and "+1 000 000" are signed counts, not numbers to call.
    const thousands = groups[0].length <= 3 && groups.length > 1 &&
      groups.slice(1).every((g) => g.length === 3) && separators.size === 1 &&
      !candidate.includes("(");
    return !(thousands && (separators.has(".") || groups[groups.length - 1] === "000"));
  }
  if (kind === "trunk") {
    // One slash after the trunk prefix may stand beside the one other separator (030/123 456).
    const slashes = found.filter((s) => s === "/").length;
    if (slashes === 1 && found[0] === "/") separators.delete("/");
    return separators.size <= 1 && !DATE.test(candidate);
  }
  // A North American seven-digit form of two round numbers is a range ("500-1000 users").
  return !(groups.length === 2 && groups.every((g) => g.endsWith("0")));
}

// Removes each marked gap and the white space it leaves behind (any space but a line break).
function tidy(text: string): string {
  return text
    .replace(/\(\s*\0[\s\0]*\)|\[\s*\0[\s\0]*\]|<\s*\0[\s\0]*>/g, GAP)
    .replace(/^[^\S\r\n]*\0(?:[^\S\r\n]|\0)*(?:\r?\n|$)/gm, "")
    .replace(/[^\S\r\n]*\0(?:[^\S\r\n]|\0)*/g, (gap, offset: number, whole: string) => {
      const before = whole[offset - 1];
      const after = whole[offset + gap.length];
      if (before === undefined || after === undefined) return "";
      if (/[\s([{<"'«]/.test(before) || /[\s,.;:!?)\]}>"'»。、]/.test(after)) return "";
      return /[^\S\r\n]/.test(gap) ? " " : "";
    });
}
