/**
 * End to end in headless Chromium (Debian's /usr/bin/chromium, driven by playwright-core): sign
 * up, open the link mailed through SMTP to a local sink, create a key, call the API with it,
 * revoke it, see 403. Screenshots go to test-artifacts/. Without Chromium the test is skipped
 * (.ci/run installs it).
 */
import assert from "node:assert/strict";
import { SMTPServer } from "smtp-server";
import { buildHandler } from "../../main.ts";
import { readConfig } from "../../src/platform/config.ts";
import { createMailer } from "../../src/platform/mailer.ts";
import { createWebHandler } from "../../src/web/handler.ts";
import { loadFixture } from "../helpers/app.ts";
import { ENGINES, withTestDb } from "../helpers/db.ts";
import { CHROMIUM, hasChromium, launchChromium } from "../helpers/browser.ts";

const ARTIFACTS = new URL("../../test-artifacts/", import.meta.url);
if (!hasChromium) {
  console.warn(
    `Skipping the browser test: ${CHROMIUM} is missing (install it with ` +
      "`apt-get install -y chromium`; .ci/run does)",
  );
}

/** A local SMTP sink: every message it receives, as raw text. */
async function startSmtpSink() {
  const messages: string[] = [];
  const waiters: (() => void)[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Uint8Array[] = [];
      stream.on("data", (chunk: Uint8Array) => chunks.push(chunk));
      stream.on("end", () => {
        messages.push(new TextDecoder().decode(concat(chunks)));
        waiters.splice(0).forEach((wake) => wake());
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  // deno-lint-ignore no-explicit-any
  const port: number = (server as any).server.address().port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    /** Resolves when the sink holds more than `count` messages. */
    async waitForMore(count: number): Promise<string> {
      while (messages.length <= count) await new Promise<void>((r) => waiters.push(r));
      return messages[count];
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** The account link of a raw mail (quoted-printable soft breaks undone). */
function linkOf(raw: string): string {
  const text = raw.replace(/=\r?\n/g, "").replace(/=3D/g, "=");
  const match = /http:\/\/\S+\/account\/link\?token=[A-Za-z0-9_-]{43}/.exec(text);
  if (!match) throw new Error(`No link in the mail:\n${raw}`);
  return match[0];
}

Deno.test({
  name: "browser: sign up, mailed link, create a key, call the API, revoke, 403",
  ignore: !hasChromium,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withTestDb(ENGINES[0], async (db) => {
      await Deno.mkdir(ARTIFACTS, { recursive: true });
      await loadFixture(db.sql);
      const smtp = await startSmtpSink();
      let base = "";
      let handler: (request: Request, info: Deno.ServeHandlerInfo) => Promise<Response> = () =>
        Promise.resolve(new Response(null, { status: 503 }));
      const server = Deno.serve(
        { hostname: "127.0.0.1", port: 0, onListen: () => {} },
        (request, info) => handler(request, info),
      );
      base = `http://127.0.0.1:${server.addr.port}`;
      const config = readConfig({ DATA_DIR: "memory://", PUBLIC_BASE_URL: base });
      const api = buildHandler(db.database, config, { log: () => {} });
      const web = createWebHandler({
        sql: db.sql,
        context: { publicBaseUrl: base },
        mailer: createMailer({ smtpUrl: smtp.url, from: "Oppintel <no-reply@oppintel.test>" }),
        log: (entry) => console.error(entry),
      });
      handler = async (request, info) => (await web(request, info)) ?? (await api(request));

      const browser = await launchChromium({ viewport: { width: 1000, height: 900 } });
      const context = browser.context;
      const shot = (name: string) =>
        page.screenshot({ path: new URL(name, ARTIFACTS).pathname, fullPage: true });
      const page = context.pages()[0] ?? await context.newPage();
      const problems: string[] = [];
      page.on("console", (m) => {
        if (m.type() === "error") problems.push(m.text());
      });
      page.on("pageerror", (e) => problems.push(String(e)));
      page.on("response", (r) => {
        if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
      });
      try {
        await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: base });

        // The article renders as it is: it carries no script at all.
        await page.goto(`${base}/blog/ci-analysis`);
        assert.equal(await page.locator("h1").textContent(), "Why CI flakes");
        assert.equal(await page.locator("script").count(), 0);
        await shot("web-01-article.png");

        await page.goto(`${base}/account`);
        await page.fill("#signup-email", "browser@example.com");
        await page.click("text=Send me a verification link");
        await page.waitForSelector("text=Check your inbox");
        await shot("web-02-check-inbox.png");

        const mail = await smtp.waitForMore(0);
        assert.match(mail, /To: browser@example.com/);
        await page.goto(linkOf(mail));
        await page.click("text=Verify and sign in");
        await page.waitForSelector("text=Signed in as");
        assert.match(await page.locator("#usage").textContent() ?? "", /0\s+of 20 calls used/);
        await shot("web-03-dashboard.png");

        await page.fill("#key-name", "browser");
        await page.click("text=Create a key");
        const key = (await page.locator("#new-key").textContent())!.trim();
        assert.match(key, /^oi_live_[A-Za-z0-9]{50}$/);
        assert.ok(!page.url().includes(key), "the key is in no URL");
        // The copy button is unhidden and works through the static script, under the CSP.
        await page.click("text=Copy key");
        await page.waitForSelector("text=Copied");
        // deno-lint-ignore no-explicit-any
        const clip = await page.evaluate(() => (navigator as any).clipboard.readText());
        assert.equal(clip, key);
        await shot("web-04-new-key.png");

        const rest = await fetch(`${base}/api/v1/overview`, { headers: { "X-API-Key": key } });
        assert.equal(rest.status, 200);
        await rest.body?.cancel();
        const mcp = await fetch(`${base}/mcp/`, {
          method: "POST",
          headers: {
            "X-API-Key": key,
            "Content-Type": "application/json",
            Accept: "application/json, text/event-stream",
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
        });
        assert.equal(mcp.status, 200, "the new key works on MCP");
        assert.equal((await mcp.json()).result.tools.length, 16);

        await page.goto(`${base}/account`);
        assert.match(await page.locator("#usage").textContent() ?? "", /1\s+of 20 calls used/);
        assert.ok(!(await page.content()).includes(key), "the key is shown only once");
        await page.click("text=Revoke");
        await page.waitForSelector("text=Revoked by you");
        await shot("web-05-revoked.png");

        const revoked = await fetch(`${base}/api/v1/overview`, { headers: { "X-API-Key": key } });
        assert.equal(revoked.status, 403);
        assert.equal((await revoked.json()).error, "key_revoked");

        assert.deepEqual(problems, [], "no console errors (a CSP violation would show here)");
      } catch (error) {
        await shot("web-failure.png").catch(() => {});
        throw error;
      } finally {
        await browser.close();
        await server.shutdown();
        await smtp.close();
      }
    }),
});
