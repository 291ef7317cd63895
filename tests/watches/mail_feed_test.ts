/**
 * E-mail digests received by a real SMTP server (smtp-server), one per import, with a
 * List-Unsubscribe header and a link that works without a session, which turns e-mail off only
 * (a watch left with no delivery is paused until one is turned on again); the private Atom feed
 * is well-formed XML, newest matches first, and a wrong token answers 404.
 */
import assert from "node:assert/strict";
import { SMTPServer } from "smtp-server";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { dbTest, type TestDb } from "../helpers/db.ts";
import { loadFixture, makeKey, type TestApp, testApp } from "../helpers/app.ts";
import { createMailer } from "../../src/platform/mailer.ts";
import { importLines } from "../../src/ingest/import.ts";
import { createDeliveryWorker } from "../../src/watches/worker.ts";
import { opportunityLine, sendJson } from "../helpers/watches.ts";

async function smtpSink() {
  const messages: string[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, _session, callback) {
      let text = "";
      stream.on("data", (chunk: Uint8Array) => text += new TextDecoder().decode(chunk));
      stream.on("end", () => {
        messages.push(text.replace(/=\r?\n/g, "").replace(/=3D/g, "="));
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
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

dbTest("E-mail digest over SMTP, one per import, unsubscribed without a session", async (db) => {
  const sink = await smtpSink();
  try {
    await loadFixture(db.sql);
    const app = testApp(db);
    const { key, email } = await makeKey(db.sql, "free");
    const created = await sendJson(app, "POST", "/api/v1/watches", key, {
      name: "Mail me",
      query: { q: "scheduling" },
      deliveries: { email: true },
    });
    assert.equal(created.status, 201);
    const worker = createDeliveryWorker({
      sql: db.sql,
      mailer: createMailer({ smtpUrl: sink.url, from: "Oppintel <no-reply@oppintel.test>" }),
      publicBaseUrl: "https://oppintel.example",
    });
    await importLines(db.sql, [
      opportunityLine("m1", { title: "Scheduling assistant for clinics", score: 77 }),
      opportunityLine("m2", { title: "Scheduling bot for barbers", score: 55 }),
      opportunityLine("m3", { title: "Unrelated idea", score: 90 }),
    ]);
    assert.equal((await worker.runOnce()).delivered, 1);
    assert.equal(sink.messages.length, 1, "one digest for one import");
    const [mail] = sink.messages;
    assert.match(mail, new RegExp(`^To: ${email}`, "mi"));
    assert.match(mail, /Subject: =\?UTF-8\?Q\?2_new_opportunities_for_=22Mail_me=22/);
    assert.match(mail, /Scheduling assistant for clinics \(score 77, Build\)/);
    assert.ok(mail.indexOf("clinics") < mail.indexOf("barbers"), "best score first");
    assert.doesNotMatch(mail, /Unrelated idea/);
    const [clinics] = await db.sql`select id, slug from opportunities where external_id = 'm1'`;
    assert.ok(
      mail.includes(`https://oppintel.example/opportunities/${clinics.id}/${clinics.slug}`),
      "each match links to its public page",
    );
    const header = /^List-Unsubscribe:\s*<([^>]+)>/mi.exec(mail); // folded by the mailer
    assert.ok(header, "List-Unsubscribe header");
    assert.match(mail, /^List-Unsubscribe-Post: List-Unsubscribe=One-Click/mi);
    const link = header[1];
    assert.ok(mail.includes(link), "the link is in the text too");

    // No session: a plain GET shows a button, and the one-click POST unsubscribes.
    const path = link.replace("https://oppintel.example", "http://oppintel.test");
    const page = await app.handler(new Request(path));
    assert.equal(page.status, 200);
    assert.match(await page.text(), /Stop these e-mails/);
    const post = await app.handler(
      new Request(path, { method: "POST", body: "List-Unsubscribe=One-Click" }),
    );
    assert.equal(post.status, 200);
    const answer = await post.text();
    assert.match(answer, /Unsubscribed/);
    assert.match(answer, /no other delivery, so it is paused/);
    const [watch] = await db.sql`select email, paused from watches`;
    assert.equal(watch.email, false);
    assert.equal(watch.paused, true, "a watch left with no delivery is paused");
    await importLines(db.sql, [opportunityLine("m4", { title: "Scheduling again", score: 60 })]);
    await worker.runOnce();
    assert.equal(sink.messages.length, 1, "no digest after unsubscribing");
    const [{ batches }] = await db.sql`select count(*)::int as batches from watch_batches`;
    assert.equal(batches, 1, "a paused watch records no matches");
    const bad = await app.handler(
      new Request("http://oppintel.test/watches/unsubscribe?token=nope"),
    );
    assert.equal(bad.status, 404);
  } finally {
    await sink.close();
  }
});

dbTest("The Atom feed is valid XML, newest matches first; a wrong token is 404", async (db) => {
  await loadFixture(db.sql);
  const app = testApp(db);
  const { key } = await makeKey(db.sql, "pro");
  const created = await (await sendJson(app, "POST", "/api/v1/watches", key, {
    name: "Feed <&> me",
    deliveries: { feed: true },
  })).json();
  await importLines(db.sql, [opportunityLine("f1", { title: "First & <early> idea", score: 50 })]);
  await db.sql`update watch_batches set matched_at = matched_at - interval '1 hour'`;
  await importLines(db.sql, [opportunityLine("f2", { title: "Second idea", score: 40 })]);

  const url = created.feed_url.replace("https://oppintel.example", "http://oppintel.test");
  const res = await app.handler(new Request(url));
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type")!, /^application\/atom\+xml/);
  const text = await res.text();
  assert.equal(XMLValidator.validate(text), true);
  assert.match(text, /First &amp; &lt;early&gt; idea/, "escaped in the document");
  const doc = new XMLParser({ ignoreAttributes: false }).parse(text);
  assert.equal(doc.feed["@_xmlns"], "http://www.w3.org/2005/Atom");
  assert.equal(doc.feed.title, "Opportunity Intelligence watch: Feed <&> me");
  const entries = [doc.feed.entry].flat();
  assert.deepEqual(entries.map((e: { title: string }) => e.title), [
    "Second idea",
    "First & <early> idea",
  ]);
  const [second] = await db.sql`select id, slug from opportunities where external_id = 'f2'`;
  const links = [entries[0].link].flat().map((
    l: Record<string, string>,
  ) => [l["@_type"], l["@_href"]]);
  assert.deepEqual(links[0], [
    "text/html",
    `https://oppintel.example/opportunities/${second.id}/${second.slug}`,
  ]);

  for (const token of ["oi_feed_wrongwrongwrongwrongwrong", "", "x"]) {
    const wrong = await app.handler(
      new Request(`http://oppintel.test/feeds/watch?token=${token}`),
    );
    assert.equal(wrong.status, 404);
  }
  // A rotated token retires the old URL.
  await sendJson(app, "PATCH", `/api/v1/watches/${created.id}`, key, { rotate_feed_token: true });
  assert.equal((await app.handler(new Request(url))).status, 404);
});

/** POSTs the one-click unsubscribe of the watch `id`, as a mail client does. */
async function unsubscribeWatch(app: TestApp, db: TestDb, id: number): Promise<string> {
  const [{ email_token }] = await db.sql`select email_token from watches where id = ${id}`;
  const res = await app.handler(
    new Request(`http://oppintel.test/watches/unsubscribe?token=${email_token}`, {
      method: "POST",
      body: "List-Unsubscribe=One-Click",
    }),
  );
  assert.equal(res.status, 200);
  return await res.text();
}

dbTest("Unsubscribing turns e-mail off only: the watch's feed keeps filling", async (db) => {
  await loadFixture(db.sql);
  const app = testApp(db);
  const { key } = await makeKey(db.sql, "free");
  const made = await (await sendJson(app, "POST", "/api/v1/watches", key, {
    name: "Mail and feed",
    query: { q: "scheduling" },
    deliveries: { email: true, feed: true },
  })).json();
  assert.match(await unsubscribeWatch(app, db, made.id), /Its other deliveries are unchanged/);
  const watch = await (await sendJson(app, "GET", `/api/v1/watches/${made.id}`, key)).json();
  assert.deepEqual(watch.deliveries, { webhook: null, email: false, feed: true });
  assert.equal(watch.paused, false);
  await importLines(db.sql, [opportunityLine("s1", { title: "Scheduling for vets" })]);
  const jobs = await db.sql`select kind from watch_jobs where watch_id = ${made.id}`;
  assert.equal(jobs.length, 0, "no digest queued");
  const feed = await app.handler(
    new Request(made.feed_url.replace("https://oppintel.example", "http://oppintel.test")),
  );
  assert.match(await feed.text(), /Scheduling for vets/, "the feed still fills");
});

dbTest("A watch paused by unsubscribing resumes when a delivery is turned on", async (db) => {
  const app = testApp(db);
  const { key } = await makeKey(db.sql, "free");
  const create = async () =>
    (await (await sendJson(app, "POST", "/api/v1/watches", key, {
      name: "Mail only",
      deliveries: { email: true },
    })).json()).id as number;
  const patch = async (id: number, body: unknown) =>
    await sendJson(app, "PATCH", `/api/v1/watches/${id}`, key, body);
  const state = async (id: number) =>
    (await db.sql`select email, paused from watches where id = ${id}`)[0];

  const id = await create();
  await unsubscribeWatch(app, db, id);
  assert.deepEqual(await state(id), { email: false, paused: true });
  const resume = await patch(id, { paused: false });
  assert.equal(resume.status, 422, "resuming with no delivery is refused");
  assert.deepEqual(await state(id), { email: false, paused: true });
  assert.equal((await patch(id, { deliveries: { email: true }, paused: true })).status, 200);
  assert.deepEqual(await state(id), { email: true, paused: true }, "told to stay paused");
  await db.sql`delete from watches where id = ${id}`;

  const again = await create();
  await unsubscribeWatch(app, db, again);
  const on = await patch(again, { deliveries: { feed: true } });
  assert.equal(on.status, 200);
  assert.equal((await on.json()).paused, false, "a delivery turned on resumes it");
});
