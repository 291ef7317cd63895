/**
 * The web pages of watches that need no sign-in: the private Atom feed of a watch
 * (/feeds/watch?token=...; a wrong token answers 404) and the one-click unsubscribe of its
 * e-mail digest (/watches/unsubscribe?token=...: GET shows a button, POST unsubscribes, as the
 * List-Unsubscribe-Post header of RFC 8058 asks). Tokens ride in the query, which the request
 * log redacts.
 */
import { MethodNotAllowedError } from "../../platform/errors.ts";
import { errorResponse } from "../../platform/responses.ts";
import type { Sql } from "../../db/open.ts";
import { type Feed, readFeed, unsubscribe, watchOfEmailToken } from "../../watches/feed.ts";
import { escapeHtml, html, page } from "../html.ts";
import { securityHeaders } from "../security.ts";

/** True for the paths this module answers. */

/** The answer to an unsubscribe link that names no watch (unknown or rotated token). */
function linkNotValid(): Response {
  return htmlPage(
    404,
    "Link not valid",
    html`
      <h1>Link not valid</h1>
      <p>This unsubscribe link is not valid.</p>
    `,
  );
}
export function isWatchPagePath(path: string): boolean {
  return path === "/feeds/watch" || path === "/watches/unsubscribe";
}

function xml(text: string): string {
  return escapeHtml(text);
}

/** The Atom document of a feed. */
export function atomFeed(feed: Feed, selfUrl: string, publicBaseUrl: string): string {
  const updated = [feed.entries[0]?.matched_at, feed.themeChanges[0]?.changed_at]
    .filter((d): d is string => d !== undefined).sort().at(-1) ?? feed.watch.created_at;
  const changes = feed.themeChanges.map((c) =>
    [
      "  <entry>",
      `    <title>${xml(`${c.theme.name}: ${c.from_status} -> ${c.to_status}`)}</title>`,
      `    <id>urn:oppintel:watch:${feed.watch.id}:theme-change:${c.id}</id>`,
      `    <updated>${c.changed_at}</updated>`,
      `    <link rel="alternate" type="text/html" href="${
        xml(`${publicBaseUrl}/account/trends#theme-${c.theme.id}`)
      }"/>`,
      `    <summary>${
        xml(`Theme ${c.theme.slug} (${c.theme.category}) turned ${c.to_status}`)
      }</summary>`,
      "  </entry>",
    ].join("\n")
  );
  const entries = feed.entries.map((e) => {
    const link = `${publicBaseUrl}/api/v1/opportunities/${e.id}`;
    return [
      "  <entry>",
      `    <title>${xml(e.title)}</title>`,
      `    <id>urn:oppintel:watch:${feed.watch.id}:opportunity:${e.id}</id>`,
      `    <updated>${e.matched_at}</updated>`,
      `    <published>${e.created_at}</published>`,
      `    <link rel="alternate" type="text/html" href="${xml(e.url)}"/>`,
      `    <link rel="alternate" type="application/json" href="${xml(link)}"/>`,
      `    <summary>${
        xml(`Score ${e.score}, ${e.recommendation}; ${e.platform} / ${e.channel_name}`)
      }</summary>`,
      "  </entry>",
    ].join("\n");
  });
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom">',
    `  <title>${xml(`Opportunity Intelligence watch: ${feed.watch.name}`)}</title>`,
    `  <id>urn:oppintel:watch:${feed.watch.id}</id>`,
    `  <updated>${updated}</updated>`,
    `  <link rel="self" type="application/atom+xml" href="${xml(selfUrl)}"/>`,
    "  <author><name>Opportunity Intelligence</name></author>",
    ...changes,
    ...entries,
    "</feed>",
    "",
  ].join("\n");
}

function htmlPage(status: number, title: string, body: ReturnType<typeof html>): Response {
  return new Response(page({ title: `${title} · Opportunity Intelligence`, body }), {
    status,
    headers: { "Content-Type": "text/html; charset=utf-8", ...securityHeaders("private") },
  });
}

/** Answers a watch page (feed or unsubscribe). */
export async function serveWatchPage(
  request: Request,
  url: URL,
  deps: { sql: Sql; publicBaseUrl: string },
): Promise<Response> {
  const token = url.searchParams.get("token") ?? "";
  const isRead = request.method === "GET" || request.method === "HEAD";
  if (url.pathname === "/feeds/watch") {
    if (!isRead) return errorResponse(new MethodNotAllowedError(request.method, "GET, HEAD"));
    const feed = await readFeed(deps.sql, token, deps.publicBaseUrl);
    if (!feed) {
      return htmlPage(
        404,
        "Feed not found",
        html`
          <h1>Feed not found</h1>
          <p>This feed address is not valid (any more).</p>
        `,
      );
    }
    const self = `${deps.publicBaseUrl}/feeds/watch?token=${encodeURIComponent(token)}`;
    return new Response(atomFeed(feed, self, deps.publicBaseUrl), {
      headers: {
        "Content-Type": "application/atom+xml; charset=utf-8",
        "Cache-Control": "private, no-store",
        "Referrer-Policy": "no-referrer",
        "X-Content-Type-Options": "nosniff",
      },
    });
  }
  if (request.method === "POST") {
    const done = await unsubscribe(deps.sql, token);
    if (done === undefined) {
      return linkNotValid();
    }
    const rest = done.paused
      ? html`
        <p>It had no other delivery, so it is paused. Turn e-mail, its feed or a webhook on in
        your account (Watches, Edit) to resume it.</p>
      `
      : html`
        <p>Its other deliveries are unchanged.</p>
      `;
    return htmlPage(
      200,
      "Unsubscribed",
      html`
        <h1>Unsubscribed</h1>
        <p>You will get no more e-mails for the watch “${done.name}”.</p>
        ${rest}
      `,
    );
  }
  if (!isRead) {
    return errorResponse(new MethodNotAllowedError(request.method, "GET, HEAD, POST"));
  }
  const watch = await watchOfEmailToken(deps.sql, token);
  if (!watch) {
    return linkNotValid();
  }
  // A button, not an action on GET: mail scanners open links, and must not unsubscribe anyone.
  return htmlPage(
    200,
    "Unsubscribe",
    html`
      <h1>Stop e-mails for “${watch.name}”?</h1>
      <form method="post" action="/watches/unsubscribe?token=${token}">
        <button type="submit">Stop these e-mails</button>
      </form>
    `,
  );
}
