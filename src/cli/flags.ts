/** Flags that several command groups share. */
import { isEmail } from "../accounts/accounts.ts";
import type { FlagSpec } from "./args.ts";

/** --email E: the account a command is about. */
export const emailFlag: FlagSpec = {
  name: "email",
  value: "E",
  required: true,
  help: "The account's e-mail address, compared case-insensitively",
  check: (v) => isEmail(v) ? undefined : "must be an e-mail address",
};
