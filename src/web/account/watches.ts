/**
 * The "Watches" section of the account dashboard: the account's watches (query, deliveries,
 * paused state, last delivery attempts), a form that creates one from the fields of the list
 * query, one that edits it with the same fields (watch_forms.ts), and forms that pause,
 * resume, rotate a secret or delete one. Everything goes through the
 * watch service (src/watches/service.ts), so the query is validated by the schema of
 * GET /api/v1/opportunities and the plan limits are those of the API. Secrets made by a form
 * (signing secret, feed URL) are shown once, in the answer to that form, never in a URL.
 */
import { ApiError, InvalidParameterError, NotFoundError } from "../../platform/errors.ts";
import {
  createForm,
  editForm,
  formStateOf,
  watchBody,
  type WatchFormState,
  watchPatchBody,
} from "./watch_forms.ts";
import type { Owner, WatchService } from "../../watches/service.ts";
import { hasDelivery } from "../../watches/watches.ts";
import type { DeliveryList, Watch, WatchWithSecrets } from "../../watches/schemas.ts";
import { formatDate, html, type SafeHtml } from "../html.ts";

export type { WatchFormState } from "./watch_forms.ts";

/** How many delivery attempts of each watch the dashboard shows. */
const SHOWN_ATTEMPTS = 5;

/** What the dashboard shows for a watch form: a secret made now, a form to show again. */
export interface WatchExtra {
  made?: WatchWithSecrets;
  form?: WatchFormState;
}

/** The notices of `/account?done=...` after a watch form. */
export const WATCH_NOTICES: [string, string][] = [
  ["watch-paused", "The watch is paused: it records no matches and delivers nothing."],
  ["watch-resumed", "The watch is on again: it delivers what is new from now on."],
  ["watch-deleted", "The watch is deleted with its matches and delivery log."],
  ["watch-saved", "The watch is saved: it delivers what is new for its query from now on."],
];

/** The watch operations of the dashboard for one signed-in account. */
export interface WatchActions {
  create(owner: Owner, form: URLSearchParams): Promise<WatchOutcome>;
  change(owner: Owner, action: string, form: URLSearchParams): Promise<WatchOutcome>;
}

/** What a watch form leads to: a page with a secret or a form error, or a redirect. */
export type WatchOutcome =
  | { kind: "show"; extra: WatchExtra; status: number; error?: string }
  | { kind: "redirect"; location: string };

const ACTIONS = new Set(["edit", "pause", "resume", "rotate-secret", "rotate-feed", "delete"]);

/** True for the form paths of the watches section. */
export function isWatchAction(action: string): boolean {
  return action === "" || ACTIONS.has(action);
}

/** The dashboard's watch forms on `watches`. */
export function createWatchActions(watches: WatchService): WatchActions {
  return {
    async create(owner, form) {
      try {
        const made = await watches.create(owner, watchBody(form));
        return { kind: "show", extra: { made }, status: 200 };
      } catch (error) {
        const state = formStateOf(form, error);
        if (!state) throw error;
        const status = (error as ApiError).status;
        return { kind: "show", extra: { form: state }, status, error: "The watch was not created" };
      }
    },
    async change(owner, action, form) {
      const raw = form.get("id") ?? "";
      const id = /^[0-9]{1,15}$/.test(raw) ? Number(raw) : 0;
      if (action === "edit") {
        try {
          const made = await watches.update(owner, id, watchPatchBody(form));
          // A feed turned on (or a webhook added) has a secret to show once; else back to the list.
          if (made.webhook_secret || made.feed_url) {
            return { kind: "show", extra: { made }, status: 200 };
          }
          return { kind: "redirect", location: `/account?done=watch-saved#watch-${id}` };
        } catch (error) {
          if (error instanceof NotFoundError) {
            return {
              kind: "show",
              extra: {},
              status: 404,
              error: "That watch is not one of yours",
            };
          }
          const state = formStateOf(form, error, id);
          if (!state) throw error;
          const status = (error as ApiError).status;
          return { kind: "show", extra: { form: state }, status, error: "The watch was not saved" };
        }
      }
      try {
        if (action === "delete") {
          await watches.delete(owner, id);
          return { kind: "redirect", location: "/account?done=watch-deleted#watches" };
        }
        if (action === "pause" || action === "resume") {
          await watches.update(owner, id, { paused: action === "pause" });
          return { kind: "redirect", location: `/account?done=watch-${action}d#watches` };
        }
        const made = await watches.update(
          owner,
          id,
          action === "rotate-secret"
            ? { rotate_webhook_secret: true }
            : { rotate_feed_token: true },
        );
        return { kind: "show", extra: { made }, status: 200 };
      } catch (error) {
        if (error instanceof NotFoundError) {
          return { kind: "show", extra: {}, status: 404, error: "That watch is not one of yours" };
        }
        if (!(error instanceof ApiError) || error.status >= 500) throw error;
        const text = error instanceof InvalidParameterError
          ? error.details.map((d) => d.message).join("; ")
          : error.message;
        return { kind: "show", extra: {}, status: error.status, error: text };
      }
    },
  };
}

function querySummary(watch: Watch): string {
  const q = watch.query;
  const parts = [
    q.q ? `"${q.q}"` : "any text",
    q.platform ? `platform ${q.platform}` : "",
    q.channel ? `channel ${q.channel}` : "",
    q.category ? `category ${q.category}` : "",
    q.theme ? `theme ${q.theme}` : "",
    q.recommendation ? `recommendation ${q.recommendation}` : "",
    `score ≥ ${q.min_score}`,
    q.online_only ? "online only" : "",
  ];
  return parts.filter((p) => p).join(", ");
}

function deliverySummary(watch: Watch): SafeHtml {
  const { webhook, email, feed } = watch.deliveries;
  const items: SafeHtml[] = [];
  if (webhook) {
    const state = webhook.disabled_at
      ? html`
        (<strong>disabled</strong> on ${formatDate(webhook.disabled_at)} after failing for 3
        days: save the watch (Edit) or PATCH its URL to switch it on)
      `
      : webhook.failing_since
      ? html`
        (failing since ${formatDate(webhook.failing_since)})
      `
      : "";
    items.push(html`<li>Webhook to <code>${webhook.url}</code>${state}</li>`);
  }
  if (email) items.push(html`<li>E-mail digest to your address</li>`);
  if (feed) {
    items.push(html`<li>Private Atom feed: its URL was shown once when it was made; rotate the feed
  token to get a new URL (the old one stops working)</li>`);
  }
  return html`<ul>${items}</ul>`;
}

function attemptTable(list: DeliveryList | undefined): SafeHtml {
  const attempts = list?.items.slice(0, SHOWN_ATTEMPTS) ?? [];
  if (attempts.length === 0) return html`<p class="muted">No delivery attempts yet.</p>`;
  const rows = attempts.map((a) =>
    html`
      <tr>
        <td><time datetime="${a.attempted_at}">${a.attempted_at.slice(0, 16).replace(
          "T",
          " ",
        )} UTC</time></td>
        <td>${a.kind}</td>
        <td>${a.ok ? "ok" : "failed"}</td>
        <td>${a.status_code ?? "none"}</td>
        <td>${a.error ?? ""}</td>
      </tr>
    `
  );
  return html`
    <table class="attempts">
      <caption>Last delivery attempts</caption>
      <thead>
        <tr>
          <th scope="col">Time</th>
          <th scope="col">Kind</th>
          <th scope="col">Outcome</th>
          <th scope="col">Status code</th>
          <th scope="col">Error</th>
        </tr>
      </thead>
      <tbody>${rows}</tbody>
    </table>
  `;
}

/** Why a paused watch without any delivery is paused, and how to resume it. */
function undeliveredNotice(watch: Watch, owner: Owner): SafeHtml | "" {
  if (!watch.paused || hasDelivery(watch)) return "";
  const ways = owner.plan === "free" ? "e-mail or the feed" : "e-mail, the feed or a webhook";
  return html`<p class="notice" id="watch-${watch.id}-undelivered"><strong>Paused: e-mail was
  unsubscribed</strong> and the watch had no other delivery; turn ${ways} on (Edit) to resume
  it.</p>`;
}

/** Why a watch beyond the plan's limit delivers nothing, and how to resume it. */
function planLimitNotice(watch: Watch): SafeHtml | "" {
  if (watch.status !== "paused_plan_limit") return "";
  return html`<p class="notice" id="watch-${watch.id}-plan-limit"><strong>Paused: over your plan's
  watch limit.</strong> ${watch.status_reason}.</p>`;
}

function actionForm(csrf: SafeHtml, watch: Watch, action: string, label: string): SafeHtml {
  return html`<form method="post" action="/account/watches/${action}" class="inline">${csrf}
  <input type="hidden" name="id" value="${watch.id}">
  <button type="submit" class="secondary" aria-label="${label} watch ${watch.name}">${label}</button></form>`;
}

function watchCard(
  watch: Watch,
  attempts: DeliveryList | undefined,
  forms: { csrf: SafeHtml; owner: Owner; state?: WatchFormState },
): SafeHtml {
  const { csrf } = forms;
  return html`
    <article class="watch" id="watch-${watch.id}">
      <h3>${watch.name}${watch.paused
        ? html`
          <span class="muted">(paused)</span>
        `
        : watch.status === "paused_plan_limit"
        ? html`
          <span class="muted">(paused by the plan's limit)</span>
        `
        : ""}</h3>
      <p>Query: ${querySummary(watch)}. Created ${formatDate(watch.created_at)}.</p>
      ${undeliveredNotice(watch, forms.owner)}
      ${planLimitNotice(watch)}
      ${deliverySummary(watch)}
      ${attemptTable(attempts)}
      <div class="actions">
        ${!watch.paused
          ? actionForm(csrf, watch, "pause", "Pause")
          : hasDelivery(watch)
          ? actionForm(csrf, watch, "resume", "Resume")
          : ""}
        ${watch.deliveries.webhook
          ? actionForm(csrf, watch, "rotate-secret", "Rotate signing secret")
          : ""}
        ${watch.deliveries.feed ? actionForm(csrf, watch, "rotate-feed", "Rotate feed token") : ""}
        ${actionForm(csrf, watch, "delete", "Delete")}
      </div>
      ${editForm(watch, forms.state, csrf, forms.owner)}
    </article>
  `;
}

/** The card with the secrets a form has just made, shown only in that answer. */
export function madeWatchCard(made: WatchWithSecrets): SafeHtml {
  const secret = made.webhook_secret
    ? html`
      <p>Signing secret (verify each event with it, per Standard Webhooks):</p>
      <code class="key" id="watch-secret">${made.webhook_secret}</code>
    `
    : "";
  const feed = made.feed_url
    ? html`
      <p>Private feed URL (add it to your feed reader):</p>
      <code class="key" id="watch-feed-url">${made.feed_url}</code>
    `
    : "";
  const once = made.webhook_secret || made.feed_url
    ? html`<p><strong>Copy it now: it is shown only this once.</strong> Rotate it to get a new one.</p>`
    : "";
  return html`
    <section class="card warning" aria-labelledby="made-watch-title">
      <h2 id="made-watch-title">Your watch "${made.name}"</h2>
      ${once}${secret}${feed}
    </section>
  `;
}

/** The Watches section of the dashboard, with each watch's last delivery attempts. */
export async function watchesSection(
  watches: WatchService,
  owner: Owner,
  csrf: SafeHtml,
  state?: WatchFormState,
): Promise<SafeHtml> {
  const { items } = await watches.list(owner);
  const attempts = await Promise.all(
    // A watch deleted meanwhile (404) shows no attempts; any other failure is the page's.
    items.map((w) =>
      watches.deliveries(owner, w.id).catch((error) => {
        if (error instanceof NotFoundError) return undefined;
        throw error;
      })
    ),
  );
  const cards = items.map((w, i) => watchCard(w, attempts[i], { csrf, owner, state }));
  return html`
    <section class="card" id="watches" aria-labelledby="watches-title">
      <h2 id="watches-title">Watches</h2>
      <p class="muted">A watch is a saved list query: after each import it delivers the new matches
    by webhook, e-mail digest or private feed. Free: 1 watch (e-mail and feed); Pro: 10; Business:
    50. After a move to a plan with fewer watches, the newest ones within its limit keep
    delivering and the others are paused until you upgrade. Managing watches and their
    deliveries costs no quota.</p>
      ${items.length === 0 ? html`<p>You have no watches yet.</p>` : cards}
      ${createForm(state, csrf, owner)}
    </section>
  `;
}
