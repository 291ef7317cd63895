import assert from "node:assert/strict";
import { HtmlValidate } from "html-validate";
import { findAccountByEmail } from "../../src/accounts/accounts.ts";
import { createWatchService } from "../../src/watches/service.ts";
import { dbTest, type TestDb } from "../helpers/db.ts";
import { Browser, csrfIn, signUp, webTestApp } from "../helpers/web.ts";

function app(db: TestDb) {
  const base = "http://localhost:8000";
  // Webhooks to a test host resolved to a public address, so the SSRF guard lets them through.
  const watches = createWatchService(db.sql, {
    publicBaseUrl: base,
    urlPolicy: { resolve: () => Promise.resolve(["93.184.216.34"]) },
  });
  return webTestApp(db, { base, web: { watches } });
}

async function watchIds(db: TestDb, email: string): Promise<{ id: number; paused: boolean }[]> {
  const account = await findAccountByEmail(db.sql, email);
  return [
    ...await db.sql<{ id: number; paused: boolean }[]>`
    select id, paused from watches where account_id = ${account!.id} order by id`,
  ];
}

const validator = new HtmlValidate({ extends: ["html-validate:recommended"] });
async function problems(page: string): Promise<string[]> {
  const report = await validator.validateString(page);
  return report.results.flatMap((r) =>
    r.messages.map((m) => `${m.line}:${m.column} ${m.ruleId} ${m.message}`)
  );
}

function codeIn(page: string, id: string): string | undefined {
  return new RegExp(`<code class="key" id="${id}">([^<]+)</code>`).exec(page)?.[1];
}

dbTest("dashboard watches: create, edit, secret once, pause, rotate, delete", async (db, t) => {
  const web = app(db);
  const ada = new Browser(web);
  const eve = new Browser(web, "192.0.2.7");
  await signUp(ada, "ada@example.com");
  await signUp(eve, "eve@example.com");
  await db.sql`update accounts set plan = 'pro' where email = 'ada@example.com'`;
  const fields = {
    name: "Invoices",
    q: "invoice",
    min_score: "60",
    sort: "newest",
    online_only: "on",
    feed: "on",
    webhook_url: "https://hooks.example.com/in",
  };
  let id = 0;

  await t.step("the dashboard has a Watches section with a create form", async () => {
    const { response, text } = await ada.get("/account");
    assert.equal(response.status, 200);
    assert.match(text, /<h2 id="watches-title">Watches<\/h2>/);
    assert.match(text, /You have no watches yet/);
    assert.match(text, /action="\/account\/watches"/);
    assert.doesNotMatch(text, /<script(?![^>]*src="\/assets\/)/);
  });

  await t.step("a create without or with a wrong CSRF token is refused", async () => {
    const missing = await ada.post("/account/watches", fields);
    assert.equal(missing.response.status, 403);
    const wrong = await ada.post("/account/watches", { ...fields, csrf: "x".repeat(43) });
    assert.equal(wrong.response.status, 403);
    const { text } = await ada.get("/account");
    const cross = await ada.post("/account/watches", { ...fields, csrf: csrfIn(text) }, {
      "Sec-Fetch-Site": "cross-site",
    });
    assert.equal(cross.response.status, 403);
    assert.deepEqual(await watchIds(db, "ada@example.com"), []);
  });

  await t.step("a bad query answers 422 with the problems next to their fields", async () => {
    const { text } = await ada.get("/account");
    const bad = await ada.post("/account/watches", {
      ...fields,
      min_score: "500",
      csrf: csrfIn(text),
    });
    assert.equal(bad.response.status, 422);
    assert.match(bad.text, /id="watch-min_score-error"/);
    assert.match(bad.text, /aria-invalid="true" aria-describedby="watch-min_score-error"/);
    assert.match(bad.text, /value="Invoices"/);
    assert.deepEqual(await problems(bad.text), []);
    const relevance = await ada.post("/account/watches", {
      ...fields,
      q: "",
      sort: "relevance",
      csrf: csrfIn(text),
    });
    assert.equal(relevance.response.status, 422);
    assert.match(relevance.text, /id="watch-sort-error"/);
    const metadata = await ada.post("/account/watches", {
      ...fields,
      webhook_url: "http://169.254.169.254/latest",
      csrf: csrfIn(text),
    });
    assert.equal(metadata.response.status, 422);
    assert.match(metadata.text, /id="watch-webhook_url-error"/);
    const noDelivery = await ada.post("/account/watches", {
      name: "None",
      csrf: csrfIn(text),
    });
    assert.equal(noDelivery.response.status, 422);
    assert.match(noDelivery.text, /id="watch-deliveries-error"[^>]*>must turn on at least one/);
    assert.deepEqual(await watchIds(db, "ada@example.com"), []);
  });

  await t.step("the form creates a watch and shows its secret and feed URL once", async () => {
    const { text } = await ada.get("/account");
    const made = await ada.post("/account/watches", { ...fields, csrf: csrfIn(text) });
    assert.equal(made.response.status, 200);
    const secret = codeIn(made.text, "watch-secret");
    const feed = codeIn(made.text, "watch-feed-url");
    assert.match(secret ?? "", /^whsec_/);
    assert.match(feed ?? "", /^http:\/\/localhost:8000\/feeds\/watch\?token=oi_feed_/);
    assert.deepEqual(await problems(made.text), []);
    const rows = await watchIds(db, "ada@example.com");
    assert.equal(rows.length, 1);
    id = rows[0].id;
    const [stored] = await db.sql`select query from watches where id = ${id}`;
    assert.equal(stored.query.q, "invoice");
    assert.equal(stored.query.min_score, 60);
    assert.equal(stored.query.online_only, true);
    const again = await ada.get("/account");
    assert.equal(codeIn(again.text, "watch-secret"), undefined);
    assert.ok(!again.text.includes(secret!));
    assert.ok(!again.text.includes(new URL(feed!).searchParams.get("token")!));
    assert.match(again.text, /<h3>Invoices<\/h3>/);
    assert.match(again.text, /Query: &quot;invoice&quot;, score ≥ 60, online only/);
    assert.match(again.text, /Webhook to <code>https:\/\/hooks.example.com\/in<\/code>/);
    assert.match(again.text, /No delivery attempts yet/);
  });

  await t.step("the last delivery attempts are listed with code, time and error", async () => {
    await db.sql`
      insert into watch_attempts (watch_id, kind, attempt, attempted_at, ok,
        status_code, error, duration_ms)
      values (${id}, 'webhook', 1, now(), false, 503, 'HTTP 503 from receiver', 12)`;
    const { text } = await ada.get("/account");
    assert.match(
      text,
      /<td><time datetime="[^"]+">\d{4}-\d\d-\d\d \d\d:\d\d UTC<\/time><\/td>\s*<td>webhook<\/td>\s*<td>failed<\/td>\s*<td>503<\/td>\s*<td>HTTP 503 from receiver/,
    );
    assert.deepEqual(await problems(text), []);
  });

  await t.step("pause and resume need the CSRF token and change the watch", async () => {
    const refused = await ada.post("/account/watches/pause", { id: String(id) });
    assert.equal(refused.response.status, 403);
    assert.equal((await watchIds(db, "ada@example.com"))[0].paused, false);
    const { text } = await ada.get("/account");
    const paused = await ada.post("/account/watches/pause", {
      id: String(id),
      csrf: csrfIn(text),
    });
    assert.equal(paused.response.status, 303);
    assert.equal((await watchIds(db, "ada@example.com"))[0].paused, true);
    const page = await ada.get(paused.response.headers.get("location")!);
    assert.match(page.text, /The watch is paused/);
    assert.match(page.text, /Invoices\s*<span class="muted">\(paused\)/);
    const resumed = await ada.post("/account/watches/resume", {
      id: String(id),
      csrf: csrfIn(text),
    });
    assert.equal(resumed.response.status, 303);
    assert.equal((await watchIds(db, "ada@example.com"))[0].paused, false);
  });

  await t.step("rotating the secret shows a new one once", async () => {
    const [before] = await db.sql`select webhook_secret from watches where id = ${id}`;
    const { text } = await ada.get("/account");
    const rotated = await ada.post("/account/watches/rotate-secret", {
      id: String(id),
      csrf: csrfIn(text),
    });
    assert.equal(rotated.response.status, 200);
    const secret = codeIn(rotated.text, "watch-secret");
    const [after] = await db.sql`select webhook_secret from watches where id = ${id}`;
    assert.equal(secret, after.webhook_secret);
    assert.notEqual(after.webhook_secret, before.webhook_secret);
    const feed = await ada.post("/account/watches/rotate-feed", {
      id: String(id),
      csrf: csrfIn(text),
    });
    assert.equal(feed.response.status, 200);
    assert.match(codeIn(feed.text, "watch-feed-url") ?? "", /token=oi_feed_/);
  });

  await t.step("the edit form holds the watch's fields and saves them, with CSRF", async () => {
    const { text } = await ada.get("/account");
    const form = new RegExp(
      `<form method="post" action="/account/watches/edit" id="watch-${id}-form">[\\s\\S]*?</form>`,
    )
      .exec(text)?.[0] ?? "";
    assert.match(form, new RegExp(`name="id" value="${id}"`));
    assert.match(form, /name="name" value="Invoices"/);
    assert.match(form, /name="q" value="invoice"/);
    assert.match(form, /name="min_score" value="60"/);
    assert.match(form, /name="webhook_url" value="https:\/\/hooks.example.com\/in"/);
    assert.match(form, /name="online_only"\s+checked/);
    assert.match(form, /name="feed"\s+checked/);
    assert.doesNotMatch(form, /name="email"\s+checked/);
    assert.deepEqual(await problems(text), []);
    const edited = {
      id: String(id),
      name: "Invoice reminders",
      q: "invoice reminder",
      min_score: "75",
      platform: "reddit",
      theme: "invoice-chasing",
      feed: "on",
      email: "on",
      webhook_url: "https://hooks.example.com/in",
    };
    const [before] = await db.sql`select * from watches where id = ${id}`;
    const refused = await ada.post("/account/watches/edit", edited);
    assert.equal(refused.response.status, 403);
    const [unchanged] = await db.sql`select * from watches where id = ${id}`;
    assert.deepEqual(unchanged, before);
    const saved = await ada.post("/account/watches/edit", { ...edited, csrf: csrfIn(text) });
    assert.equal(saved.response.status, 303);
    assert.equal(saved.response.headers.get("location"), `/account?done=watch-saved#watch-${id}`);
    const [after] = await db.sql`
      select name, query, q, min_score, platform, online_only, email, webhook_secret,
        feed_token_hash from watches where id = ${id}`;
    assert.equal(after.name, "Invoice reminders");
    assert.deepEqual(after.query, {
      q: "invoice reminder",
      platform: "reddit",
      theme: "invoice-chasing",
      min_score: 75,
      online_only: false,
    });
    assert.equal(after.q, "invoice reminder");
    assert.equal(after.min_score, 75);
    assert.equal(after.online_only, false);
    assert.equal(after.email, true);
    assert.equal(after.webhook_secret, before.webhook_secret, "the secret is kept");
    assert.equal(after.feed_token_hash, before.feed_token_hash, "the feed URL is kept");
    const page = await ada.get(saved.response.headers.get("location")!);
    assert.match(page.text, /The watch is saved/);
    assert.match(page.text, /<h3>Invoice reminders<\/h3>/);
    assert.match(
      page.text,
      /Query: &quot;invoice reminder&quot;, platform reddit, theme invoice-chasing, score ≥ 75\./,
    );
    // The edit form holds the theme, so that saving it again keeps it.
    assert.match(page.text, /name="theme" value="invoice-chasing"/);
  });

  await t.step(
    "an edit with bad fields answers 422 next to them and writes nothing",
    async () => {
      const [before] = await db.sql`select * from watches where id = ${id}`;
      const { text } = await ada.get("/account");
      const base = { id: String(id), name: "X", feed: "on", csrf: csrfIn(text) };
      const cases: [Record<string, string>, string][] = [
        [{ min_score: "500" }, "min_score"],
        [{ theme: "Invoice chasing" }, "theme"],
        [{ name: " " }, "name"],
        [{ sort: "relevance" }, "sort"],
        [{ webhook_url: "https://169.254.169.254/latest" }, "webhook_url"],
        [{ feed: "" }, "deliveries"],
      ];
      for (const [change, field] of cases) {
        const bad = await ada.post("/account/watches/edit", { ...base, ...change });
        assert.equal(bad.response.status, 422, field);
        assert.match(bad.text, new RegExp(`id="watch-${id}-${field}-error"`), field);
        assert.match(
          bad.text,
          /<details class="edit"\s+open\s*>/,
          "the refused form is unfolded",
        );
        assert.match(bad.text, /The watch was not saved/);
        assert.deepEqual(await problems(bad.text), [], field);
      }
      const [after] = await db.sql`select * from watches where id = ${id}`;
      assert.deepEqual(after, before);
    },
  );

  await t.step("turning the feed on in an edit shows its new URL once", async () => {
    const { text } = await ada.get("/account");
    const noFeed = {
      id: String(id),
      name: "Invoice reminders",
      email: "on",
      webhook_url: "https://hooks.example.com/in",
      csrf: csrfIn(text),
    };
    const off = await ada.post("/account/watches/edit", noFeed);
    assert.equal(off.response.status, 303);
    const on = await ada.post("/account/watches/edit", { ...noFeed, feed: "on" });
    assert.equal(on.response.status, 200);
    assert.match(codeIn(on.text, "watch-feed-url") ?? "", /token=oi_feed_/);
  });

  await t.step("another account cannot pause, rotate, delete or edit the watch", async () => {
    const [before] = await db
      .sql`select name, webhook_secret, paused from watches where id = ${id}`;
    const { text } = await eve.get("/account");
    for (const action of ["pause", "rotate-secret", "rotate-feed", "delete", "edit"]) {
      const tried = await eve.post(`/account/watches/${action}`, {
        id: String(id),
        csrf: csrfIn(text),
        ...(action === "edit" ? { name: "Mine now", feed: "on" } : {}),
      });
      assert.equal(tried.response.status, 404, action);
      assert.match(tried.text, /That watch is not one of yours/);
      assert.equal(codeIn(tried.text, "watch-secret"), undefined);
    }
    const [after] = await db
      .sql`select name, webhook_secret, paused from watches where id = ${id}`;
    assert.deepEqual(after, before);
    // Ada's CSRF token is not Eve's.
    const adaPage = await ada.get("/account");
    const forged = await eve.post("/account/watches/delete", {
      id: String(id),
      csrf: csrfIn(adaPage.text),
    });
    assert.equal(forged.response.status, 403);
    assert.equal((await watchIds(db, "ada@example.com")).length, 1);
  });

  await t.step("delete removes the watch", async () => {
    const { text } = await ada.get("/account");
    const missing = await ada.post("/account/watches/delete", { id: String(id) });
    assert.equal(missing.response.status, 403);
    const gone = await ada.post("/account/watches/delete", {
      id: String(id),
      csrf: csrfIn(text),
    });
    assert.equal(gone.response.status, 303);
    assert.deepEqual(await watchIds(db, "ada@example.com"), []);
    assert.equal(gone.response.headers.get("location"), "/account?done=watch-deleted#watches");
    const page = await ada.get(gone.response.headers.get("location")!);
    assert.match(page.text, /The watch is deleted/);
    assert.match(page.text, /You have no watches yet/);
  });

  await t.step("plan limits are readable: Free has no webhook and one watch", async () => {
    const { text } = await eve.get("/account");
    const hook = await eve.post("/account/watches", { ...fields, csrf: csrfIn(text) });
    assert.equal(hook.response.status, 403);
    assert.match(hook.text, /id="watch-form-error"[^>]*>[^<]*Webhook delivery needs the Pro plan/);
    const { webhook_url: _, ...noHook } = fields;
    const first = await eve.post("/account/watches", { ...noHook, csrf: csrfIn(text) });
    assert.equal(first.response.status, 200);
    const second = await eve.post("/account/watches", { ...noHook, csrf: csrfIn(text) });
    assert.equal(second.response.status, 403);
    assert.match(second.text, /The free plan keeps at most 1 watch/);
    assert.equal((await watchIds(db, "eve@example.com")).length, 1);
  });
});
