/**
 * What every page of the account area shares: its settings and dependencies, the visit (request,
 * cookies, client address), the answer shape, CSRF fields and the capped form reader.
 */
import type { Sql } from "../../db/open.ts";
import { readUpTo } from "../../platform/body.ts";
import type { QueryContext } from "../../catalog/common.ts";
import { html, page, type SafeHtml } from "../html.ts";
import type { Mailer } from "../../platform/mailer.ts";
import { cookie, csrfTokenFor, randomToken } from "../security.ts";
import type { WatchService } from "../../watches/service.ts";
import type { Billing } from "../../billing/billing.ts";

export const SESSION_COOKIE = "oi_session";
export const CSRF_COOKIE = "oi_csrf";
export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const MAX_FORM_BYTES = 8192;
export const MAX_EMAIL_LENGTH = 254;

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
  /** The watch operations; without them the dashboard has no Watches section. */
  watches?: WatchService;
  /** Stripe Billing; without it the dashboard says how to ask for a plan change. */
  billing?: Billing;
}

/** A page of the account area, before the common headers are added. */
export interface AccountResponse {
  status: number;
  body?: string;
  headers: Record<string, string>;
  /** `Set-Cookie` values. */
  cookies?: string[];
  /** One more origin or scheme the page's forms may go to (the CSP's form-action). */
  formAction?: string;
}

export interface Visit {
  request: Request;
  url: URL;
  ip: string;
  cookies: Map<string, string>;
  /** Set-Cookie values to send with the answer. */
  setCookies: string[];
  secure: boolean;
}

export function respond(status: number, body: string): AccountResponse {
  return { status, body, headers: { "Content-Type": "text/html; charset=utf-8" } };
}

export function redirect(location: string): AccountResponse {
  return { status: 303, headers: { Location: location } };
}

export function message(status: number, title: string, text: SafeHtml): AccountResponse {
  return respond(
    status,
    page({ title: `${title} · Opportunity Intelligence`, body: html`<h1>${title}</h1>${text}` }),
  );
}

/** The anonymous CSRF secret of the visit, set as a cookie when the browser has none yet. */
export function anonymousSecret(visit: Visit): string {
  const existing = visit.cookies.get(CSRF_COOKIE);
  if (existing && TOKEN_PATTERN.test(existing)) return existing;
  const fresh = randomToken();
  visit.cookies.set(CSRF_COOKIE, fresh);
  visit.setCookies.push(cookie(CSRF_COOKIE, fresh, { secure: visit.secure, maxAge: 86400 }));
  return fresh;
}

export async function csrfField(secret: string): Promise<SafeHtml> {
  return html`<input type="hidden" name="csrf" value="${await csrfTokenFor(secret)}">`;
}

export async function readForm(request: Request): Promise<URLSearchParams | undefined> {
  const type = request.headers.get("content-type") ?? "";
  if (!type.startsWith("application/x-www-form-urlencoded")) return undefined;
  const length = Number(request.headers.get("content-length") ?? "0");
  if (length > MAX_FORM_BYTES) return undefined;
  const bytes = await readUpTo(request.body, MAX_FORM_BYTES);
  if (!bytes) return undefined;
  return new URLSearchParams(new TextDecoder().decode(bytes));
}

export function csrfRefused(): AccountResponse {
  return message(
    403,
    "Form expired",
    html`<p>This form has expired or did not come
from this site. <a href="/account">Reload the account page</a> and try again.</p>`,
  );
}

/** The cookie that brings the person back to the consent page after the e-mailed link. */
export const NEXT_COOKIE = "oi_next";
const NEXT_MAX = 4000;

/** The path to return to after sign-in, when it is a consent page of this site; else undefined. */
export function safeNext(next: string | undefined | null): string | undefined {
  if (!next || next.length > NEXT_MAX || !next.startsWith("/account/authorize?")) return undefined;
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u0020\u007f\\]/.test(next)) return undefined;
  return next;
}
