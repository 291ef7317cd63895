/** Operator commands for accounts, API keys and quota use. */
import { MAX_INTEGER } from "../db/open.ts";
import { AccountError } from "../platform/errors.ts";
import {
  type Account,
  createAccount,
  findAccountByEmail,
  isPlan,
  setPlan,
  verifyAccount,
} from "../accounts/accounts.ts";
import { createApiKey, listApiKeys, revokeApiKey } from "../accounts/api_keys.ts";
import { readUsage } from "../metering/usage.ts";
import { type Plan, PLANS } from "../platform/plans.ts";
import { type Command, type FlagSpec, positiveInteger, text } from "./args.ts";
import { emailFlag } from "./flags.ts";

function planFlag(required: boolean): FlagSpec {
  return {
    name: "plan",
    value: PLANS.join("|"),
    required,
    help: required
      ? `The new plan: ${PLANS.join(", ")}`
      : `The plan: ${PLANS.join(", ")} (default free)`,
    check: (v) => isPlan(v) ? undefined : `must be one of ${PLANS.join(", ")}`,
  };
}

function accountView(account: Account) {
  return {
    id: account.id,
    email: account.email,
    plan: account.plan,
    email_verified: account.email_verified_at !== null,
  };
}

const ACCOUNT_SHAPE = "{id, email, plan, email_verified}";

export const ACCOUNT_GROUPS: Record<string, string> = {
  account: "Create accounts, verify their e-mail, change their plan",
  key: "Create, list and revoke API keys",
};

export const ACCOUNT_COMMANDS: Command[] = [
  {
    path: ["account", "create"],
    summary: "Create an account",
    description: `Creates an account; refused when the e-mail is taken. Prints ${ACCOUNT_SHAPE}.`,
    flags: [
      emailFlag,
      planFlag(false),
      { name: "verified", help: "Mark the e-mail as verified now" },
    ],
    run: async ({ sql, flags }) =>
      accountView(
        await createAccount(sql, {
          email: text(flags, "email")!,
          plan: (text(flags, "plan") ?? "free") as Plan,
          verified: flags.verified === true,
        }),
      ),
  },
  {
    path: ["account", "verify"],
    summary: "Mark an account's e-mail as verified",
    description:
      "Marks the e-mail as verified (keys can be created only for verified accounts).\n" +
      `Prints ${ACCOUNT_SHAPE}.`,
    flags: [emailFlag],
    run: async ({ sql, flags }) => accountView(await verifyAccount(sql, text(flags, "email")!)),
  },
  {
    path: ["account", "plan"],
    summary: "Change an account's plan",
    description: "Changes the plan; the new quota applies from the next call on.\n" +
      `Prints ${ACCOUNT_SHAPE}.`,
    flags: [emailFlag, planFlag(true)],
    run: async ({ sql, flags }) =>
      accountView(await setPlan(sql, text(flags, "email")!, text(flags, "plan") as Plan)),
  },
  {
    path: ["key", "create"],
    summary: "Create an API key (the raw key is shown once)",
    description:
      "Creates an API key for a verified account holding fewer than 5 keys that are not\n" +
      "revoked. Only the key's SHA-256 digest is stored: the raw key is shown here once.\n" +
      "Prints {id, key, prefix, name, created_at}.",
    flags: [emailFlag, {
      name: "name",
      value: "N",
      help: 'A name to tell the key apart (default "default")',
      check: (v) => v.length <= 100 ? undefined : "must have at most 100 characters",
    }],
    run: async ({ sql, flags, log }) => {
      const created = await createApiKey(sql, {
        email: text(flags, "email")!,
        name: text(flags, "name"),
      });
      log("Store this key now: it is shown only once and cannot be recovered.");
      return created;
    },
  },
  {
    path: ["key", "list"],
    summary: "List an account's API keys (never the raw keys)",
    description: "Lists every key of the account, revoked ones included, oldest first.\n" +
      "Prints {items: [{id, prefix, name, created_at, last_used_at, revoked_at, revoked_by}]}.",
    flags: [emailFlag],
    run: async ({ sql, flags }) => ({ items: await listApiKeys(sql, text(flags, "email")!) }),
  },
  {
    path: ["key", "revoke"],
    summary: "Revoke an API key",
    description:
      "Revokes a key for good; refused when the key is unknown or already revoked. Calls with\n" +
      "it then answer 403 key_revoked. Prints the revoked key as `key list` shows it.",
    flags: [
      {
        name: "id",
        value: "ID",
        required: true,
        help: "The key's id (from `key list`)",
        check: positiveInteger(MAX_INTEGER),
      },
      {
        name: "by",
        value: "owner|admin",
        help: "Who revokes it: owner or admin (default admin)",
        check: (v) => v === "owner" || v === "admin" ? undefined : "must be owner or admin",
      },
    ],
    run: async ({ sql, flags }) =>
      await revokeApiKey(sql, {
        id: Number(text(flags, "id")),
        by: (text(flags, "by") ?? "admin") as "owner" | "admin",
      }),
  },
  {
    path: ["usage"],
    summary: "Show an account's quota use this month",
    description: "Shows the calls used this calendar month (UTC) against the plan's limit.\n" +
      "Prints {used, limit, remaining, reset_at}.",
    flags: [emailFlag],
    run: async ({ sql, flags }) => {
      const email = text(flags, "email")!;
      const account = await findAccountByEmail(sql, email);
      if (!account) throw new AccountError(`Cannot find account "${email.trim()}"`);
      const usage = await readUsage(sql, account);
      return {
        used: usage.used,
        limit: usage.limit,
        remaining: usage.remaining,
        reset_at: usage.reset_at,
      };
    },
  },
];
