/** Operator commands for apps connected through OAuth: list and revoke grants. */
import { MAX_INTEGER } from "../db/open.ts";
import { isEmail } from "../accounts/accounts.ts";
import { listGrants, revokeGrant } from "../oauth/flow.ts";
import { AccountError } from "../platform/errors.ts";
import { type Command, positiveInteger, text } from "./args.ts";

export const OAUTH_GROUPS: Record<string, string> = {
  oauth: "List and revoke apps connected through OAuth (MCP sign-in)",
};

const GRANT_SHAPE =
  "{id, account_id, email, client_id, client_name, redirect_uri, scope, created_at, " +
  "last_used_at, revoked_at, revoked_by}";

export const OAUTH_COMMANDS: Command[] = [
  {
    path: ["oauth", "list"],
    summary: "List the apps connected through OAuth (grants), newest first",
    description:
      "Lists the grants that received tokens, of one account or of all, newest first;\n" +
      "revoked ones are included unless --live is given. Never shows a token. `scope` is what\n" +
      'the person granted: "catalog" (read the catalogue and the usage) or "catalog watches"\n' +
      "(and manage the watches).\n" +
      `Prints {items: [${GRANT_SHAPE}]}.`,
    flags: [
      {
        name: "email",
        value: "E",
        help: "Only the grants of this account (compared case-insensitively)",
        check: (v) => isEmail(v) ? undefined : "must be an e-mail address",
      },
      { name: "live", help: "Only grants that are not revoked" },
    ],
    run: async ({ sql, flags }) => ({
      items: await listGrants(sql, { email: text(flags, "email"), live: flags.live === true }),
    }),
  },
  {
    path: ["oauth", "revoke"],
    summary: "Revoke a grant: its access and refresh tokens stop at once",
    description: "Revokes a grant for good (as an administrator); refused when it is unknown or\n" +
      "already revoked. The app must sign in again. Prints the grant as `oauth list` shows it.",
    flags: [{
      name: "id",
      value: "ID",
      required: true,
      help: "The grant's id (from `oauth list`)",
      check: positiveInteger(MAX_INTEGER),
    }],
    run: async ({ sql, flags }) => {
      const id = Number(text(flags, "id"));
      if (!(await revokeGrant(sql, { id, by: "admin" }))) {
        throw new AccountError(`Cannot find a live grant ${id}`);
      }
      const [grant] = await listGrants(sql, { id });
      return grant;
    },
  },
];
