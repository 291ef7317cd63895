/**
 * End to end, as an AI client signs in: the MCP SDK v2 client with its own OAuth support (an
 * OAuthClientProvider given to the Streamable HTTP transport) against a started server (main.ts
 * in a subprocess), a person in headless Chromium. Discovery from the 401, the client known by
 * a metadata document served here on loopback (OAUTH_CIMD_ALLOW_LOOPBACK) or registered
 * dynamically, authorize, sign-in through the magic link read from the server's log, consent,
 * token, tools/list and a charged tools/call, refresh, Revoke on the dashboard, then 401.
 * Without Chromium the test is skipped (.ci/run installs it).
 */
import assert from "node:assert/strict";
import {
  Client,
  type OAuthClientInformationMixed,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type OAuthTokens,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from "@modelcontextprotocol/client";
import { ENGINES, type TestDb, withTestDb } from "../helpers/db.ts";
import { loadFixture, usedOf } from "../helpers/app.ts";
import { CHROMIUM, hasChromium, launchChromium } from "../helpers/browser.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const ARTIFACTS = new URL("../../test-artifacts/", import.meta.url);
if (!hasChromium) console.warn(`Skipping the OAuth browser test: ${CHROMIUM} is missing`);

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** main.ts in a subprocess on `db`, its standard error kept (the log mailer writes there). */
async function startServer(db: TestDb) {
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN],
    env: {
      DATABASE_URL: db.url,
      PORT: String(port),
      PUBLIC_BASE_URL: base,
      OAUTH_CIMD_ALLOW_LOOPBACK: "1",
      SEED_DEMO: "0",
      NO_COLOR: "1",
      PATH: Deno.env.get("PATH") ?? "",
      HOME: Deno.env.get("HOME") ?? "",
    },
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let log = "";
  const decoder = new TextDecoder();
  const reading = (async () => {
    for await (const chunk of child.stderr) log += decoder.decode(chunk);
  })();
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const res = await fetch(`${base}/healthz`);
      await res.body?.cancel();
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`main.ts did not start:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    base,
    log: () => log,
    stop: async () => {
      child.kill("SIGTERM");
      await child.status;
      await reading;
    },
  };
}

/** The app's side on loopback: its redirect URI and its client ID metadata document. */
function startClientSite() {
  const callbacks: URLSearchParams[] = [];
  const waiters: (() => void)[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const url = new URL(req.url);
    if (url.pathname === "/client.json") {
      return Response.json({
        client_id: url.href,
        client_name: "Document Client",
        redirect_uris: [`${url.origin}/callback`],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
      }, { headers: { "Cache-Control": "max-age=300" } });
    }
    if (url.pathname === "/callback") {
      callbacks.push(url.searchParams);
      waiters.splice(0).forEach((wake) => wake());
      return new Response("<!doctype html><title>Done</title><p>You can close this tab.</p>", {
        headers: { "Content-Type": "text/html" },
      });
    }
    return new Response("not found", { status: 404 });
  });
  const origin = `http://127.0.0.1:${server.addr.port}`;
  return {
    origin,
    callbacks,
    async nextCallback(count: number): Promise<URLSearchParams> {
      while (callbacks.length <= count) await new Promise<void>((r) => waiters.push(r));
      return callbacks[count];
    },
    close: () => server.shutdown(),
  };
}

/** An in-memory OAuthClientProvider, as an AI client keeps one per server. */
class MemoryProvider implements OAuthClientProvider {
  authorizationUrl?: URL;
  saved: OAuthTokens[] = [];
  private info?: OAuthClientInformationMixed;
  private verifier = "";
  private discovery?: OAuthDiscoveryState;

  constructor(
    readonly origin: string,
    readonly name: string,
    document?: { url: string; issuer: string },
  ) {
    // The client known by its metadata document: its client_id is the document's URL. (The
    // SDK itself sends a clientMetadataUrl only over https; the loopback document is http.)
    if (document) this.info = { client_id: document.url, issuer: document.issuer };
  }
  get redirectUrl() {
    return `${this.origin}/callback`;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  state() {
    return "opaque-state-42";
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved.at(-1);
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved.push(tokens);
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery") {
    if (scope === "all" || scope === "tokens") this.saved = [];
  }
}

async function signInFlow(
  options: {
    db: TestDb;
    server: Awaited<ReturnType<typeof startServer>>;
    site: ReturnType<typeof startClientSite>;
    provider: MemoryProvider;
    email: string;
    clientName: string;
    shots: string;
  },
) {
  const { db, server, site, provider, email, clientName } = options;
  const mcpUrl = new URL(`${server.base}/mcp/`);
  const connect = async () => {
    const client = new Client({ name: "oauth-e2e", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
    return client;
  };

  // Discovery from the 401, then the redirect to the authorization endpoint.
  await assert.rejects(connect(), (e) => e instanceof UnauthorizedError);
  const authorizationUrl = provider.authorizationUrl!;
  assert.ok(authorizationUrl, "the SDK asked to open the authorization URL");
  assert.equal(
    authorizationUrl.origin + authorizationUrl.pathname,
    `${server.base}/oauth/authorize`,
  );
  assert.equal(authorizationUrl.searchParams.get("resource"), `${server.base}/mcp/`);
  assert.equal(authorizationUrl.searchParams.get("code_challenge_method"), "S256");

  const browser = await launchChromium({ viewport: { width: 1000, height: 900 } });
  const page = browser.context.pages()[0] ?? await browser.context.newPage();
  const shot = (name: string) =>
    page.screenshot({
      path: new URL(`${options.shots}-${name}`, ARTIFACTS).pathname,
      fullPage: true,
    });
  try {
    await page.goto(authorizationUrl.href);
    await page.waitForSelector(`text=Sign in to connect ${clientName}`);
    await shot("1-sign-in.png");
    const logged = server.log().length;
    await page.fill("#signin-email", email);
    await page.click("form[action='/account/signup'] button");
    await page.waitForSelector("text=Check your inbox");
    // The magic link, from the server's log (the log mailer: no SMTP_URL).
    let link: string | undefined;
    for (let i = 0; i < 100 && !link; i++) {
      link = /http:\/\/127\.0\.0\.1:\d+\/account\/link\?token=[A-Za-z0-9_-]{43}/.exec(
        server.log().slice(logged),
      )?.[0];
      if (!link) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(link, `a sign-in link in the log:\n${server.log()}`);
    await page.goto(link);
    await page.click("button[type=submit]");
    // Back at the consent page after the link.
    await page.waitForSelector(`text=Connect ${clientName}?`);
    const consent = await page.locator("main, body").first().textContent() ?? "";
    assert.match(consent, /read the catalogue and your usage/);
    assert.match(consent, /127\.0\.0\.1:\d+/);
    await shot("2-consent.png");
    const before = site.callbacks.length;
    await page.click("button[value=approve]");
    const callback = await site.nextCallback(before);
    assert.equal(callback.get("state"), "opaque-state-42");
    assert.equal(callback.get("iss"), server.base);
    assert.ok(callback.get("code"));

    // Token, then tools/list and a charged tools/call.
    const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
    await transport.finishAuth(callback);
    assert.equal(provider.saved.length, 1);
    const client = await connect();
    assert.ok((await client.listTools()).tools.some((tool) => tool.name === "get_overview"));
    const [account] = await db.sql<{ id: number }[]>`
      select id from accounts where lower(email) = lower(${email})`;
    const used = await usedOf(db.sql, account.id);
    const result = await client.callTool({ name: "get_overview", arguments: {} });
    assert.notEqual(result.isError, true);
    assert.equal(await usedOf(db.sql, account.id), used + 1);

    // The access token expires: the SDK refreshes (rotation) and goes on.
    await db.sql`update oauth_tokens set expires_at = now() - interval '1 second'
      where kind = 'access'`;
    const first = provider.saved.at(-1)!;
    assert.ok((await client.listTools()).tools.length > 0);
    const second = provider.saved.at(-1)!;
    assert.notEqual(second.access_token, first.access_token);
    assert.notEqual(second.refresh_token, first.refresh_token);
    await client.close();

    // Revoke on the dashboard, then 401.
    await page.goto(`${server.base}/account`);
    await page.waitForSelector("text=Connected apps");
    await page.click(`button[aria-label="Revoke ${clientName}"]`);
    await page.waitForSelector("text=The app is disconnected");
    await shot("3-revoked.png");
    const raw = await fetch(mcpUrl, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${second.access_token}`,
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    assert.equal(raw.status, 401);
    assert.match(raw.headers.get("www-authenticate") ?? "", /error="invalid_token"/);
    await raw.body?.cancel();
    // The SDK client finds its refresh token dead too and has to ask the person again.
    provider.authorizationUrl = undefined;
    await assert.rejects(connect(), (e) => e instanceof UnauthorizedError);
    assert.ok(provider.authorizationUrl, "a new authorization is started");
  } finally {
    await browser.close();
  }
}

Deno.test({
  name: "OAuth end to end: the SDK client signs in (metadata document, then registration)",
  ignore: !hasChromium,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: (t) =>
    withTestDb(ENGINES[0], async (db) => {
      await Deno.mkdir(ARTIFACTS, { recursive: true });
      await loadFixture(db.sql);
      const server = await startServer(db);
      const site = startClientSite();
      try {
        await t.step("a client ID metadata document served on loopback", async () => {
          const documentUrl = `${site.origin}/client.json`;
          await signInFlow({
            db,
            server,
            site,
            provider: new MemoryProvider(site.origin, "ignored", {
              url: documentUrl,
              issuer: server.base,
            }),
            email: "cimd@example.com",
            clientName: "Document Client",
            shots: "oauth-cimd",
          });
          const [client] = await db.sql<{ kind: string }[]>`
            select kind from oauth_clients where client_id = ${documentUrl}`;
          assert.equal(client.kind, "document");
        });
        await t.step("dynamic client registration", async () => {
          await signInFlow({
            db,
            server,
            site,
            provider: new MemoryProvider(site.origin, "Registered Client"),
            email: "dcr@example.com",
            clientName: "Registered Client",
            shots: "oauth-dcr",
          });
          const [client] = await db.sql<{ n: number }[]>`
            select count(*)::int as n from oauth_clients where kind = 'registered'`;
          assert.equal(client.n, 1);
        });
      } finally {
        await site.close();
        await server.stop();
      }
    }),
});
