/** Operator commands for watches: deliver what the queue holds now. */
import { readConfig } from "../platform/config.ts";
import { createMailer } from "../platform/mailer.ts";
import { queueCounts } from "../watches/queue.ts";
import { createDeliveryWorker } from "../watches/worker.ts";
import { type Command, positiveInteger, text } from "./args.ts";

export const WATCH_COMMANDS: Command[] = [
  {
    path: ["deliver"],
    summary: "Deliver the watches' due webhook events and e-mail digests now",
    description:
      "Claims every due delivery job of the queue (the server does the same from requests and\n" +
      "a timer) and delivers it, several at once; safe beside running servers: each job is\n" +
      "claimed by one of them. Failures are retried later with backoff. Prints\n" +
      "{delivered, retried, dead, cancelled, queue: {state: count}}.",
    flags: [{
      name: "concurrency",
      value: "N",
      help: "Deliveries at once (default WATCH_DELIVERY_CONCURRENCY, 8)",
      check: positiveInteger(100),
    }],
    run: async ({ sql, flags, env }) => {
      const config = readConfig(env);
      const concurrency = text(flags, "concurrency");
      const worker = createDeliveryWorker({
        sql,
        mailer: createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom }),
        publicBaseUrl: config.publicBaseUrl,
        webhook: { urlPolicy: { allow: config.webhookAllow } },
        concurrency: concurrency ? Number(concurrency) : config.deliveryConcurrency,
      });
      const summary = await worker.runOnce();
      return { ...summary, queue: await queueCounts(sql) };
    },
  },
];
