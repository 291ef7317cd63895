/**
 * Opportunity Intelligence: wiring only. `deno task start` runs this file: read the
 * configuration, open the database (PostgreSQL, or the embedded default), migrate, seed demo
 * data on a first start, and serve. `handler` is the fetch handler configured from the
 * environment, which serve.ts exports for `deno serve` and Deno Deploy; tests build their own
 * with buildHandler.
 */
import { type Config, readConfig } from "./src/platform/config.ts";
import { createContent } from "./src/catalog/content.ts";
import { migrate } from "./src/db/migrate.ts";
import { type Database, openDatabase } from "./src/db/open.ts";
import { connectionsByState } from "./src/db/status.ts";
import { DEMO_EMAIL, type FirstStart, seedFirstStart } from "./src/ingest/seed.ts";
import { createApp } from "./src/app.ts";
import { errorResponse } from "./src/platform/responses.ts";
import { ServiceUnavailableError } from "./src/platform/errors.ts";
import { createMcpHandler } from "./src/mcp/server.ts";
import { createMetrics, metricsHandler } from "./src/platform/metrics.ts";
import { annotateSpan, noteCacheLookup } from "./src/platform/telemetry.ts";
import { createWebHandler, forwardedClientIp, type WebDeps } from "./src/web/handler.ts";
import { createMailer } from "./src/platform/mailer.ts";
import { insecureIssuerWarning } from "./src/web/oauth.ts";
import { createUsageMail } from "./src/metering/usage_mail.ts";
import { admissionGroups } from "./src/metering/admission_group.ts";
import { createWatchService } from "./src/watches/service.ts";
import { createDeliveryWorker, type DeliveryWorker } from "./src/watches/worker.ts";
import { listSurfaces, serverCard } from "./src/surfaces.ts";
import { setUpBilling } from "./src/billing/setup.ts";
import { storedCursorSecret, useCursorSecrets } from "./src/catalog/cursor.ts";
import { encoderQueued, startEncoder } from "./src/catalog/meaning/encoder.ts";
import { firstRequests } from "./src/platform/first_requests.ts";
import { MemoryBudget } from "./src/platform/memory.ts";
import { syncMeaningOnce } from "./src/catalog/meaning/vectors.ts";

export { createApp } from "./src/app.ts";

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Opens and migrates the database, reads its cursor secret when CURSOR_SECRET is not set (so
 * that every instance on it accepts the others' cursors), and on an empty one with SEED_DEMO
 * seeds the demo data. On PostgreSQL these run on a connection of their own without the serving
 * pool's statement time-out, as the admin CLI's do: a seed is operator work, and one cancelled by
 * a busy machine left the service unable to start.
 */
export async function prepare(config: Config): Promise<{ db: Database; firstStart?: FirstStart }> {
  const db = await openDatabase(config, { serving: true });
  try {
    const setup = db.kind === "postgres" ? await openDatabase(config, { max: 1 }) : db;
    try {
      await migrate(setup.sql);
      // Without CURSOR_SECRET, cursors are signed with the database's secret (this instance's
      // after a restart too).
      if (!config.cursorSecrets) useCursorSecrets([await storedCursorSecret(setup.sql)]);
      if (!config.seedDemo) return { db };
      const firstStart = await seedFirstStart(setup.sql, {
        onProgress: (done, total) => console.error(`Seeding demo data: ${done}/${total}`),
      }).catch((error) => {
        throw new Error(
          `Seeding the demo data failed: ${error instanceof Error ? error.message : error}. ` +
            "A failed seed writes nothing (it is one transaction): start again to retry, or " +
            "seed by hand with `deno task admin seed-demo`.",
          { cause: error },
        );
      });
      // The seed's write-ahead log (PGlite checkpoints only when asked): given back now, so
      // that .data/ holds the data and little more (src/db/embedded.ts).
      if (firstStart && db.kind === "embedded") await setup.sql`checkpoint`;
      return { db, firstStart };
    } finally {
      if (setup !== db) await setup.close();
    }
  } catch (error) {
    await db.close();
    throw error;
  }
}

/** Builds the request handler on an open database. */
export function buildHandler(
  db: Database,
  config: Config,
  options: {
    log?: (entry: Record<string, unknown>) => void;
    /** Send the 80% and 100% usage e-mails, from a run started at most once a minute. */
    usageMail?: boolean;
    /** Deliver the watches' events and digests, from runs started by requests. */
    deliveries?: boolean;
    /** Replaces parts of the public web's dependencies (tests: an outbox, a fixed client IP). */
    web?: Partial<WebDeps>;
    /**
     * A server: load what first answers need at once, in the background (Content.warm), and
     * never make a question wait for the reading of word vectors.
     */
    warm?: boolean;
    /**
     * Load the sentence encoder (config.encoder) and embed the catalogue's missing vectors, in
     * the background: questions are read by their words until it is ready.
     */
    meaning?: boolean;
  } = {},
): ((request: Request, info?: Deno.ServeHandlerInfo) => Promise<Response>) & {
  /** Waits for background work (a usage e-mail run) to end, before the database is closed. */
  settle(): Promise<void>;
  /** The watches' delivery worker, when deliveries are on. */
  deliveries?: DeliveryWorker;
} {
  if (config.cursorSecrets) useCursorSecrets(config.cursorSecrets);
  const context = { publicBaseUrl: config.publicBaseUrl, forcePlans: db.kind === "postgres" };
  // With DATABASE_READ_URL, catalogue reads go to a replica that has replayed the request's data
  // version (src/db/replicas.ts); everything else, the quota first, stays on db.sql.
  const reads = db.replicas;
  const write = options.log ?? ((entry) => console.log(JSON.stringify(entry)));
  // One budget for every structure held in memory (src/platform/memory.ts).
  const memory = MemoryBudget.ofMb(config.memoryBudgetMb);
  const content = createContent(db.sql, context, {
    budget: memory,
    reading: options.warm ? "background" : "wait",
    // A fresh server's first lists go to PostgreSQL until its warm-up has read the list index.
    listIndex: options.warm ? "warm" : undefined,
    onLookup: noteCacheLookup,
    searchConcurrency: config.db.searchConcurrency,
    listIndexMaxRows: config.db.listIndexMaxRows,
    reads,
    onListIndexError: (error) =>
      write({
        event: "list_index_failed",
        error: error instanceof Error ? error.message : String(error),
      }),
    onMeaningError: (error) => write({ event: "meaning_failed", error: messageOf(error) }),
  });
  // After the first answers (src/platform/first_requests.ts): first what lists and word readings
  // need, then the encoder (the largest part, and a second of CPU that would hold up answers),
  // then the catalogue's vectors.
  const first = options.warm ? firstRequests() : undefined;
  const warmed = first
    ? first.settled().then(() => content.warm("lists")).catch(() => {})
    : Promise.resolve();
  if (options.meaning && config.encoder) {
    encoderQueued();
    warmed.then(() =>
      startEncoder({
        budget: memory,
        onError: (error) => write({ event: "encoder_failed", error: messageOf(error) }),
      })
    )
      .then((encoder) => encoder && syncMeaningOnce(db.sql, encoder))
      .then((embedded) => embedded && write({ event: "meaning_synced", embedded }))
      .then(() => options.warm ? content.warm("meaning") : undefined)
      .catch((error) => write({ event: "meaning_failed", error: messageOf(error) }));
  }
  const metrics = createMetrics({
    content,
    memory,
    connections: () => connectionsByState(db.sql),
    poolMax: config.db.poolMax,
    admissions: () => admissionGroups(db.sql).stats,
    replicas: reads && (async () => ({
      replicas: await reads.check(),
      primaryReads: reads.primaryReads(),
    })),
  });
  const mailer = createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom });
  // Started by requests (Deno Deploy has no long-lived timers) but never awaited by them.
  const usageMail = options.usageMail
    ? createUsageMail({ sql: db.sql, mailer, publicBaseUrl: config.publicBaseUrl })
    : undefined;
  // Stripe Billing when STRIPE_* is configured; its mails go through the web's mailer (an outbox
  // in tests).
  const billing = setUpBilling(config.stripe, {
    sql: db.sql,
    publicBaseUrl: config.publicBaseUrl,
    mailer: options.web?.mailer ?? mailer,
    log: options.web?.log,
  });
  const urlPolicy = { allow: config.webhookAllow };
  const watches = createWatchService(db.sql, { publicBaseUrl: config.publicBaseUrl, urlPolicy });
  // Started by requests too: on Deno Deploy only requests wake the isolate.
  const deliveries = options.deliveries
    ? createDeliveryWorker({
      sql: db.sql,
      mailer,
      publicBaseUrl: config.publicBaseUrl,
      webhook: { urlPolicy },
      concurrency: config.deliveryConcurrency,
    })
    : undefined;
  const handler = createApp({
    sql: db.sql,
    replicas: reads,
    content,
    watches,
    memory,
    log: (entry) => {
      metrics.record(entry);
      annotateSpan(entry);
      write(entry);
    },
    mcp: createMcpHandler({ sql: db.sql, context, content, watches }),
    publicBaseUrl: config.publicBaseUrl,
    web: createWebHandler({
      sql: db.sql,
      reads,
      context,
      content,
      mailer,
      contactEmail: config.contactEmail,
      watches,
      clientIp: config.trustProxy ? forwardedClientIp : undefined,
      surfaces: listSurfaces(),
      serverCard: serverCard(config.publicBaseUrl),
      openaiAppsChallenge: config.openaiAppsChallenge,
      oauth: { documents: { allowLoopback: config.oauthAllowLoopbackDocuments } },
      billing,
      memory,
      ...options.web,
    }),
    metrics: metricsHandler(metrics, config.metricsToken),
    bodyTimeoutMs: config.bodyTimeoutMs,
  });
  const handle = async (request: Request, info?: Deno.ServeHandlerInfo) => {
    usageMail?.poke();
    deliveries?.poke();
    const leave = first?.enter();
    try {
      return await handler(request, info);
    } finally {
      leave?.();
    }
  };
  return Object.assign(handle, {
    settle: async () => {
      await usageMail?.idle();
      await deliveries?.idle();
    },
    deliveries,
  });
}

// For `deno serve main.ts` and Deno Deploy: the database is opened on the first request.
let lazy:
  | Promise<(request: Request, info?: Deno.ServeHandlerInfo) => Promise<Response>>
  | undefined;

/**
 * The service's fetch handler, configured from the environment on first use. A failed start
 * (the database unreachable) answers 503 JSON and is tried again on the next request.
 */
export async function handler(request: Request, info?: Deno.ServeHandlerInfo): Promise<Response> {
  lazy ??= (async () => {
    const config = readConfig();
    const { db } = await prepare(config);
    return buildHandler(db, config, {
      usageMail: true,
      deliveries: true,
      warm: true,
      meaning: true,
    });
  })();
  let serveRequest;
  try {
    serveRequest = await lazy;
  } catch (error) {
    lazy = undefined;
    console.error(`Start failed: ${error instanceof Error ? error.message : error}`);
    return errorResponse(new ServiceUnavailableError());
  }
  return serveRequest(request, info);
}

async function serve(): Promise<void> {
  const config = readConfig();
  const { db, firstStart } = await prepare(config);
  const handle = buildHandler(db, config, {
    usageMail: true,
    deliveries: true,
    warm: true,
    meaning: true,
  });
  // A long-lived server also delivers between requests (an import by the CLI wakes nobody).
  const ticker = setInterval(() => handle.deliveries?.poke(), 5_000);
  const server = Deno.serve({
    port: config.port,
    hostname: "0.0.0.0",
    onListen: () => {
      const base = `http://localhost:${config.port}`;
      console.error(`Opportunity Intelligence is listening on ${base} (${db.kind} database)`);
      const insecure = insecureIssuerWarning(config.publicBaseUrl);
      if (insecure) console.error(`Warning: ${insecure}`);
      if (!firstStart) return;
      console.error(
        [
          "",
          `First start: seeded ${firstStart.opportunities} demo opportunities and a Pro account ` +
          `${DEMO_EMAIL}.`,
          `Demo API key (shown only this once, keep it): ${firstStart.key}`,
          `Try: curl -H "X-API-Key: ${firstStart.key}" "${base}/api/v1/opportunities?page_size=3"`,
          "",
        ].join("\n"),
      );
    },
  }, handle);
  const stop = async () => {
    console.error("Shutting down: finishing requests in flight");
    await server.shutdown();
    clearInterval(ticker);
    await handle.settle();
    await db.close();
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGTERM", stop);
  Deno.addSignalListener("SIGINT", stop);
  await server.finished;
}

if (import.meta.main) {
  try {
    await serve();
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    Deno.exit(1);
  }
}
