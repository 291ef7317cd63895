/**
 * The service in-process with its web, composed as main.ts composes it (buildHandler), with the
 * web's mails in an in-memory outbox, its log kept and a client IP from `X-Test-IP`.
 */
import assert from "node:assert/strict";
import { buildHandler } from "../../main.ts";
import { readConfig } from "../../src/platform/config.ts";
import type { MailMessage } from "../../src/platform/mailer.ts";
import type { WebDeps } from "../../src/web/handler.ts";
import type { TestDb } from "./db.ts";

export interface WebTestApp {
  handler: (request: Request) => Promise<Response>;
  outbox: MailMessage[];
  logs: Record<string, unknown>[];
  base: string;
  sql: TestDb["sql"];
}

/** The composed handler on `db`, its outbox and its log, with `base` as the public address. */
export function webTestApp(
  db: TestDb,
  options: { base?: string; web?: Partial<WebDeps>; env?: Record<string, string> } = {},
): WebTestApp {
  const base = options.base ?? "http://localhost:8000";
  const config = readConfig({ DATA_DIR: "memory://", PUBLIC_BASE_URL: base, ...options.env });
  const outbox: MailMessage[] = [];
  const logs: Record<string, unknown>[] = [];
  const handler = buildHandler(db.database, config, {
    log: () => {},
    web: {
      mailer: {
        send: (m) => {
          outbox.push(m);
          return Promise.resolve();
        },
      },
      log: (e) => logs.push(e),
      clientIp: (request) => request.headers.get("x-test-ip") ?? "192.0.2.1",
      ...options.web,
    },
  });
  return {
    handler: (request) => handler(request),
    outbox,
    logs,
    base,
    sql: db.sql,
  };
}

/** The link of a mail, or throws. */
export function linkIn(mail: MailMessage | undefined): string {
  const match = /https?:\/\/\S+\/account\/link\?token=[A-Za-z0-9_-]+/.exec(mail?.text ?? "");
  if (!match) throw new Error(`No link in mail: ${JSON.stringify(mail)}`);
  return match[0];
}

/** A tiny browser: keeps cookies of /account, reads CSRF fields, follows nothing by itself. */
export class Browser {
  cookies = new Map<string, string>();
  constructor(readonly app: WebTestApp, readonly ip = "192.0.2.1") {}

  async request(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0) {
      headers.set("Cookie", [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; "));
    }
    headers.set("x-test-ip", this.ip);
    const url = path.startsWith("http") ? path : this.app.base + path;
    const response = await this.app.handler(new Request(url, { ...init, headers }));
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      if (/Max-Age=0/.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }

  /** GET a page; returns the response and its text. */
  async get(path: string): Promise<{ response: Response; text: string }> {
    const response = await this.request(path);
    return { response, text: await response.text() };
  }

  /** POSTs a form (urlencoded), as a same-origin browser does. */
  async post(
    path: string,
    fields: Record<string, string>,
    headers: Record<string, string> = { "Sec-Fetch-Site": "same-origin" },
  ): Promise<{ response: Response; text: string }> {
    const response = await this.request(path, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers },
      body: new URLSearchParams(fields).toString(),
    });
    return { response, text: await response.text() };
  }
}

/** The value of the first CSRF field of a page, or throws. */
export function csrfIn(page: string): string {
  const match = /name="csrf" value="([^"]+)"/.exec(page);
  if (!match) throw new Error("No CSRF field on the page");
  return match[1];
}

/** Signs a Browser in through the e-mailed link (creating the account when new). */
export async function signUp(browser: Browser, email: string): Promise<void> {
  const landing = await browser.get("/account");
  const before = browser.app.outbox.length;
  const asked = await browser.post("/account/signup", { email, csrf: csrfIn(landing.text) });
  assert.equal(asked.response.status, 200);
  assert.equal(browser.app.outbox.length, before + 1);
  const link = linkIn(browser.app.outbox.at(-1));
  const confirm = await browser.get(link);
  const used = await browser.post("/account/link", {
    token: new URL(link).searchParams.get("token")!,
    csrf: csrfIn(confirm.text),
  });
  assert.equal(used.response.status, 303);
}

/**
 * The composed service on a free loopback port, its PUBLIC_BASE_URL that very address, so that
 * every public URL it answers (an opportunity's `url`, a search result's) can be opened.
 */
export function serveOnPort(db: TestDb): { base: string; close(): Promise<void> } {
  let handler: (request: Request) => Promise<Response> = () =>
    Promise.resolve(new Response(null, { status: 503 }));
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request) => handler(request),
  );
  const base = `http://127.0.0.1:${server.addr.port}`;
  handler = buildHandler(
    db.database,
    readConfig({ DATA_DIR: "memory://", PUBLIC_BASE_URL: base }),
    { log: () => {} },
  );
  return { base, close: () => server.shutdown() };
}
