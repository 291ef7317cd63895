/** The account area's mailer lives in platform/mailer.ts, shared with the operator CLI. */
export * from "../platform/mailer.ts";
