/**
 * The operator CLI's help and usage errors, without a database: every group and command lists
 * what it takes, and a mistake exits 2 naming the problem on stderr only.
 */
import assert from "node:assert/strict";
import { admin } from "../helpers/admin.ts";

Deno.test("admin --help, -h and help print the command list and exit 0", async () => {
  for (const args of [["--help"], ["-h"], ["help"]]) {
    const run = await admin(undefined, ...args);
    assert.equal(run.code, 0);
    assert.equal(run.stderr, "");
    assert.match(run.stdout, /^Opportunity Intelligence operator CLI/);
    for (
      const name of [
        "migrate",
        "account create",
        "key revoke",
        "usage",
        "import",
        "seed-demo",
        "rescrub",
        "oauth list",
        "oauth revoke",
      ]
    ) {
      assert.ok(run.stdout.includes(`  ${name} `), `${name} is listed`);
    }
  }
});

Deno.test("admin <group> --help lists the group's sub-commands", async () => {
  const account = await admin(undefined, "account", "--help");
  assert.equal(account.code, 0);
  assert.match(account.stdout, /account create[\s\S]*account verify[\s\S]*account plan/);
  const key = await admin(undefined, "key", "-h");
  assert.equal(key.code, 0);
  assert.match(key.stdout, /key create[\s\S]*key list[\s\S]*key revoke/);
  assert.ok(!key.stdout.includes("account create"));
});

Deno.test("admin <command> --help shows the usage line and every flag", async (t) => {
  const commands: [string[], string[]][] = [
    [["migrate"], []],
    [["account", "create"], ["--email E", "--plan free|pro|business", "--verified"]],
    [["account", "verify"], ["--email E"]],
    [["account", "plan"], ["--email E", "--plan free|pro|business"]],
    [["key", "create"], ["--email E", "--name N"]],
    [["key", "list"], ["--email E"]],
    [["key", "revoke"], ["--id ID", "--by owner|admin"]],
    [["usage"], ["--email E"]],
    [["import"], ["FILE"]],
    [["seed-demo"], ["--opportunities N"]],
    [["rescrub"], ["--dry-run"]],
    [["oauth", "list"], ["--email E", "--live"]],
    [["oauth", "revoke"], ["--id ID"]],
  ];
  for (const [path, flags] of commands) {
    await t.step(path.join(" "), async () => {
      for (const help of ["--help", "-h"]) {
        // --help wins even after other flags, without checking them.
        const run = await admin(undefined, ...path, "--bogus", help);
        assert.equal(run.code, 0, run.stderr);
        assert.ok(run.stdout.startsWith(`Usage: deno task admin ${path.join(" ")}`), run.stdout);
        for (const flag of [...flags, "--help"]) assert.ok(run.stdout.includes(flag), flag);
      }
    });
  }
  const viaHelp = await admin(undefined, "help", "key", "create");
  assert.equal(viaHelp.code, 0);
  assert.match(viaHelp.stdout, /^Usage: deno task admin key create/);
});

Deno.test("admin usage errors exit 2 naming the problem, on stderr only", async (t) => {
  const cases: [string[], RegExp][] = [
    [[], /Missing command/],
    [["frobnicate"], /Unknown command "frobnicate"/],
    [["account"], /Missing sub-command of "account"/],
    [["key", "destroy"], /Unknown command "key destroy"/],
    [["account", "create"], /Missing required flag "--email"/],
    [["account", "create", "--email", "a@b.c", "--colour", "red"], /Unknown flag "--colour"/],
    [["account", "create", "--email=a@b.c", "-x"], /Unknown flag "-x"/],
    [["account", "create", "--email"], /Flag "--email" needs a value/],
    [["account", "create", "--email", "--verified"], /Flag "--email" needs a value/],
    [["account", "create", "--email", "a@b.c", "--email", "d@e.f"], /given more than once/],
    [["account", "create", "--email", "not-an-email"], /Invalid value "not-an-email".*"--email"/],
    [["account", "create", "--email", "a@b.c", "--plan", "gold"], /"gold" for "--plan"/],
    [["account", "create", "--email", "a@b.c", "--verified=yes"], /"--verified" takes no value/],
    [["account", "create", "--email", "a@b.c", "extra"], /Unexpected argument "extra"/],
    [["account", "plan", "--email", "a@b.c"], /Missing required flag "--plan"/],
    [["key", "revoke"], /Missing required flag "--id"/],
    [["key", "revoke", "--id", "abc"], /Invalid value "abc" for "--id"/],
    [["key", "revoke", "--id", "0"], /Invalid value "0" for "--id"/],
    [["key", "revoke", "--id", "1.5"], /Invalid value "1.5" for "--id"/],
    [["key", "revoke", "--id", "1", "--by", "root"], /Invalid value "root" for "--by"/],
    [["usage"], /Missing required flag "--email"/],
    [["import"], /Missing argument FILE/],
    [["import", "a.jsonl", "b.jsonl"], /Unexpected argument "b.jsonl"/],
    [["seed-demo", "--opportunities", "-5"], /Invalid value "-5" for "--opportunities"/],
    [["seed-demo", "--opportunities=many"], /Invalid value "many" for "--opportunities"/],
  ];
  for (const [args, message] of cases) {
    await t.step(args.join(" ") || "(nothing)", async () => {
      const run = await admin(undefined, ...args);
      assert.equal(run.code, 2, run.stderr);
      assert.equal(run.stdout, "");
      assert.match(run.stderr, message);
      assert.match(run.stderr, /--help" for usage/);
    });
  }
});

Deno.test("admin reports an unreachable database with exit 1", async () => {
  const run = await admin(undefined, "account", "verify", "--email", "a@b.c");
  assert.equal(run.code, 1);
  assert.equal(run.stdout, "");
  assert.match(run.stderr, /^Error: /);
});

// ---- Commands, on both engines -----------------------------------------------------------------
