/**
 * The operator CLI on a database: accounts, keys, usage, imports and the demo seed, in-process
 * and as a process beside a running server (help and usage errors: admin_help_test.ts).
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { startEmbedded } from "../../src/db/embedded.ts";
import { hashApiKey, isWellFormedKey } from "../../src/accounts/keys.ts";
import { periodOf } from "../../src/platform/plans.ts";
import { dbTest, withTestDb } from "../helpers/db.ts";
import { admin, count, json, refused, type Run } from "../helpers/admin.ts";

dbTest("admin migrate prints the versions it applied", async ({ database }) => {
  assert.deepEqual(json(await admin(database, "migrate")), { applied: [] });
});

dbTest("admin account create prints the account and stores it", async ({ database, sql }) => {
  const plain = json(await admin(database, "account", "create", "--email", "Ada@Example.com"));
  assert.deepEqual(Object.keys(plain), ["id", "email", "plan", "email_verified"]);
  assert.equal(typeof plain.id, "number");
  assert.equal(plain.email, "Ada@Example.com");
  assert.equal(plain.plan, "free");
  assert.equal(plain.email_verified, false);
  const pro = json(
    await admin(
      database,
      "account",
      "create",
      "--email=bob@example.com",
      "--plan=pro",
      "--verified",
    ),
  );
  assert.equal(pro.plan, "pro");
  assert.equal(pro.email_verified, true);
  const rows = await sql`select email, plan, email_verified_at from accounts order by id`;
  assert.deepEqual(rows.map((r) => [r.email, r.plan, r.email_verified_at !== null]), [
    ["Ada@Example.com", "free", false],
    ["bob@example.com", "pro", true],
  ]);
});

dbTest(
  "admin account create refuses a taken e-mail and changes nothing",
  async ({ database, sql }) => {
    json(await admin(database, "account", "create", "--email", "dup@example.com"));
    refused(
      await admin(
        database,
        "account",
        "create",
        "--email",
        "DUP@example.com",
        "--plan",
        "business",
      ),
      /already exists/,
    );
    assert.equal(await count(sql, "accounts"), 1);
    const [row] = await sql`select plan from accounts`;
    assert.equal(row.plan, "free");
  },
);

dbTest("admin account verify and plan update the account", async ({ database, sql }) => {
  json(await admin(database, "account", "create", "--email", "v@example.com"));
  const verified = json(await admin(database, "account", "verify", "--email", "V@example.com"));
  assert.deepEqual(Object.keys(verified), ["id", "email", "plan", "email_verified"]);
  assert.equal(verified.email_verified, true);
  const business = json(
    await admin(database, "account", "plan", "--email", "v@example.com", "--plan", "business"),
  );
  assert.equal(business.plan, "business");
  const [row] = await sql`select plan, email_verified_at from accounts`;
  assert.equal(row.plan, "business");
  assert.ok(row.email_verified_at instanceof Date);
});

dbTest("admin account verify and plan refuse an unknown account", async ({ database, sql }) => {
  refused(
    await admin(database, "account", "verify", "--email", "ghost@example.com"),
    /Cannot find account "ghost@example.com"/,
  );
  refused(
    await admin(database, "account", "plan", "--email", "ghost@example.com", "--plan", "pro"),
    /Cannot find account/,
  );
  assert.equal(await count(sql, "accounts"), 0);
});

dbTest("admin key create shows the key once and stores its digest", async ({ database, sql }) => {
  json(await admin(database, "account", "create", "--email", "k@example.com", "--verified"));
  const run = await admin(database, "key", "create", "--email", "k@example.com", "--name", "ci");
  const key = json(run);
  assert.deepEqual(Object.keys(key), ["id", "key", "prefix", "name", "created_at"]);
  assert.ok(isWellFormedKey(key.key as string));
  assert.equal(key.prefix, (key.key as string).slice(0, 12));
  assert.equal(key.name, "ci");
  assert.match(run.stderr, /shown only once/);
  assert.ok(!run.stderr.includes(key.key as string), "the key appears on stdout only");
  const [row] = await sql`select key_hash from api_keys where id = ${key.id as number}`;
  assert.equal(row.key_hash, await hashApiKey(key.key as string));
});

dbTest("admin key create refuses unknown and unverified accounts, writing nothing", async ({
  database,
  sql,
}) => {
  refused(
    await admin(database, "key", "create", "--email", "ghost@example.com"),
    /Cannot find account/,
  );
  json(await admin(database, "account", "create", "--email", "u@example.com"));
  refused(await admin(database, "key", "create", "--email", "u@example.com"), /not verified/);
  assert.equal(await count(sql, "api_keys"), 0);
});

dbTest("admin key create refuses a sixth key and the count stays 5", async ({ database, sql }) => {
  json(await admin(database, "account", "create", "--email", "five@example.com", "--verified"));
  for (let i = 0; i < 5; i++) {
    json(await admin(database, "key", "create", "--email", "five@example.com"));
  }
  refused(await admin(database, "key", "create", "--email", "five@example.com"), /already holds 5/);
  assert.equal(await count(sql, "api_keys"), 5);
});

dbTest("admin key list lists keys without raw keys", async ({ database }) => {
  json(await admin(database, "account", "create", "--email", "l@example.com", "--verified"));
  const a = json(await admin(database, "key", "create", "--email", "l@example.com", "--name", "a"));
  const b = json(await admin(database, "key", "create", "--email", "l@example.com", "--name", "b"));
  const run = await admin(database, "key", "list", "--email", "l@example.com");
  const list = json(run) as { items: Record<string, unknown>[] };
  assert.deepEqual(Object.keys(list), ["items"]);
  assert.deepEqual(list.items.map((k) => [k.id, k.name, k.prefix, k.revoked_at]), [
    [a.id, "a", a.prefix, null],
    [b.id, "b", b.prefix, null],
  ]);
  assert.deepEqual(Object.keys(list.items[0]).sort(), [
    "created_at",
    "id",
    "last_used_at",
    "name",
    "prefix",
    "revoked_at",
    "revoked_by",
  ]);
  assert.ok(!run.stdout.includes(a.key as string) && !run.stdout.includes(b.key as string));
  refused(await admin(database, "key", "list", "--email", "ghost@example.com"), /Cannot find/);
});

dbTest("admin key revoke revokes once, by admin unless told", async ({ database, sql }) => {
  json(await admin(database, "account", "create", "--email", "r@example.com", "--verified"));
  const a = json(await admin(database, "key", "create", "--email", "r@example.com"));
  const b = json(await admin(database, "key", "create", "--email", "r@example.com"));
  const byAdmin = json(await admin(database, "key", "revoke", "--id", String(a.id)));
  assert.equal(byAdmin.id, a.id);
  assert.equal(byAdmin.revoked_by, "admin");
  assert.ok(!Number.isNaN(Date.parse(byAdmin.revoked_at as string)));
  assert.ok(!("key" in byAdmin));
  const byOwner = json(await admin(database, "key", "revoke", `--id=${b.id}`, "--by", "owner"));
  assert.equal(byOwner.revoked_by, "owner");

  refused(
    await admin(database, "key", "revoke", "--id", String(a.id), "--by", "owner"),
    /already revoked/,
  );
  const [row] = await sql`select revoked_by, revoked_at from api_keys where id = ${a.id as number}`;
  assert.equal(row.revoked_by, "admin", "the refused revoke changed nothing");
  assert.equal(row.revoked_at.toISOString(), byAdmin.revoked_at);
  refused(await admin(database, "key", "revoke", "--id", "999999"), /Cannot find API key 999999/);
  refused(await admin(database, "key", "revoke", "--id", "2147483647"), /Cannot find API key/);
});

dbTest("admin usage shows this month's use against the plan", async ({ database, sql }) => {
  const account = json(await admin(database, "account", "create", "--email", "q@example.com"));
  const fresh = json(await admin(database, "usage", "--email", "q@example.com"));
  assert.deepEqual(Object.keys(fresh), ["used", "limit", "remaining", "reset_at"]);
  assert.deepEqual([fresh.used, fresh.limit, fresh.remaining], [0, 20, 20]);
  const now = new Date();
  const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  assert.equal(Date.parse(fresh.reset_at as string), next.getTime());

  await sql`
    insert into usage_counters (account_id, period, used)
    values (${account.id as number}, ${periodOf(now)}, 7)`;
  json(await admin(database, "account", "plan", "--email", "q@example.com", "--plan", "pro"));
  const used = json(await admin(database, "usage", "--email", "Q@example.com"));
  assert.deepEqual([used.used, used.limit, used.remaining], [7, 1000, 993]);
  refused(await admin(database, "usage", "--email", "ghost@example.com"), /Cannot find account/);
});

dbTest("admin import loads a file and prints its summary", async ({ database, sql }) => {
  const file = await Deno.makeTempFile({ suffix: ".jsonl" });
  try {
    await Deno.writeTextFile(
      file,
      [
        { type: "category", slug: "dev-tools", name: "Developer tools", description: "Tools" },
        { type: "category", slug: "finance", name: "Finance" },
      ].map((r) => JSON.stringify(r)).join("\n") + "\n",
    );
    const summary = json(await admin(database, "import", file));
    assert.equal(summary.categories, 2);
    assert.equal(summary.lines, 2);
    const rows = await sql`select slug from categories order by slug`;
    assert.deepEqual(rows.map((r) => r.slug), ["dev-tools", "finance"]);
  } finally {
    await Deno.remove(file);
  }
});

dbTest(
  "admin import refuses a bad line, naming it, and writes nothing",
  async ({ database, sql }) => {
    const file = await Deno.makeTempFile({ suffix: ".jsonl" });
    try {
      await Deno.writeTextFile(
        file,
        JSON.stringify({ type: "category", slug: "ok", name: "Fine" }) + "\n{not json\n",
      );
      refused(await admin(database, "import", file), /Line 2/);
      assert.equal(await count(sql, "categories"), 0);
      refused(await admin(database, "import", `${file}.missing`), /Cannot read file/);
    } finally {
      await Deno.remove(file);
    }
  },
);

dbTest("admin seed-demo writes demo data with progress on stderr", async ({ database, sql }) => {
  const run = await admin(database, "seed-demo", "--opportunities", "150");
  const summary = json(run);
  assert.equal(summary.opportunities, 150);
  const [{ n }] = await sql<{ n: number }[]>`select count(*)::int as n from opportunities`;
  assert.equal(n, 150);
  assert.ok((await count(sql, "categories")) >= 8);
  assert.match(run.stderr, /Seeded 150 of 150 \(100%\)/);
});

// ---- The CLI as a process ------------------------------------------------------------------------

const ROOT = new URL("../..", import.meta.url);

async function runCli(
  options: { env: Record<string, string>; input?: string },
  ...args: string[]
): Promise<Run> {
  const base = Deno.env.toObject();
  delete base.DATABASE_URL;
  delete base.DATA_DIR;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "src/cli/admin.ts", ...args],
    cwd: ROOT,
    clearEnv: true,
    env: { ...base, NO_COLOR: "1", ...options.env },
    stdin: options.input === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (options.input !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(options.input));
    await writer.close();
  }
  const output = await child.output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
}

Deno.test({
  name: "admin as a process against DATABASE_URL prints one JSON document",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withTestDb("postgres", async ({ url, sql }) => {
      const env = { DATABASE_URL: url };
      const run = await runCli({ env }, "account", "create", "--email", "p@x.io");
      const doc = json(run);
      assert.equal(doc.email, "p@x.io");
      const [row] = await sql`select id from accounts where email = 'p@x.io'`;
      assert.equal(row.id, doc.id);
      const again = await runCli({ env }, "account", "create", "--email", "P@x.io");
      refused(again, /already exists/);
      assert.equal(await count(sql, "accounts"), 1);
      // `import -` reads standard input.
      const input = JSON.stringify({ type: "category", slug: "piped", name: "Piped" }) + "\n";
      const imported = json(await runCli({ env, input }, "import", "-"));
      assert.equal(imported.categories, 1);
      assert.deepEqual((await sql`select slug from categories`).map((r) => r.slug), ["piped"]);
    }),
});

Deno.test({
  name: "admin as a process opens the embedded files itself, or joins the running server",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "oi_admin_" });
    try {
      // Nobody owns the files: the CLI opens them, migrates, writes, and closes them.
      const alone = await runCli(
        { env: { DATA_DIR: dir } },
        "account",
        "create",
        "--email",
        "a@x.io",
      );
      const first = json(alone);
      assert.ok(!alone.stderr.includes("running server"), alone.stderr);

      // Now this process owns them and serves them; the CLI must go through its socket.
      const server = await startEmbedded(dir);
      const sql = postgres({
        host: server.host,
        port: server.port,
        user: "postgres",
        database: "postgres",
        max: 1,
        onnotice: () => {},
      });
      try {
        const info = JSON.parse(await Deno.readTextFile(`${dir}/server.json`));
        assert.equal(info.port, server.port);
        const joined = await runCli(
          { env: { DATA_DIR: dir } },
          "account",
          "create",
          "--email",
          "b@x.io",
        );
        const second = json(joined);
        assert.match(joined.stderr, /running server/);
        const rows = await sql`select id, email from accounts order by id`;
        assert.deepEqual(rows.map((r) => [r.id, r.email]), [
          [first.id, "a@x.io"],
          [second.id, "b@x.io"],
        ]);
      } finally {
        await sql.end();
        await server.close();
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

dbTest(
  "admin rescrub scrubs stored text again, with progress and a JSON summary",
  async ({ database, sql }) => {
    const [category] =
      await sql`insert into categories (slug, name) values ('c', 'C') returning id`;
    const [theme] = await sql`
    insert into themes (slug, category_id, name, mentions_30d, mentions_prev_30d)
    values ('t', ${category.id}, 'T', 1, 1) returning id`;
    // Written before the scrubber knew no-break spaces and full-width e-mails.
    await sql`
    insert into opportunities (external_id, theme_id, platform, channel_name, title, slug,
      recommendation, score, pain_point_intensity, willingness_to_pay_score, tech_difficulty,
      sustainability_score, description)
    values ('x', ${theme.id}, 'reddit', 'c', 'Call +1\u00a0415\u00a0555\u00a00132', 'call-1-415-555-0132',
      'Build', 50, 5, 5, 5, 5, 'ask ｂｏｂ＠ｅｘａｍｐｌｅ．ｃｏｍ')`;
    const dry = json(await admin(database, "rescrub", "--dry-run"));
    assert.deepEqual(dry.opportunities, { scanned: 1, changed: 1 });
    assert.equal(dry.changed, false);
    const run = await admin(database, "rescrub");
    const summary = json(run);
    assert.deepEqual(summary.opportunities, { scanned: 1, changed: 1 });
    assert.equal(summary.changed, true);
    assert.match(run.stderr, /Rescrubbed opportunities 1 of 1 \(100%\)/);
    const [row] = await sql`select title, slug, description from opportunities`;
    assert.deepEqual([row.title, row.slug, row.description], ["Call", "call", "ask"]);
  },
);
