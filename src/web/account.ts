/**
 * The account area at /account: sign-up with a verification link, sign-in by e-mailed magic
 * link, and a dashboard with the plan, this month's usage and the API keys (create, shown once;
 * revoke). Every form that changes something carries a CSRF token derived from the cookie it
 * travels with; mails are rate-limited per address and per IP.
 */
import type { Sql } from "../db/open.ts";
import { AdminError, createAccount, findAccountByEmail, isEmail } from "../accounts/accounts.ts";
import {
  type ApiKeyInfo,
  createApiKey,
  type CreatedApiKey,
  listApiKeys,
  MAX_ACTIVE_KEYS,
  revokeApiKey,
} from "../accounts/api_keys.ts";
import type { QueryContext } from "../catalog/common.ts";
import { readUsage } from "../accounts/usage.ts";
import { formatDate, html, page, type SafeHtml } from "./html.ts";
import type { Mailer } from "./mailer.ts";
import {
  checkCsrf,
  cookie,
  csrfTokenFor,
  hashToken,
  isCrossSite,
  isLocalhost,
  randomToken,
  readCookies,
} from "./security.ts";
import {
  cleanUp,
  deleteSession,
  findSession,
  hitRateLimit,
  peekToken,
  redeemToken,
  type SessionAccount,
  storeToken,
  type TokenPurpose,
} from "../accounts/sessions.ts";

const SESSION_COOKIE = "oi_session";
const CSRF_COOKIE = "oi_csrf";
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const MAX_FORM_BYTES = 8192;
const MAX_EMAIL_LENGTH = 254;

/** Lifetimes and limits of the account area; every field has a default. */
export interface AccountSettings {
  /** How long a verification link works, in seconds (default 24 hours). */
  verifyTtlSeconds: number;
  /** How long a sign-in link works, in seconds (default 15 minutes). */
  signinTtlSeconds: number;
  /** How long a session lasts, in seconds (default 7 days). */
  sessionTtlSeconds: number;
  /** Mails asked for one address per window (default 5). */
  mailsPerAddress: number;
  /** Mails asked for from one IP per window (default 20). */
  mailsPerIp: number;
  /** The rate-limit window, in seconds (default one hour). */
  rateWindowSeconds: number;
}

export const DEFAULT_SETTINGS: AccountSettings = {
  verifyTtlSeconds: 24 * 3600,
  signinTtlSeconds: 15 * 60,
  sessionTtlSeconds: 7 * 24 * 3600,
  mailsPerAddress: 5,
  mailsPerIp: 20,
  rateWindowSeconds: 3600,
};

/** What the account area needs. */
export interface AccountDeps {
  sql: Sql;
  context: QueryContext;
  mailer: Mailer;
  settings: AccountSettings;
  /** Forces `Secure` on or off; by default it is on except for localhost. */
  secureCookies?: boolean;
  /** An address shown for plan changes ("contact us"). */
  contactEmail?: string;
  log: (entry: Record<string, unknown>) => void;
}

/** A page of the account area, before the common headers are added. */
export interface AccountResponse {
  status: number;
  body?: string;
  headers: Record<string, string>;
  /** `Set-Cookie` values. */
  cookies?: string[];
}

interface Visit {
  request: Request;
  url: URL;
  ip: string;
  cookies: Map<string, string>;
  /** Set-Cookie values to send with the answer. */
  setCookies: string[];
  secure: boolean;
}

function respond(status: number, body: string, _visit: Visit): AccountResponse {
  return { status, body, headers: { "Content-Type": "text/html; charset=utf-8" } };
}

function redirect(location: string): AccountResponse {
  return { status: 303, headers: { Location: location } };
}

function message(visit: Visit, status: number, title: string, text: SafeHtml): AccountResponse {
  return respond(
    status,
    page({ title: `${title} · Opportunity Intelligence`, body: html`<h1>${title}</h1>${text}` }),
    visit,
  );
}

/** The anonymous CSRF secret of the visit, set as a cookie when the browser has none yet. */
function anonymousSecret(visit: Visit): string {
  const existing = visit.cookies.get(CSRF_COOKIE);
  if (existing && TOKEN_PATTERN.test(existing)) return existing;
  const fresh = randomToken();
  visit.cookies.set(CSRF_COOKIE, fresh);
  visit.setCookies.push(cookie(CSRF_COOKIE, fresh, { secure: visit.secure, maxAge: 86400 }));
  return fresh;
}

async function csrfField(secret: string): Promise<SafeHtml> {
  return html`<input type="hidden" name="csrf" value="${await csrfTokenFor(secret)}">`;
}

async function readForm(request: Request): Promise<URLSearchParams | undefined> {
  const type = request.headers.get("content-type") ?? "";
  if (!type.startsWith("application/x-www-form-urlencoded")) return undefined;
  const length = Number(request.headers.get("content-length") ?? "0");
  if (length > MAX_FORM_BYTES) return undefined;
  // Read at most MAX_FORM_BYTES even without a Content-Length (chunked): never buffer more.
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of request.body ?? []) {
    size += chunk.byteLength;
    // Leaving the loop cancels the rest of the body.
    if (size > MAX_FORM_BYTES) return undefined;
    chunks.push(chunk);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new URLSearchParams(new TextDecoder().decode(bytes));
}

async function emailBucket(email: string): Promise<string> {
  // The address itself is not kept in the counters, only its digest.
  return `mail:address:${await hashToken(email.trim().toLowerCase())}`;
}

/** Builds the account area's request handler for paths under /account. */
export function createAccountArea(deps: AccountDeps) {
  const { sql, settings } = deps;

  async function session(visit: Visit): Promise<
    { account: SessionAccount; secret: string } | undefined
  > {
    const secret = visit.cookies.get(SESSION_COOKIE);
    if (!secret || !TOKEN_PATTERN.test(secret)) return undefined;
    const account = await findSession(sql, await hashToken(secret));
    return account ? { account, secret } : undefined;
  }

  async function landing(visit: Visit): Promise<AccountResponse> {
    const csrf = await csrfField(anonymousSecret(visit));
    const body = html`
      <h1>Your account</h1>
      <p>An account gives you API keys for the REST API and the MCP endpoint. It starts on the Free
      plan (20 calls a month); no password is ever needed: we e-mail you a link that works once.</p>
      <section class="card" aria-labelledby="signup-title">
        <h2 id="signup-title">Create an account</h2>
        <form method="post" action="/account/signup">
      ${csrf}
      <label for="signup-email">E-mail address</label>
      <input id="signup-email" type="email" name="email" required maxlength="254" autocomplete="email">
      <button type="submit">Send me a verification link</button>
        </form>
      </section>
      <section class="card" aria-labelledby="signin-title">
        <h2 id="signin-title">Sign in</h2>
        <form method="post" action="/account/signin">
      ${csrf}
      <label for="signin-email">E-mail address</label>
      <input id="signin-email" type="email" name="email" required maxlength="254" autocomplete="email">
      <button type="submit">E-mail me a sign-in link</button>
        </form>
        <p class="muted">The link works once, for ${Math.round(
          settings.signinTtlSeconds / 60,
        )} minutes.</p>
      </section>
    `;
    return respond(200, page({ title: "Your account · Opportunity Intelligence", body }), visit);
  }

  async function sendLink(account: { id: number; email: string }, purpose: TokenPurpose) {
    const token = randomToken();
    const ttlSeconds = purpose === "verify" ? settings.verifyTtlSeconds : settings.signinTtlSeconds;
    await storeToken(sql, {
      hash: await hashToken(token),
      accountId: account.id,
      purpose,
      ttlSeconds,
    });
    const link = `${deps.context.publicBaseUrl}/account/link?token=${token}`;
    const lifetime = purpose === "verify" ? "24 hours" : `${Math.round(ttlSeconds / 60)} minutes`;
    const text = purpose === "verify"
      ? `Welcome to Opportunity Intelligence.\n\nOpen this link to verify your address and ` +
        `sign in (it works once, for ${lifetime}):\n\n${link}\n\nIf you did not ask for an ` +
        `account, ignore this mail.\n`
      : `Open this link to sign in to Opportunity Intelligence (it works once, for ` +
        `${lifetime}):\n\n${link}\n\nIf you did not ask to sign in, ignore this mail.\n`;
    const subject = purpose === "verify"
      ? "Verify your e-mail address for Opportunity Intelligence"
      : "Your sign-in link for Opportunity Intelligence";
    // Sent in the background: the answer must not take longer, nor differ, whether or not a
    // mail goes out, or it would tell who has an account.
    deps.mailer.send({ to: account.email, subject, text }).catch((error) => {
      deps.log({
        level: "error",
        event: "mail_failed",
        account_id: account.id,
        error: error instanceof Error ? error.message : String(error),
      });
    });
  }

  async function askForLink(visit: Visit, kind: "signup" | "signin"): Promise<AccountResponse> {
    const form = await readForm(visit.request);
    if (
      !form || !(await checkCsrf(visit.cookies.get(CSRF_COOKIE), form.get("csrf") ?? undefined))
    ) {
      return csrfRefused(visit);
    }
    const email = (form.get("email") ?? "").trim();
    if (email.length > MAX_EMAIL_LENGTH || !isEmail(email)) {
      return message(
        visit,
        422,
        "Check the address",
        html`<p>"${email}" is not an e-mail
address. <a href="/account">Try again</a>.</p>`,
      );
    }
    const allowed = await hitRateLimit(sql, {
      bucket: `mail:ip:${visit.ip}`,
      limit: settings.mailsPerIp,
      windowSeconds: settings.rateWindowSeconds,
    }) && await hitRateLimit(sql, {
      bucket: await emailBucket(email),
      limit: settings.mailsPerAddress,
      windowSeconds: settings.rateWindowSeconds,
    });
    if (!allowed) {
      return message(
        visit,
        429,
        "Too many links asked for",
        html`<p>Too many links were asked
for this address or from your network. Use the last link you received, or try again in an
hour.</p>`,
      );
    }
    let account = await findAccountByEmail(sql, email);
    if (!account && kind === "signup") {
      try {
        account = await createAccount(sql, { email });
      } catch (error) {
        // Created by a concurrent request in the meantime: carry on with that account.
        if (!(error instanceof AdminError)) throw error;
        account = await findAccountByEmail(sql, email);
      }
    }
    if (account) await sendLink(account, account.email_verified_at ? "signin" : "verify");
    // Now and then, drop what has expired; no scheduler is needed for that.
    if (Math.random() < 0.05) await cleanUp(sql);
    return message(
      visit,
      200,
      "Check your inbox",
      html`<p>If <strong>${email}</strong> can
receive mail, a link is on its way${kind === "signin" ? " to any account of that address" : ""}.
It works once. Nothing there after a few minutes? Look in the spam folder, or
<a href="/account">ask again</a>.</p>`,
    );
  }

  function csrfRefused(visit: Visit): AccountResponse {
    return message(
      visit,
      403,
      "Form expired",
      html`<p>This form has expired or did not come
from this site. <a href="/account">Reload the account page</a> and try again.</p>`,
    );
  }

  async function linkPage(visit: Visit): Promise<AccountResponse> {
    const token = visit.url.searchParams.get("token") ?? "";
    const purpose = TOKEN_PATTERN.test(token)
      ? await peekToken(sql, await hashToken(token))
      : undefined;
    if (!purpose) return deadLink(visit);
    const csrf = await csrfField(anonymousSecret(visit));
    const title = purpose === "verify" ? "Verify your address" : "Sign in";
    // A button rather than a sign-in on GET: mail scanners that open links must not use them up.
    return message(
      visit,
      200,
      title,
      html`<form method="post" action="/account/link">
${csrf}
<input type="hidden" name="token" value="${token}">
<button type="submit">${purpose === "verify" ? "Verify and sign in" : "Sign in"}</button>
</form>`,
    );
  }

  function deadLink(visit: Visit): AccountResponse {
    return message(
      visit,
      400,
      "This link no longer works",
      html`<p>The link has expired or was
already used. <a href="/account">Ask for a new one</a>.</p>`,
    );
  }

  async function useLink(visit: Visit): Promise<AccountResponse> {
    const form = await readForm(visit.request);
    if (
      !form || !(await checkCsrf(visit.cookies.get(CSRF_COOKIE), form.get("csrf") ?? undefined))
    ) {
      return csrfRefused(visit);
    }
    const token = form.get("token") ?? "";
    if (!TOKEN_PATTERN.test(token)) return deadLink(visit);
    const secret = randomToken();
    const accountId = await redeemToken(sql, {
      hash: await hashToken(token),
      sessionHash: await hashToken(secret),
      sessionTtlSeconds: settings.sessionTtlSeconds,
    });
    if (accountId === undefined) return deadLink(visit);
    // A new session secret at every sign-in: a session id planted earlier is never promoted.
    visit.setCookies.push(
      cookie(SESSION_COOKIE, secret, { secure: visit.secure, maxAge: settings.sessionTtlSeconds }),
    );
    return redirect("/account");
  }

  async function dashboard(
    visit: Visit,
    current: { account: SessionAccount; secret: string },
    extra: { created?: CreatedApiKey; notice?: string; error?: string; status?: number } = {},
  ): Promise<AccountResponse> {
    const { account } = current;
    const [usage, keys] = await Promise.all([
      readUsage(sql, account),
      listApiKeys(sql, account.email),
    ]);
    const csrf = await csrfField(current.secret);
    const active = keys.filter((k) => k.revoked_at === null).length;
    const contact = deps.contactEmail
      ? html`<a href="mailto:${deps.contactEmail}">contact us</a>`
      : html`contact us (reply to any mail we sent you)`;
    const planName = account.plan[0].toUpperCase() + account.plan.slice(1);
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
      <p>Signed in as <strong>${account.email}</strong>.</p>
      <form method="post" action="/account/signout" class="inline">${csrf}
      <button type="submit" class="secondary">Sign out</button></form>
      ${extra.notice ? html`<p class="card notice" role="status">${extra.notice}</p>` : ""}
      ${extra.error ? html`<p class="card error" role="alert">${extra.error}</p>` : ""}
      ${created}
      <section class="card" aria-labelledby="usage-title">
        <h2 id="usage-title">Plan and usage</h2>
        <p>Plan: <strong>${planName}</strong>, ${usage.limit.toLocaleString(
          "en-US",
        )} calls a month.</p>
        <p><meter id="usage-meter" min="0" max="${usage.limit}" value="${usage.used}">${usage
          .used}</meter></p>
        <p id="usage"><strong>${usage.used}</strong> of ${usage.limit} calls used this month,
      ${usage.remaining} left. The count resets on
      <time datetime="${usage.reset_at}">${formatDate(usage.reset_at)}</time> at 00:00 UTC.</p>
        <p class="muted">All your keys share this quota, on REST and MCP alike. To change your plan
      (Pro: 1,000 calls, Business: 5,000), ${contact}; plan changes are made by our team.</p>
      </section>
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
    `;
    const head = extra.created ? html`<script src="/assets/copy.js" defer></script>` : undefined;
    return respond(
      extra.status ?? 200,
      page({ title: "Your account · Opportunity Intelligence", body, head }),
      visit,
    );
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
      return csrfRefused(visit);
    }
    return { current, form };
  }

  async function createKey(visit: Visit): Promise<AccountResponse> {
    const checked = await signedInForm(visit);
    if ("status" in checked) return checked;
    const { current, form } = checked;
    try {
      const created = await createApiKey(sql, {
        email: current.account.email,
        name: form.get("name") ?? undefined,
      });
      // Answered here rather than through a redirect, so that the raw key is in no URL.
      return await dashboard(visit, current, { created });
    } catch (error) {
      if (!(error instanceof AdminError)) throw error;
      return await dashboard(visit, current, { error: error.message, status: 409 });
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
      return await dashboard(visit, current, {
        error: "That key is not one of your active keys",
        status: 404,
      });
    }
    try {
      await revokeApiKey(sql, { id: key.id, by: "owner" });
    } catch (error) {
      // Revoked by a concurrent request: the outcome the person asked for.
      if (!(error instanceof AdminError)) throw error;
    }
    return redirect("/account?done=revoked");
  }

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
    if (isPost && isCrossSite(request, own)) return csrfRefused(visit);
    const methodNotAllowed = (allow: string) => ({
      ...message(visit, 405, "Method not allowed", html`<p>Use ${allow}.</p>`),
      headers: { "Content-Type": "text/html; charset=utf-8", Allow: allow },
    });
    switch (path) {
      case "/account": {
        if (!isGet) return methodNotAllowed("GET, HEAD");
        const current = await session(visit);
        if (!current) return await landing(visit);
        const notice = url.searchParams.get("done") === "revoked"
          ? "The key is revoked: calls with it now answer 403 key_revoked."
          : undefined;
        return await dashboard(visit, current, { notice });
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
      case "/account/keys/revoke":
        if (!isPost) return methodNotAllowed("POST");
        return await revokeKey(visit);
      case "/account/signout":
        if (!isPost) return methodNotAllowed("POST");
        return await signOut(visit);
      default:
        return message(
          visit,
          404,
          "Page not found",
          html`<p><a href="/account">Your account</a></p>`,
        );
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
