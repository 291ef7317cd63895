/**
 * The 80% and 100% usage e-mails: sent once each a month through the SMTP mailer to a
 * local smtp-server sink, never for an unverified address or an account that turned them off
 * on the dashboard, and tried again after a failed send.
 */
import assert from "node:assert/strict";
import { SMTPServer } from "smtp-server";
import { dbTest } from "../helpers/db.ts";
import { makeKey, setUsed, testApp } from "../helpers/app.ts";
import { Browser, csrfIn, webTestApp } from "../helpers/web.ts";
import { createMailer } from "../../src/platform/mailer.ts";
import { createUsageMail } from "../../src/metering/usage_mail.ts";
import { storeToken } from "../../src/accounts/sessions.ts";
import { hashToken, randomToken } from "../../src/web/security.ts";
import { createAccount } from "../../src/accounts/accounts.ts";
import { periodOf } from "../../src/platform/plans.ts";

/** A local SMTP sink keeping every raw message. */
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
        messages.push(text.replace(/=\r?\n/g, ""));
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

function subjectOf(raw: string): string {
  return /^Subject: (.*)$/m.exec(raw)?.[1] ?? "";
}

dbTest("usage e-mails: 80% and 100% once each a month, over SMTP", async (db, t) => {
  const sink = await smtpSink();
  const app = testApp(db);
  const notifier = createUsageMail({
    sql: db.sql,
    mailer: createMailer({ smtpUrl: sink.url, from: "Oppintel <no-reply@oppintel.test>" }),
    publicBaseUrl: "https://oppintel.example",
  });
  try {
    const { key, accountId, email } = await makeKey(db.sql, "free");
    await t.step("below 80% nothing is sent", async () => {
      await setUsed(db.sql, accountId, 15);
      assert.equal(await notifier.runOnce(), 0);
    });
    await t.step("the call that reaches 80% leads to one mail, and only one", async () => {
      assert.equal((await app.get("/api/v1/overview", key)).status, 200); // 16 of 20
      assert.equal(await notifier.runOnce(), 1);
      assert.equal(await notifier.runOnce(), 0);
      assert.equal((await app.get("/api/v1/overview", key)).status, 200); // 17 of 20
      assert.equal(await notifier.runOnce(), 0, "80% is told once a month");
      assert.equal(sink.messages.length, 1);
      const [mail] = sink.messages;
      assert.match(mail, new RegExp(`^To: ${email}`, "mi"));
      assert.equal(subjectOf(mail), "You have used 80% of this month's API calls");
      assert.match(mail, /used 16 of its 20 calls/);
      assert.match(mail, /https:\/\/oppintel.example\/account/);
      assert.match(mail, /Stop usage e-mails/);
    });
    await t.step("at 100% one more mail, once", async () => {
      await setUsed(db.sql, accountId, 20);
      assert.equal(await notifier.runOnce(), 1);
      assert.equal(await notifier.runOnce(), 0);
      assert.equal(sink.messages.length, 2);
      assert.equal(subjectOf(sink.messages[1]), "You have used all of this month's API calls");
    });
    await t.step("next month the notices start over", async () => {
      const next = new Date();
      next.setUTCMonth(next.getUTCMonth() + 1, 1);
      await db.sql`
        insert into usage_counters (account_id, period, used)
        values (${accountId}, ${periodOf(next)}, 17)`;
      assert.equal(await notifier.runOnce(next), 1);
      assert.equal(await notifier.runOnce(next), 0);
      assert.equal(subjectOf(sink.messages[2]), "You have used 80% of this month's API calls");
    });
    await t.step("a jump past both thresholds sends one mail, the 100% one", async () => {
      const jumper = await makeKey(db.sql, "free");
      await setUsed(db.sql, jumper.accountId, 20);
      assert.equal(await notifier.runOnce(), 1);
      assert.equal(await notifier.runOnce(), 0);
      assert.equal(subjectOf(sink.messages.at(-1)!), "You have used all of this month's API calls");
    });
    await t.step("an unverified address gets nothing", async () => {
      const account = await createAccount(db.sql, { email: "new@example.com", plan: "free" });
      await setUsed(db.sql, account.id, 20);
      const before = sink.messages.length;
      assert.equal(await notifier.runOnce(), 0);
      assert.equal(sink.messages.length, before);
    });
    await t.step("a failed send is tried again at the next run", async () => {
      const failing = createUsageMail({
        sql: db.sql,
        mailer: { send: () => Promise.reject(new Error("SMTP down")) },
        publicBaseUrl: "https://oppintel.example",
        log: () => {},
      });
      const late = await makeKey(db.sql, "free");
      await setUsed(db.sql, late.accountId, 16);
      assert.equal(await failing.runOnce(), 0);
      assert.equal(await notifier.runOnce(), 1, "the claim was released");
    });
  } finally {
    await sink.close();
  }
});

dbTest("usage e-mails: the dashboard turns them off and on", async (db, t) => {
  const app = webTestApp(db);
  const sent: string[] = [];
  const notifier = createUsageMail({
    sql: db.sql,
    mailer: { send: (m) => (sent.push(m.subject), Promise.resolve()) },
    publicBaseUrl: app.base,
  });
  const { accountId } = await makeKey(db.sql, "free");
  const browser = new Browser(app);
  const token = randomToken();
  await storeToken(db.sql, {
    hash: await hashToken(token),
    accountId,
    purpose: "signin",
    ttlSeconds: 600,
  });
  const link = await browser.get(`/account/link?token=${token}`);
  await browser.post("/account/link", { token, csrf: csrfIn(link.text) });

  await t.step("the dashboard offers to stop them; stopping them is kept", async () => {
    const page = await browser.get("/account");
    assert.match(page.text, /Stop usage e-mails/);
    const off = await browser.post("/account/usage-emails", {
      emails: "off",
      csrf: csrfIn(page.text),
    });
    assert.equal(off.response.status, 303);
    const after = await browser.get("/account");
    assert.match(after.text, /Usage e-mails are off/);
    assert.match(after.text, /Send me usage e-mails/);
  });
  await t.step("with them off, nothing is sent at 80% or 100%", async () => {
    await setUsed(db.sql, accountId, 20);
    assert.equal(await notifier.runOnce(), 0);
    assert.deepEqual(sent, []);
  });
  await t.step("without a valid CSRF token the setting does not change", async () => {
    const refused = await browser.post("/account/usage-emails", { emails: "on", csrf: "x" });
    assert.equal(refused.response.status, 403);
    assert.equal(await notifier.runOnce(), 0);
  });
  await t.step("turned on again, the due notice goes out", async () => {
    const page = await browser.get("/account");
    await browser.post("/account/usage-emails", { emails: "on", csrf: csrfIn(page.text) });
    assert.equal(await notifier.runOnce(), 1);
    assert.deepEqual(sent, ["You have used all of this month's API calls"]);
  });
});

dbTest(
  "usage e-mails: poke starts a run without waiting for it, at most once an interval",
  async (db) => {
    const sent: string[] = [];
    const notifier = createUsageMail({
      sql: db.sql,
      mailer: { send: (m) => (sent.push(m.to), Promise.resolve()) },
      publicBaseUrl: "https://oppintel.example",
      intervalMs: 60_000,
    });
    const first = await makeKey(db.sql, "free");
    await setUsed(db.sql, first.accountId, 20);
    notifier.poke();
    assert.deepEqual(sent, [], "poke returns before the run has sent anything");
    await notifier.idle();
    assert.deepEqual(sent, [first.email]);
    const second = await makeKey(db.sql, "free");
    await setUsed(db.sql, second.accountId, 20);
    notifier.poke();
    await notifier.idle();
    assert.deepEqual(sent, [first.email], "no second run within the interval");
    assert.equal(await notifier.runOnce(), 1);
  },
);
