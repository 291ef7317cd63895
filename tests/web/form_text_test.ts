/** Web form fields refuse control characters with a page that says so, never a 500. */
import assert from "node:assert/strict";
import { findAccountByEmail } from "../../src/accounts/accounts.ts";
import { listApiKeys } from "../../src/accounts/api_keys.ts";
import { dbTest } from "../helpers/db.ts";
import { Browser, csrfIn, linkIn, webTestApp } from "../helpers/web.ts";

const HOSTILE = ["a\u0000b", "esc\u001B[31m", "line\nbreak", "\u0000".repeat(50)];

dbTest("sign-up refuses an e-mail with control characters with a 422 page", async (db) => {
  const app = webTestApp(db);
  const browser = new Browser(app);
  const landing = await browser.get("/account");
  for (const email of HOSTILE.map((h) => `${h}@example.com`)) {
    const { response, text } = await browser.post("/account/signup", {
      email,
      csrf: csrfIn(landing.text),
    });
    assert.equal(response.status, 422, JSON.stringify(email).slice(0, 40));
    assert.match(text, /is not an e-mail/);
  }
  assert.equal(app.outbox.length, 0);
  assert.equal(await findAccountByEmail(db.sql, "ab@example.com"), undefined);
  assert.ok(!app.logs.some((e) => e.level === "error"), JSON.stringify(app.logs));
});

dbTest("a key name with control characters is refused with a 422 page", async (db) => {
  const app = webTestApp(db);
  const browser = new Browser(app);
  const email = "names@example.com";
  const landing = await browser.get("/account");
  await browser.post("/account/signup", { email, csrf: csrfIn(landing.text) });
  const link = linkIn(app.outbox.at(-1));
  const confirm = await browser.get(link);
  await browser.post("/account/link", {
    token: new URL(link).searchParams.get("token")!,
    csrf: csrfIn(confirm.text),
  });
  const before = (await listApiKeys(db.sql, email)).length;
  for (const name of [...HOSTILE, "lone \uD800 surrogate"]) {
    const page = await browser.get("/account");
    const { response, text } = await browser.post("/account/keys", {
      name,
      csrf: csrfIn(page.text),
    });
    // A lone surrogate cannot survive form encoding (it arrives as U+FFFD): that key is made.
    if (name.includes("\uD800")) {
      assert.equal(response.status, 200);
      continue;
    }
    assert.equal(response.status, 422, JSON.stringify(name).slice(0, 40));
    assert.match(text, /A key name must not contain control characters/);
  }
  assert.equal((await listApiKeys(db.sql, email)).length, before + 1);
  assert.ok(!app.logs.some((e) => e.level === "error"), JSON.stringify(app.logs));
});
