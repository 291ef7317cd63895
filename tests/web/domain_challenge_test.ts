/**
 * The domain verification answer of ChatGPT's app directory: OpenAI checks that the submitter
 * controls the domain by reading a token at `/.well-known/openai-apps-challenge`. The operator
 * sets it with OPENAI_APPS_CHALLENGE; without it the path is not found.
 */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { testApp } from "../helpers/app.ts";
import { readConfig } from "../../src/platform/config.ts";

const PATH = "/.well-known/openai-apps-challenge";
const TOKEN = "oaic_3fA9-xY7_kQ2.mP5";

dbTest("GET /.well-known/openai-apps-challenge answers OPENAI_APPS_CHALLENGE", async (db, t) => {
  await t.step("unset: 404", async () => {
    const res = await testApp(db).get(PATH);
    assert.equal(res.status, 404);
    await res.body?.cancel();
  });

  await t.step("set: 200, text/plain, the token alone", async () => {
    const app = testApp(db, { OPENAI_APPS_CHALLENGE: TOKEN });
    const res = await app.get(PATH);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "text/plain; charset=utf-8");
    assert.equal(await res.text(), TOKEN);
    const head = await app.get(PATH, undefined, { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.equal(await head.text(), "");
    const post = await app.get(PATH, undefined, { method: "POST" });
    assert.equal(post.status, 405);
    await post.body?.cancel();
  });

  await t.step("blank counts as unset", async () => {
    const res = await testApp(db, { OPENAI_APPS_CHALLENGE: "  " }).get(PATH);
    assert.equal(res.status, 404);
    await res.body?.cancel();
  });
});

Deno.test("readConfig: OPENAI_APPS_CHALLENGE is one line of visible characters", () => {
  assert.equal(readConfig({ OPENAI_APPS_CHALLENGE: ` ${TOKEN}\n` }).openaiAppsChallenge, TOKEN);
  assert.equal(readConfig({}).openaiAppsChallenge, undefined);
  assert.throws(
    () => readConfig({ OPENAI_APPS_CHALLENGE: "two\nlines" }),
    /OPENAI_APPS_CHALLENGE: must be/,
  );
  assert.throws(
    () => readConfig({ OPENAI_APPS_CHALLENGE: "x".repeat(1025) }),
    /OPENAI_APPS_CHALLENGE: must be/,
  );
});
