/**
 * The one-click unsubscribe page (src/web/account/watch_pages.ts) and what the dashboard shows after it:
 * a watch it leaves with no delivery is paused, its card says why and how to resume it (not a
 * Resume button that could only be refused), and turning a delivery on in its edit form resumes
 * it.
 */
import assert from "node:assert/strict";
import { HtmlValidate } from "html-validate";
import { createWatchService } from "../../src/watches/service.ts";
import { dbTest } from "../helpers/db.ts";
import { Browser, csrfIn, signUp, webTestApp } from "../helpers/web.ts";

const NOTICE = /Paused: e-mail was\s+unsubscribed<\/strong> and the watch had no other delivery/;

dbTest("an unsubscribed e-mail-only watch is paused, and the dashboard says so", async (db) => {
  const base = "http://localhost:8000";
  const watches = createWatchService(db.sql, { publicBaseUrl: base });
  const web = webTestApp(db, { base, web: { watches } });
  const ada = new Browser(web);
  await signUp(ada, "ada@example.com");
  const landing = await ada.get("/account");
  const made = await ada.post("/account/watches", {
    name: "Mail me",
    email: "on",
    csrf: csrfIn(landing.text),
  });
  assert.equal(made.response.status, 200);
  const [{ id, email_token }] = await db.sql`select id, email_token from watches`;

  // As a mail client does it: no session, the link of the mail.
  const link = `${base}/watches/unsubscribe?token=${email_token}`;
  const ask = await web.handler(new Request(link));
  assert.equal(ask.status, 200);
  assert.match(await ask.text(), /Stop these e-mails/);
  const done = await web.handler(new Request(link, { method: "POST" }));
  assert.equal(done.status, 200);
  assert.match(await done.text(), /no other delivery, so it is paused/);
  const [after] = await db.sql`select email, paused from watches where id = ${id}`;
  assert.deepEqual({ ...after }, { email: false, paused: true });

  const { text } = await ada.get("/account");
  const card = new RegExp(`<article class="watch" id="watch-${id}">[\\s\\S]*?</article>`)
    .exec(text)?.[0] ?? "";
  assert.match(card, /Mail me\s*<span class="muted">\(paused\)/);
  assert.match(card, NOTICE);
  assert.match(card, /turn e-mail or the feed on \(Edit\)/, "Free has no webhooks to offer");
  assert.doesNotMatch(card, /aria-label="Resume watch/, "no Resume that could only fail");
  const validator = new HtmlValidate({ extends: ["html-validate:recommended"] });
  assert.equal((await validator.validateString(text)).valid, true);

  const saved = await ada.post("/account/watches/edit", {
    id: String(id),
    name: "Mail me",
    email: "on",
    csrf: csrfIn(text),
  });
  assert.equal(saved.response.status, 303);
  const [resumed] = await db.sql`select email, paused from watches where id = ${id}`;
  assert.deepEqual({ ...resumed }, { email: true, paused: false });
  const page = await ada.get("/account");
  assert.doesNotMatch(page.text, NOTICE);
  assert.match(page.text, /aria-label="Pause watch Mail me"/);
});
