/**
 * The watch mails: the digest of an import's new matches (titles, scores and links, with a
 * one-click unsubscribe link that needs no sign-in, also as List-Unsubscribe per RFC 8058),
 * and the notice to the owner that a failing webhook was switched off.
 */
import type { OpportunityListItem } from "../catalog/schemas.ts";

/** One mail to send; `headers` are added to the message (List-Unsubscribe). */
export interface WatchMail {
  to: string;
  subject: string;
  text: string;
  headers?: Record<string, string>;
}

/** Something that delivers mails (the account area's mailer). */
export interface WatchMailer {
  send(message: WatchMail): Promise<void>;
}

/** Matches listed in a digest at most; the rest are counted and found in the feed or the API. */
export const DIGEST_ITEMS = 20;

/** The no-sign-in unsubscribe address of a watch's digests. */
export function unsubscribeUrl(publicBaseUrl: string, emailToken: string): string {
  return `${publicBaseUrl}/watches/unsubscribe?token=${emailToken}`;
}

/** The digest of new matches, best score first. */
export function digestMail(
  watch: { name: string; emailToken: string; to: string },
  items: OpportunityListItem[],
  publicBaseUrl: string,
): WatchMail {
  const shown = items.slice(0, DIGEST_ITEMS);
  const more = items.length - shown.length;
  const count = `${items.length} new ${items.length === 1 ? "opportunity" : "opportunities"}`;
  return watchMail(watch, count, publicBaseUrl, [
    `${count} matched your watch "${watch.name}" in the latest import:`,
    "",
    ...shown.flatMap((o) => [
      `- ${o.title} (score ${o.score}, ${o.recommendation})`,
      `  ${o.url}`,
    ]),
    ...(more > 0 ? ["", `... and ${more} more: see your watch's feed or the API.`] : []),
  ]);
}

/**
 * A mail of a watch: `lines`, then the way to manage watches and the one-click unsubscribe link
 * (also as List-Unsubscribe and List-Unsubscribe-Post, RFC 8058).
 */
export function watchMail(
  watch: { name: string; emailToken: string; to: string },
  count: string,
  publicBaseUrl: string,
  lines: string[],
): WatchMail {
  const unsubscribe = unsubscribeUrl(publicBaseUrl, watch.emailToken);
  const text = [
    ...lines,
    "",
    `Manage your watches: ${publicBaseUrl}/account`,
    `Stop these e-mails for this watch (no sign-in needed): ${unsubscribe}`,
  ].join("\n");
  return {
    to: watch.to,
    subject: `${count} for "${watch.name}"`,
    text,
    headers: {
      "List-Unsubscribe": `<${unsubscribe}>`,
      "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    },
  };
}

/** The owner's notice that a webhook failing for 3 days was switched off. */
export function disabledNoticeMail(
  watch: { name: string; to: string; url: string | null },
  publicBaseUrl: string,
): WatchMail {
  return {
    to: watch.to,
    subject: `Webhook of your watch "${watch.name}" was switched off`,
    text: [
      `Deliveries to the webhook of your watch "${watch.name}"${
        watch.url ? ` (${watch.url})` : ""
      } have failed for 3 days, so it was switched off. New matches still reach its e-mail ` +
      "digest and feed, if they are on.",
      "",
      "See the failed attempts with GET /api/v1/watches/{id}/deliveries or on " +
      `${publicBaseUrl}/account; set the webhook URL again (PATCH) to switch it back on.`,
    ].join("\n"),
  };
}
