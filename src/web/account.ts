/**
 * The account area at /account: sign-up and sign-in (account_signin.ts), and a dashboard with the
 * plan, this month's usage and the API keys (create, shown once; revoke). Every form that changes
 * something carries a CSRF token derived from the cookie it travels with.
 */
import { AccountError, MethodNotAllowedError } from "../platform/errors.ts";
import {
  type ApiKeyInfo,
  createApiKey,
  type CreatedApiKey,
  keyNameProblem,
  listApiKeys,
  MAX_ACTIVE_KEYS,
  revokeApiKey,
} from "../accounts/api_keys.ts";
import { deleteSession, type SessionAccount } from "../accounts/sessions.ts";
import { readUsageReport } from "../metering/usage_report.ts";
import { usageBanner, usageSection } from "./account_usage.ts";
import { setUsageEmails, usageEmailsOn } from "../metering/usage_notices.ts";
import {
  type AccountDeps,
  type AccountResponse,
  csrfField,
  csrfRefused,
  message,
  readForm,
  redirect,
  respond,
  SESSION_COOKIE,
  type Visit,
} from "./account_common.ts";
import { createSignIn } from "./account_signin.ts";
import { connectedAppsSection, createConsent } from "./account_oauth.ts";
import type { DocumentPolicy } from "../oauth/documents.ts";
import {
  createWatchActions,
  isWatchAction,
  madeWatchCard,
  WATCH_NOTICES,
  type WatchActions,
  watchesSection,
  type WatchExtra,
} from "./account_watches.ts";
import { formatDate, html, page, type SafeHtml } from "./html.ts";
import { trendsPage } from "./account_trends.ts";
import { BILLING_NOTICES, createBillingForms, planSection } from "./account_billing.ts";
import { checkCsrf, cookie, hashToken, isCrossSite, isLocalhost, readCookies } from "./security.ts";

export { type AccountSettings, DEFAULT_SETTINGS } from "./account_common.ts";

/** The notices of `/account?done=...`, after a form that changed something. */
const DONE_NOTICES = new Map([
  ["revoked", "The key is revoked: calls with it now answer 403 key_revoked."],
  ["app-revoked", "The app is disconnected: its tokens stopped working at once."],
  ["emails-off", "Usage e-mails are off. The dashboard still warns you at 80% and 100%."],
  ["emails-on", "Usage e-mails are on: we write at 80% and at 100% of the month's calls."],
  ...WATCH_NOTICES,
  ...BILLING_NOTICES,
]);

/** Builds the account area's request handler for paths under /account. */
export function createAccountArea(deps: AccountDeps & { documents?: DocumentPolicy }) {
  const { sql } = deps;
  const { session, landing, askForLink, linkPage, useLink } = createSignIn(deps);
  const consent = createConsent(deps, session);
  const watchActions = deps.watches ? createWatchActions(deps.watches) : undefined;

  async function dashboard(
    current: { account: SessionAccount; secret: string },
    extra: {
      created?: CreatedApiKey;
      notice?: string;
      error?: string;
      status?: number;
      watch?: WatchExtra;
    } = {},
  ): Promise<AccountResponse> {
    const { account } = current;
    const [usage, keys, emails] = await Promise.all([
      readUsageReport(sql, account),
      listApiKeys(sql, account.email),
      usageEmailsOn(sql, account.id),
    ]);
    const csrf = await csrfField(current.secret);
    const owner = { accountId: account.id, plan: account.plan };
    const watches = deps.watches
      ? await watchesSection(deps.watches, owner, csrf, extra.watch?.form)
      : "";
    const apps = await connectedAppsSection(deps, account.id, csrf);
    const active = keys.filter((k) => k.revoked_at === null).length;
    const contact = deps.contactEmail
      ? html`<a href="mailto:${deps.contactEmail}">contact us</a>`
      : html`contact us (reply to any mail we sent you)`;
    const created = extra.created
      ? html`
        <section class="card warning" aria-labelledby="new-key-title">
          <h2 id="new-key-title">Your new key "${extra.created.name}"</h2>
          <p><strong>Copy it now: it is shown only this once.</strong> We keep only a digest of it, so
        nobody can show it again. If you lose it, revoke it and create another.</p>
          <code class="key" id="new-key">${extra.created.key}</code>
          <button type="button" class="secondary" data-copy-target="new-key" hidden>Copy key</button>
          <p class="muted">Send it in the <code>X-API-Key</code> header, from a server: never put it in
        browser code or in a URL.</p>
        </section>
      `
      : "";
    const body = html`
      <h1>Your account</h1>
      <p>Signed in as <strong>${account.email}</strong>. <a href="/account/trends">Trends</a>:
      every theme's weekly mentions, status and growth.</p>
      <form method="post" action="/account/signout" class="inline">${csrf}
      <button type="submit" class="secondary">Sign out</button></form>
      ${extra.notice ? html`<p class="card notice" role="status">${extra.notice}</p>` : ""}
      ${extra.error ? html`<p class="card error" role="alert">${extra.error}</p>` : ""}
      ${created}
      ${extra.watch?.made ? madeWatchCard(extra.watch.made) : ""}
      ${usageBanner(usage)}
      ${await planSection({ account, usage, csrf, billing: deps.billing, contact })}
      ${usageSection(usage, { emails, csrf })}
      <section class="card" aria-labelledby="keys-title">
      <h2 id="keys-title">API keys</h2>
      ${keys.length === 0 ? html`<p>You have no keys yet.</p>` : keyTable(keys, csrf)}
      ${active >= MAX_ACTIVE_KEYS
        ? html`<p class="card notice" id="key-limit">You hold ${active} active keys, the most an
  account may hold on every plan. Revoke one to create another.</p>`
        : html`<form method="post" action="/account/keys">${csrf}
  <label for="key-name">Name of a new key</label>
  <input id="key-name" type="text" name="name" maxlength="100" placeholder="e.g. production">
  <button type="submit">Create a key</button>
  <p class="muted">${MAX_ACTIVE_KEYS - active} of ${MAX_ACTIVE_KEYS} keys left.</p>
  </form>`}
      </section>
      ${apps}
      ${watches}
    `;
    const head = extra.created ? html`<script src="/assets/copy.js" defer></script>` : undefined;
    return {
      ...respond(
        extra.status ?? 200,
        page({ title: "Your account · Opportunity Intelligence", body, head }),
      ),
      // The billing forms answer with a redirect to Stripe, which form-action must allow.
      formAction: deps.billing?.formAction,
    };
  }

  function keyTable(keys: ApiKeyInfo[], csrf: SafeHtml): SafeHtml {
    const rows = keys.map((k) => {
      const status = k.revoked_at === null
        ? html`Active`
        : html`Revoked ${k.revoked_by === "owner" ? "by you" : "by an administrator"} on
  ${formatDate(k.revoked_at)}`;
      const action = k.revoked_at === null
        ? html`<form method="post" action="/account/keys/revoke" class="inline">${csrf}
  <input type="hidden" name="id" value="${k.id}">
  <button type="submit" class="secondary" aria-label="Revoke key ${k.name}">Revoke</button></form>`
        : "";
      return html`
        <tr${k.revoked_at === null ? "" : html`
          class="revoked"
        `}>
          <td>${k.name}</td>
          <td><code>${k.prefix}…</code></td>
          <td>${formatDate(k.created_at)}</td>
          <td>${formatDate(k.last_used_at)}</td>
          <td>${status}</td>
          <td>${action}</td>
          </tr>
      `;
    });
    return html`
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Key</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col">Status</th>
            <th scope="col">Action</th>
          </tr>
        </thead>
        <tbody>${rows}</tbody>
      </table>
    `;
  }

  async function signedInForm(
    visit: Visit,
  ): Promise<
    | { current: { account: SessionAccount; secret: string }; form: URLSearchParams }
    | AccountResponse
  > {
    const current = await session(visit);
    if (!current) return redirect("/account");
    const form = await readForm(visit.request);
    if (!form || !(await checkCsrf(current.secret, form.get("csrf") ?? undefined))) {
      return csrfRefused();
    }
    return { current, form };
  }

  async function createKey(visit: Visit): Promise<AccountResponse> {
    const checked = await signedInForm(visit);
    if ("status" in checked) return checked;
    const { current, form } = checked;
    const name = form.get("name") ?? undefined;
    const problem = keyNameProblem(name?.trim() ?? "");
    if (problem) return await dashboard(current, { error: problem, status: 422 });
    try {
      const created = await createApiKey(sql, { email: current.account.email, name });
      // Answered here rather than through a redirect, so that the raw key is in no URL.
      return await dashboard(current, { created });
    } catch (error) {
      if (!(error instanceof AccountError)) throw error;
      return await dashboard(current, { error: error.message, status: 409 });
    }
  }

  async function revokeKey(visit: Visit): Promise<AccountResponse> {
    const checked = await signedInForm(visit);
    if ("status" in checked) return checked;
    const { current, form } = checked;
    const id = Number(form.get("id"));
    // Only a key of this account, and only once.
    const keys = await listApiKeys(sql, current.account.email);
    const key = keys.find((k) => k.id === id && k.revoked_at === null);
    if (!key) {
      return await dashboard(current, {
        error: "That key is not one of your active keys",
        status: 404,
      });
    }
    try {
      await revokeApiKey(sql, { id: key.id, by: "owner" });
    } catch (error) {
      // Revoked by a concurrent request: the outcome the person asked for.
      if (!(error instanceof AccountError)) throw error;
    }
    return redirect("/account?done=revoked");
  }

  async function setEmails(visit: Visit): Promise<AccountResponse> {
    const checked = await signedInForm(visit);
    if ("status" in checked) return checked;
    const on = checked.form.get("emails") === "on";
    await setUsageEmails(sql, checked.current.account.id, on);
    return redirect(`/account?done=emails-${on ? "on" : "off"}#usage-emails`);
  }

  async function watchForm(
    visit: Visit,
    action: string,
    watchActions: WatchActions,
  ): Promise<AccountResponse> {
    const checked = await signedInForm(visit);
    if ("status" in checked) return checked;
    const { current, form } = checked;
    const owner = { accountId: current.account.id, plan: current.account.plan };
    const outcome = action === ""
      ? await watchActions.create(owner, form)
      : await watchActions.change(owner, action, form);
    if (outcome.kind === "redirect") return redirect(outcome.location);
    // Answered here rather than through a redirect, so that a new secret is in no URL.
    return await dashboard(current, {
      watch: outcome.extra,
      error: outcome.error,
      status: outcome.status,
    });
  }

  const billingForms = createBillingForms({ ...deps, dashboard, signedInForm });

  async function signOut(visit: Visit): Promise<AccountResponse> {
    const checked = await signedInForm(visit);
    if ("status" in checked) return checked;
    await deleteSession(sql, await hashToken(checked.current.secret));
    visit.setCookies.push(cookie(SESSION_COOKIE, "", { secure: visit.secure, maxAge: 0 }));
    return redirect("/account");
  }

  async function route(visit: Visit): Promise<AccountResponse> {
    const { request, url } = visit;
    const path = url.pathname.replace(/\/+$/, "") || "/";
    const isGet = request.method === "GET" || request.method === "HEAD";
    const isPost = request.method === "POST";
    const own = [url.origin, new URL(deps.context.publicBaseUrl).origin];
    if (isPost && isCrossSite(request, own)) return csrfRefused();
    // As JSON like every 405 of the service: no form or link of a page sends another method.
    const methodNotAllowed = (allow: string): AccountResponse => ({
      status: 405,
      body: JSON.stringify(new MethodNotAllowedError(request.method, allow).body),
      headers: { "Content-Type": "application/json; charset=utf-8", Allow: allow },
    });
    switch (path) {
      case "/account": {
        if (!isGet) return methodNotAllowed("GET, HEAD");
        const current = await session(visit);
        if (!current) return await landing(visit);
        const checkout = url.searchParams.get("checkout");
        if (checkout !== null && deps.billing) return await billingForms.back(current, checkout);
        const notice = DONE_NOTICES.get(url.searchParams.get("done") ?? "");
        return await dashboard(current, { notice });
      }
      case "/account/trends": {
        if (!isGet) return methodNotAllowed("GET, HEAD");
        const current = await session(visit);
        if (!current) return redirect("/account");
        return respond(200, await trendsPage(deps.sql, url, current.account.plan));
      }
      case "/account/signup":
      case "/account/signin":
        if (!isPost) return methodNotAllowed("POST");
        return await askForLink(visit, path === "/account/signup" ? "signup" : "signin");
      case "/account/link":
        if (isGet) return await linkPage(visit);
        if (isPost) return await useLink(visit);
        return methodNotAllowed("GET, HEAD, POST");
      case "/account/keys":
        if (!isPost) return methodNotAllowed("POST");
        return await createKey(visit);
      case "/account/authorize":
        if (isGet) return await consent.consentPage(visit);
        if (isPost) return await consent.decide(visit);
        return methodNotAllowed("GET, HEAD, POST");
      case "/account/apps/revoke":
        if (!isPost) return methodNotAllowed("POST");
        return await consent.revokeApp(visit);
      case "/account/keys/revoke":
        if (!isPost) return methodNotAllowed("POST");
        return await revokeKey(visit);
      case "/account/usage-emails":
        if (!isPost) return methodNotAllowed("POST");
        return await setEmails(visit);
      case "/account/signout":
        if (!isPost) return methodNotAllowed("POST");
        return await signOut(visit);
      case "/account/billing/checkout":
      case "/account/billing/portal":
        if (!isPost) return methodNotAllowed("POST");
        return await billingForms.post(visit, path.endsWith("portal") ? "portal" : "checkout");
      default: {
        const action = path.startsWith("/account/watches")
          ? path.slice("/account/watches".length).replace(/^\//, "")
          : undefined;
        if (action !== undefined && watchActions && isWatchAction(action)) {
          if (!isPost) return methodNotAllowed("POST");
          return await watchForm(visit, action, watchActions);
        }
        return message(404, "Page not found", html`<p><a href="/account">Your account</a></p>`);
      }
    }
  }

  /** Answers a request under /account; `ip` is the client's address for the rate limits. */
  return async function handle(request: Request, ip: string): Promise<AccountResponse> {
    const url = new URL(request.url);
    const visit: Visit = {
      request,
      url,
      ip,
      cookies: readCookies(request),
      setCookies: [],
      secure: deps.secureCookies ?? !isLocalhost(url.hostname),
    };
    const response = await route(visit);
    return { ...response, cookies: visit.setCookies };
  };
}
