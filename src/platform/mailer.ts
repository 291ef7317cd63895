/**
 * Sending the service's mails (account area, usage notices, watch digests): through SMTP when `SMTP_URL` is set, else to the server log
 * (standard error), which is enough to sign in on a developer's machine.
 */
import nodemailer from "nodemailer";

/** One plain-text mail. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** Extra header fields (List-Unsubscribe of the watch digests). */
  headers?: Record<string, string>;
}

/** Something that delivers mails. */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

/** Options of the mailer, read from the configuration by the caller. */
export interface MailerOptions {
  /** `smtp://user:pass@host:587` or `smtps://...:465`; unset writes mails to the log. */
  smtpUrl?: string;
  /** The sender address; defaults to `Opportunity Intelligence <no-reply@localhost>`. */
  from?: string;
  /** Where the log mailer writes; defaults to standard error. */
  write?: (line: string) => void;
}

const DEFAULT_FROM = "Opportunity Intelligence <no-reply@localhost>";

/** The log mailer: writes each mail, links included, to the server log. */
export function logMailer(write: (line: string) => void = console.error): Mailer {
  return {
    send: (message) => {
      write(
        `Mail to ${message.to} (SMTP_URL is not set, so it is written here): ` +
          `${message.subject}\n${message.text}`,
      );
      return Promise.resolve();
    },
  };
}

/**
 * Time limit of each phase of a send (DNS, connect, greeting, and any silence on the socket): a
 * slow server fails the attempt within seconds, far inside a delivery job's lease, instead of
 * nodemailer's defaults of 30 s to 10 minutes (after which another instance would send it again).
 */
export const SMTP_TIMEOUT_MS = 10_000;

/** The SMTP mailer of `smtpUrl`, sending from `from`. */
export function smtpMailer(
  smtpUrl: string,
  from: string = DEFAULT_FROM,
  timeoutMs = SMTP_TIMEOUT_MS,
): Mailer {
  const transport = nodemailer.createTransport({
    url: smtpUrl,
    dnsTimeout: timeoutMs,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  });
  return {
    send: async (message) => {
      await transport.sendMail({ from, ...message });
    },
  };
}

/** The SMTP mailer when `smtpUrl` is set, else the log mailer. */
export function createMailer(options: MailerOptions = {}): Mailer {
  return options.smtpUrl ? smtpMailer(options.smtpUrl, options.from) : logMailer(options.write);
}
