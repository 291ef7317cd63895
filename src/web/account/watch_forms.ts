/**
 * The forms of the dashboard's Watches section: create a watch, and edit one with the same
 * fields (name, the list query's fields, deliveries), both read into the JSON bodies of POST and
 * PATCH /api/v1/watches so that the watch service validates them exactly as it validates the
 * API's, with the problems shown next to their fields when a form is refused.
 */
import { ApiError, InvalidParameterError } from "../../platform/errors.ts";
import type { Owner } from "../../watches/service.ts";
import type { Watch } from "../../watches/schemas.ts";
import { html, type SafeHtml } from "../html.ts";

/** The text fields of the forms, as typed (shown again after an error). */
const TEXT_FIELDS =
  "name q platform channel category theme recommendation min_score sort webhook_url".split(" ");
const QUERY_FIELDS = [
  "q",
  "platform",
  "channel",
  "category",
  "theme",
  "recommendation",
  "min_score",
  "sort",
];

/** What a form holds after a refused attempt: the values and the problems by field. */
export interface WatchFormState {
  /** The watch being edited; undefined for the create form. */
  id?: number;
  values: Record<string, string>;
  /** Problems by form field ("name", "min_score", "webhook_url", "deliveries", "form"). */
  errors: Record<string, string>;
}

/** The field of a form that a 422 detail (`query.min_score`) is about. */
function fieldOf(param: string): string {
  if (param === "deliveries.webhook.url" || param.startsWith("deliveries.webhook")) {
    return "webhook_url";
  }
  if (param.startsWith("deliveries")) return "deliveries";
  if (param.startsWith("query.")) {
    const name = param.slice("query.".length);
    return QUERY_FIELDS.includes(name) ? name : "form";
  }
  return param === "name" ? "name" : "form";
}

function queryOf(form: URLSearchParams): string {
  const query = new URLSearchParams();
  for (const field of QUERY_FIELDS) {
    const value = (form.get(field) ?? "").trim();
    if (value) query.set(field, value);
  }
  // A checkbox sends nothing when off: say so, or the query's default (online only) applies.
  query.set("online_only", form.get("online_only") === "on" ? "true" : "false");
  return query.toString();
}

/** The JSON body of POST /api/v1/watches made from the create form. */
export function watchBody(form: URLSearchParams): Record<string, unknown> {
  const url = (form.get("webhook_url") ?? "").trim();
  return {
    name: form.get("name") ?? "",
    query: queryOf(form),
    deliveries: {
      ...(url ? { webhook: { url } } : {}),
      ...(form.get("email") === "on" ? { email: true } : {}),
      ...(form.get("feed") === "on" ? { feed: true } : {}),
    },
  };
}

/**
 * The JSON body of PATCH /api/v1/watches/{id} made from the edit form: every field as the form
 * holds it (an empty webhook URL removes the webhook; saving a URL switches a disabled webhook
 * on again, as a PATCH of the URL does).
 */
export function watchPatchBody(form: URLSearchParams): Record<string, unknown> {
  const url = (form.get("webhook_url") ?? "").trim();
  return {
    name: form.get("name") ?? "",
    query: queryOf(form),
    deliveries: {
      webhook: url ? { url } : null,
      email: form.get("email") === "on",
      feed: form.get("feed") === "on",
    },
  };
}

/** The form state after `error`, or undefined when it is not a client's mistake. */
export function formStateOf(
  form: URLSearchParams,
  error: unknown,
  id?: number,
): WatchFormState | undefined {
  if (!(error instanceof ApiError) || error.status >= 500) return undefined;
  const values: Record<string, string> = {};
  for (const field of TEXT_FIELDS) values[field] = form.get(field) ?? "";
  for (const box of ["online_only", "email", "feed"]) values[box] = form.get(box) ?? "";
  const errors: Record<string, string> = {};
  if (error instanceof InvalidParameterError) {
    for (const detail of error.details) {
      const field = fieldOf(detail.param);
      const text = field === "form" ? `${detail.param} ${detail.message}` : detail.message;
      errors[field] = errors[field] ? `${errors[field]}; ${text}` : text;
    }
  } else {
    errors.form = error.message;
  }
  return { id, values, errors };
}

/** The values of the edit form of a stored watch. */
function valuesOf(watch: Watch): Record<string, string> {
  const q = watch.query;
  return {
    name: watch.name,
    q: q.q ?? "",
    platform: q.platform ?? "",
    channel: q.channel ?? "",
    category: q.category ?? "",
    theme: q.theme ?? "",
    recommendation: q.recommendation ?? "",
    min_score: String(q.min_score),
    sort: "",
    webhook_url: watch.deliveries.webhook?.url ?? "",
    online_only: q.online_only ? "on" : "",
    email: watch.deliveries.email ? "on" : "",
    feed: watch.deliveries.feed ? "on" : "",
  };
}

/** Ids of one form's fields: `watch-` for the create form, `watch-ID-` for an edit form. */
interface FormView {
  prefix: string;
  values: Record<string, string>;
  errors: Record<string, string>;
}

function fieldError(view: FormView, field: string): SafeHtml | "" {
  const text = view.errors[field];
  return text
    ? html`<span class="error" id="${view.prefix}${field}-error" role="alert">${text}</span>`
    : "";
}

function textInput(view: FormView, field: string, label: string, extra = ""): SafeHtml {
  const problem = view.errors[field];
  return html`
    <label for="${view.prefix}${field}">${label}</label>
      <input id="${view.prefix}${field}" type="text" name="${field}" value="${view.values[field] ??
        ""}"
      placeholder="${extra}" ${problem
        ? html`
          aria-invalid="true" aria-describedby="${view.prefix}${field}-error"
        `
        : ""}>
      ${fieldError(view, field)}
  `;
}

function checkbox(view: FormView, field: string, label: string): SafeHtml {
  return html`<label><input type="checkbox" name="${field}"${
    view.values[field] === "on"
      ? html`
        checked
      `
      : ""
  }> ${label}</label>`;
}

/** The fields both forms share, in the order of the create form. */
function fields(view: FormView, owner: Owner): SafeHtml {
  const formError = view.errors.form
    ? html`<p class="card error" id="${view.prefix}form-error" role="alert">${view.errors.form}</p>`
    : "";
  return html`
    ${formError}
    ${textInput(view, "name", "Name", "e.g. invoicing tools")}
    ${textInput(view, "q", "Search text (q)", "e.g. invoice")}
    ${textInput(view, "platform", "Platform")}
    ${textInput(view, "channel", "Channel")}
    ${textInput(view, "category", "Category")}
    ${textInput(view, "theme", "Theme (slug)")}
    ${textInput(view, "recommendation", "Recommendation")}
    ${textInput(view, "min_score", "Minimum score (0 to 100)", "e.g. 70")}
    ${textInput(view, "sort", "Sort (score, newest, relevance; a watch delivers every new match)")}
    ${checkbox(view, "online_only", "Online only")}
    <fieldset>
      <legend>Deliveries</legend>
      ${fieldError(view, "deliveries")}
      ${checkbox(view, "feed", "Private Atom feed")}
      ${checkbox(view, "email", "E-mail digest to your address")}
      ${textInput(
        view,
        "webhook_url",
        owner.plan === "free" ? "Webhook URL (Pro and Business)" : "Webhook URL (https)",
      )}
    </fieldset>
  `;
}

/** The create form, empty (feed and online only on) or as refused. */
export function createForm(
  state: WatchFormState | undefined,
  csrf: SafeHtml,
  owner: Owner,
): SafeHtml {
  const mine = state && state.id === undefined ? state : undefined;
  const view = {
    prefix: "watch-",
    values: mine?.values ?? { feed: "on", online_only: "on" },
    errors: mine?.errors ?? {},
  };
  return html`
    <form method="post" action="/account/watches" id="watch-form">${csrf}
      <h3>Create a watch</h3>
      ${fields(view, owner)}
      <button type="submit">Create the watch</button>
    </form>
  `;
}

/** A watch's edit form, filled with what it holds now (or as refused), folded unless refused. */
export function editForm(
  watch: Watch,
  state: WatchFormState | undefined,
  csrf: SafeHtml,
  owner: Owner,
): SafeHtml {
  const mine = state?.id === watch.id ? state : undefined;
  const view = {
    prefix: `watch-${watch.id}-`,
    values: mine?.values ?? valuesOf(watch),
    errors: mine?.errors ?? {},
  };
  return html`
    <details class="edit" ${mine
      ? html`
        open
      `
      : ""}>
      <summary>Edit</summary>
      <form method="post" action="/account/watches/edit" id="watch-${watch.id}-form">${csrf}
        <input type="hidden" name="id" value="${watch.id}">
        ${fields(view, owner)}
        <button type="submit" aria-label="Save watch ${watch.name}">Save</button>
      </form>
    </details>
  `;
}
