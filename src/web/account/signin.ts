/**
 * Signing up and signing in: the landing page's two forms, the e-mailed single-use link (verify
 * or sign in), and the session it opens. Mails are rate-limited per address and per IP.
 */
import { AccountError } from "../../platform/errors.ts";
import { createAccount, findAccountByEmail, isEmail } from "../../accounts/accounts.ts";
import {
  cleanUp,
  findSession,
  peekToken,
  redeemToken,
  type SessionAccount,
  storeToken,
  type TokenPurpose,
} from "../../accounts/sessions.ts";
import { hitRateLimit } from "../../db/rate_limits.ts";
import {
  type AccountDeps,
  type AccountResponse,
  anonymousSecret,
  CSRF_COOKIE,
  csrfField,
  csrfRefused,
  MAX_EMAIL_LENGTH,
  message,
  NEXT_COOKIE,
  readForm,
  redirect,
  respond,
  safeNext,
  SESSION_COOKIE,
  TOKEN_PATTERN,
  type Visit,
} from "./common.ts";
import { html, page } from "../html.ts";
import { checkCsrf, cookie, hashToken, randomToken } from "../security.ts";

/** A signed-in visit: the account and the session secret its CSRF tokens derive from. */
export interface SignedIn {
  account: SessionAccount;
  secret: string;
}

async function emailBucket(email: string): Promise<string> {
  // The address itself is not kept in the counters, only its digest.
  return `mail:address:${await hashToken(email.trim().toLowerCase())}`;
}

// What a consent page's path holds as URLSearchParams writes it: nothing a cookie value must
// escape. Escaping it anyway would triple a long `state` (ChatGPT sends over 400 characters; up to
// 1,000 are accepted) past the 4,096 bytes a browser keeps of a cookie, and the person would land
// on the dashboard instead of the consent page.
const COOKIE_SAFE = /^[A-Za-z0-9*\-._%&=+/?]+$/;

function encodeNext(next: string): string {
  return COOKIE_SAFE.test(next) ? next : encodeURIComponent(next);
}

function decodeNext(value: string | undefined): string | undefined {
  // Written as it is (a path starts with "/"), or escaped ("%2F...").
  if (value?.startsWith("/")) return value;
  try {
    return value === undefined ? undefined : decodeURIComponent(value);
  } catch {
    return undefined;
  }
}

/** The sign-up and sign-in pages and actions of the account area. */
export function createSignIn(deps: AccountDeps) {
  const { sql, settings } = deps;

  async function session(visit: Visit): Promise<SignedIn | undefined> {
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
    return respond(200, page({ title: "Your account · Opportunity Intelligence", body }));
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
      return csrfRefused();
    }
    const email = (form.get("email") ?? "").trim();
    if (email.length > MAX_EMAIL_LENGTH || !isEmail(email)) {
      return message(
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
        if (!(error instanceof AccountError)) throw error;
        account = await findAccountByEmail(sql, email);
      }
    }
    if (account) await sendLink(account, account.email_verified_at ? "signin" : "verify");
    // Asked from an app's consent page: the link brings the person back there (same browser).
    const next = safeNext(form.get("next"));
    if (next) {
      visit.setCookies.push(
        cookie(NEXT_COOKIE, encodeNext(next), { secure: visit.secure, maxAge: 3600 }),
      );
    }
    // Now and then, drop what has expired; no scheduler is needed for that.
    if (Math.random() < 0.05) await cleanUp(sql);
    return message(
      200,
      "Check your inbox",
      html`<p>If <strong>${email}</strong> can
  receive mail, a link is on its way${kind === "signin" ? " to any account of that address" : ""}.
  It works once. Nothing there after a few minutes? Look in the spam folder, or
  <a href="/account">ask again</a>.</p>`,
    );
  }

  async function linkPage(visit: Visit): Promise<AccountResponse> {
    const token = visit.url.searchParams.get("token") ?? "";
    const purpose = TOKEN_PATTERN.test(token)
      ? await peekToken(sql, await hashToken(token))
      : undefined;
    if (!purpose) return deadLink();
    const csrf = await csrfField(anonymousSecret(visit));
    const title = purpose === "verify" ? "Verify your address" : "Sign in";
    // A button rather than a sign-in on GET: mail scanners that open links must not use them up.
    return message(
      200,
      title,
      html`<form method="post" action="/account/link">
  ${csrf}
  <input type="hidden" name="token" value="${token}">
  <button type="submit">${purpose === "verify" ? "Verify and sign in" : "Sign in"}</button>
  </form>`,
    );
  }

  function deadLink(): AccountResponse {
    return message(
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
      return csrfRefused();
    }
    const token = form.get("token") ?? "";
    if (!TOKEN_PATTERN.test(token)) return deadLink();
    const secret = randomToken();
    const accountId = await redeemToken(sql, {
      hash: await hashToken(token),
      sessionHash: await hashToken(secret),
      sessionTtlSeconds: settings.sessionTtlSeconds,
    });
    if (accountId === undefined) return deadLink();
    // A new session secret at every sign-in: a session id planted earlier is never promoted.
    visit.setCookies.push(
      cookie(SESSION_COOKIE, secret, { secure: visit.secure, maxAge: settings.sessionTtlSeconds }),
    );
    const next = safeNext(decodeNext(visit.cookies.get(NEXT_COOKIE)));
    if (next) {
      visit.setCookies.push(cookie(NEXT_COOKIE, "", { secure: visit.secure, maxAge: 0 }));
      return redirect(next);
    }
    return redirect("/account");
  }

  return { session, landing, askForLink, linkPage, useLink };
}
