/**
 * The SMTP mailer gives up on a silent server within its time limit (src/platform/mailer.ts), so
 * that a delivery job's attempt ends long before its lease does.
 */
import assert from "node:assert/strict";
import { smtpMailer } from "../../src/platform/mailer.ts";

Deno.test("an SMTP server that never greets fails the send within the time limit", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const conn of listener) held.push(conn); // accepted, never answered
  })();
  try {
    const mailer = smtpMailer(`smtp://127.0.0.1:${listener.addr.port}`, undefined, 300);
    const started = performance.now();
    await assert.rejects(
      mailer.send({ to: "someone@example.com", subject: "s", text: "t" }),
      /greeting|timeout/i,
    );
    // Far below nodemailer's 30 s default for the greeting.
    assert.ok(performance.now() - started < 10_000);
  } finally {
    listener.close();
    for (const conn of held) conn.close();
    await accepting.catch(() => {});
  }
});
