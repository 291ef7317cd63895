/** `deno task admin deliver`: the operator delivers what the queue holds now. */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { loadFixture, makeKey } from "../helpers/app.ts";
import { runAdmin } from "../../src/cli/admin.ts";
import { importLines } from "../../src/ingest/import.ts";
import { createWatch } from "../../src/watches/watches.ts";
import { opportunityLine, startReceiver } from "../helpers/watches.ts";

dbTest("admin deliver sends the due events and prints the queue", async (db) => {
  const receiver = startReceiver();
  try {
    await loadFixture(db.sql);
    const { accountId } = await makeKey(db.sql, "pro");
    await createWatch(db.sql, { accountId, plan: "pro" }, {
      name: "cli",
      deliveries: { webhook: { url: receiver.url } },
    }, { publicBaseUrl: "https://x.example", urlPolicy: { allow: ["127.0.0.1"] } });
    await importLines(db.sql, [opportunityLine("cli-1", { title: "Command line idea" })]);
    const out: string[] = [];
    const code = await runAdmin(["deliver"], {
      database: db.database,
      env: { DATA_DIR: "memory://", WATCH_WEBHOOK_ALLOW: "127.0.0.1" },
      stdout: (s) => out.push(s),
      stderr: () => {},
    });
    assert.equal(code, 0);
    const result = JSON.parse(out.join(""));
    assert.equal(result.delivered, 1);
    assert.deepEqual(result.queue, { done: 1 });
    assert.equal(receiver.received.length, 1);
  } finally {
    await receiver.close();
  }
});
