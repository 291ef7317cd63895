import { DEFAULT_MEMORY_BUDGET_MB } from "./memory.ts";
import { z } from "zod";
import { bareHost, isLoopbackHost } from "./hosts.ts";

/** The service's configuration, read once from the environment and passed in everywhere. */
export interface Config {
  readonly port: number;
  /** PostgreSQL connection string; undefined means the embedded database. */
  readonly databaseUrl: string | undefined;
  /**
   * Read replicas of `databaseUrl` for catalogue reads (DATABASE_READ_URL, comma-separated);
   * empty: every statement on `databaseUrl`.
   */
  readonly databaseReadUrls: readonly string[];
  /** Where the embedded database keeps its files; `memory://` keeps nothing. */
  readonly dataDir: string;
  /** Base of public article URLs, without a trailing slash. */
  readonly publicBaseUrl: string;
  /** Fill an empty database with demo data at start. */
  readonly seedDemo: boolean;
  /**
   * Read questions by meaning with the sentence encoder (ENCODER, default on): loaded at a
   * server's start, off the request path (src/catalog/meaning/encoder.ts).
   */
  readonly encoder: boolean;
  /**
   * Megabytes (MiB) that every in-memory structure shares (MEMORY_BUDGET_MB, default
   * DEFAULT_MEMORY_BUDGET_MB): the list index, cubes, caches, readings and the encoder
   * (src/platform/memory.ts). What does not fit is left to PostgreSQL.
   */
  readonly memoryBudgetMb: number;
  /** SMTP server for the account area's mails; undefined writes them to the log. */
  readonly smtpUrl: string | undefined;
  /** Sender of the account area's mails. */
  readonly mailFrom: string | undefined;
  /** Address shown on the dashboard for plan changes. */
  readonly contactEmail: string | undefined;
  /** Behind one reverse proxy: take client addresses from X-Forwarded-For. */
  readonly trustProxy: boolean;
  /**
   * The token ChatGPT's app directory reads at /.well-known/openai-apps-challenge to verify the
   * domain; undefined answers 404 there.
   */
  readonly openaiAppsChallenge: string | undefined;
  /** Bearer token for GET /metrics; undefined turns the endpoint off. */
  readonly metricsToken: string | undefined;
  /**
   * Webhook hosts exempt from the SSRF guard (and allowed over http), for development and
   * tests: WATCH_WEBHOOK_ALLOW=127.0.0.1,localhost,::1. Empty in production.
   */
  readonly webhookAllow: readonly string[];
  /**
   * Development and tests only: OAuth client ID metadata documents may be fetched over http
   * from loopback addresses (OAUTH_CIMD_ALLOW_LOOPBACK). Refused unless PUBLIC_BASE_URL is itself
   * a loopback address, so that no deployment can turn the SSRF guard off by mistake.
   */
  readonly oauthAllowLoopbackDocuments: boolean;
  /** Webhook and e-mail deliveries one instance runs at once. */
  readonly deliveryConcurrency: number;
  /** Milliseconds a request body may take to arrive before a 408 (platform/body.ts). */
  readonly bodyTimeoutMs: number;
  /**
   * HMAC secrets of list cursors (CURSOR_SECRET, comma-separated): the first signs, every one
   * verifies, so a new one is added first and an old one dropped later. Undefined: the secret
   * kept in the database, shared by every instance on it (src/catalog/cursor.ts).
   */
  readonly cursorSecrets: readonly string[] | undefined;
  /**
   * Stripe Billing (src/billing/): set when all of STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET,
   * STRIPE_PRICE_PRO and STRIPE_PRICE_BUSINESS are; undefined turns billing off (the operator
   * changes plans with `admin account plan`).
   */
  readonly stripe: StripeConfig | undefined;
  /** PostgreSQL pool of the service. */
  readonly db: {
    /** Connections at most, per instance. */
    readonly poolMax: number;
    /** Seconds to wait for a connection. */
    readonly connectTimeoutS: number;
    /** A statement running longer is cancelled and answered 503; 0 turns the limit off. */
    readonly statementTimeoutMs: number;
    /**
     * Behind a transaction-mode pooler (PgBouncer, Neon, Supabase): no named prepared
     * statements and no startup parameters (set statement_timeout on the role instead).
     */
    readonly transactionPooler: boolean;
    /**
     * Keyword searches (`q`), idea matches and similar lists that miss the cache computed at once
     * per instance; the others wait their turn (platform/gate.ts). 0 lets them all run at once.
     */
    readonly searchConcurrency: number;
    /**
     * Opportunities at most in the list index held in memory (src/catalog/lists/list_index.ts,
     * about 70 bytes each); a larger catalogue leaves lists to PostgreSQL. 0 turns the index off.
     */
    readonly listIndexMaxRows: number;
    /** A replica whose replay is further behind than this is skipped (DB_READ_MAX_LAG_MS). */
    readonly readMaxLagMs: number;
  };
}

/** Stripe's keys and the price of each paid plan. */
export interface StripeConfig {
  /** `sk_...` or a restricted `rk_...` key. */
  readonly secretKey: string;
  /** The webhook endpoint's signing secret, `whsec_...`. */
  readonly webhookSecret: string;
  /** The recurring monthly price (`price_...`) of each paid plan. */
  readonly prices: { readonly pro: string; readonly business: string };
  /**
   * Tests only (STRIPE_API_BASE): the address of a local server standing in for api.stripe.com.
   * Refused unless it is a loopback http(s) address.
   */
  readonly apiBase: URL | undefined;
}

const STRIPE_VARIABLES = [
  "STRIPE_SECRET_KEY",
  "STRIPE_WEBHOOK_SECRET",
  "STRIPE_PRICE_PRO",
  "STRIPE_PRICE_BUSINESS",
] as const;

function stripeId(prefixes: string[], what: string) {
  const shape = new RegExp(`^(${prefixes.join("|")})[A-Za-z0-9_]+$`);
  const message = `must be ${what} (starting with ${prefixes.join(" or ")})`;
  return z.string().trim().transform((v) => v || undefined)
    .pipe(z.string().regex(shape, message).optional()).optional();
}

/** The shortest cursor secret accepted (src/catalog/cursor.ts says why it is a secret). */
const MIN_CURSOR_SECRET = 32;

const flag = z.enum(["1", "0", "true", "false", "yes", "no", "on", "off", ""])
  .transform((v) => ["1", "true", "yes", "on"].includes(v));

const EnvSchema = z.object({
  PORT: z.string().regex(/^\d{1,5}$/, "must be a port number").transform(Number)
    .pipe(z.number().int().min(0).max(65535)).default(8000),
  DATABASE_URL: z.string().trim().transform((v) => v || undefined).optional(),
  DATA_DIR: z.string().trim().min(1).default(".data"),
  PUBLIC_BASE_URL: z.url().optional(),
  SEED_DEMO: z.string().trim().toLowerCase().pipe(flag).optional(),
  ENCODER: z.string().trim().toLowerCase().pipe(flag).optional(),
  SMTP_URL: z.string().trim().regex(/^smtps?:\/\//, "must start with smtp:// or smtps://")
    .optional(),
  MAIL_FROM: z.string().trim().min(1).optional(),
  CONTACT_EMAIL: z.string().trim().min(1).optional(),
  TRUST_PROXY: z.string().trim().toLowerCase().pipe(flag).default(false),
  DB_POOL_MAX: count("a whole number from 1 to 1000", 1, 1000).default(10),
  DB_CONNECT_TIMEOUT_S: count("a whole number of seconds from 1 to 300", 1, 300).default(10),
  DB_STATEMENT_TIMEOUT_MS: count("a whole number of milliseconds, 0 for none", 0, 3_600_000)
    .default(2000),
  DB_TRANSACTION_POOLER: z.string().trim().toLowerCase().pipe(flag).default(false),
  DB_SEARCH_CONCURRENCY: count("a whole number from 0 to 1000", 0, 1000).default(2),
  MEMORY_BUDGET_MB: count("a whole number of megabytes from 0 to 1000000", 0, 1_000_000)
    .default(DEFAULT_MEMORY_BUDGET_MB),
  LIST_INDEX_MAX_ROWS: count("a whole number from 0 to 20000000", 0, 20_000_000)
    .default(2_000_000),
  DATABASE_READ_URL: z.string().trim().default(""),
  DB_READ_MAX_LAG_MS: count("a whole number of milliseconds from 0 to 3600000", 0, 3_600_000)
    .default(10_000),
  METRICS_TOKEN: z.string().trim().min(1).optional(),
  // Served as a text file: one line of visible ASCII (a blank value counts as unset).
  OPENAI_APPS_CHALLENGE: z.string().trim().transform((v) => v || undefined).pipe(
    z.string().regex(/^[\x21-\x7e]{1,1024}$/, "must be one line of at most 1024 visible characters")
      .optional(),
  ).optional(),
  WATCH_WEBHOOK_ALLOW: z.string().trim().default(""),
  OAUTH_CIMD_ALLOW_LOOPBACK: z.string().trim().toLowerCase().pipe(flag).default(false),
  WATCH_DELIVERY_CONCURRENCY: count("a whole number from 1 to 100", 1, 100).default(8),
  STRIPE_SECRET_KEY: stripeId(["sk_", "rk_"], "a Stripe secret or restricted key"),
  STRIPE_WEBHOOK_SECRET: stripeId(["whsec_"], "a Stripe webhook signing secret"),
  STRIPE_PRICE_PRO: stripeId(["price_"], "a Stripe price id"),
  STRIPE_PRICE_BUSINESS: stripeId(["price_"], "a Stripe price id"),
  STRIPE_API_BASE: z.url().optional(),
  CURSOR_SECRET: z.string().optional(),
  BODY_TIMEOUT_MS: count("a whole number of milliseconds from 100 to 600000", 100, 600_000)
    .default(10_000),
});

function count(message: string, min: number, max: number) {
  return z.string().trim().regex(/^\d+$/, `must be ${message}`).transform(Number)
    .pipe(z.number().int().min(min, `must be ${message}`).max(max, `must be ${message}`));
}

/**
 * The Stripe settings: all four variables or none (an empty value counts as unset), so that a
 * half-configured deployment stops at start instead of failing at a customer's first click.
 */
function stripeConfig(
  env: Record<string, string | undefined>,
  e: z.infer<typeof EnvSchema>,
): StripeConfig | undefined {
  const given = STRIPE_VARIABLES.filter((name) => env[name]?.trim());
  if (given.length === 0) {
    if (e.STRIPE_API_BASE) {
      throw new Error("Invalid configuration: STRIPE_API_BASE: set only with the STRIPE_* keys");
    }
    return undefined;
  }
  const missing = STRIPE_VARIABLES.filter((name) => !given.includes(name));
  if (missing.length > 0) {
    throw new Error(
      `Invalid configuration: ${missing.join(", ")}: must be set too (billing needs all of ` +
        `${STRIPE_VARIABLES.join(", ")}, or none of them to turn it off)`,
    );
  }
  if (e.STRIPE_PRICE_PRO === e.STRIPE_PRICE_BUSINESS) {
    throw new Error(
      "Invalid configuration: STRIPE_PRICE_BUSINESS: must differ from STRIPE_PRICE_PRO",
    );
  }
  let apiBase: URL | undefined;
  if (e.STRIPE_API_BASE) {
    apiBase = new URL(e.STRIPE_API_BASE);
    // A stand-in for Stripe is for tests on this machine; never a way to send the secret key
    // to another host.
    if (!/^https?:$/.test(apiBase.protocol) || !isLoopbackHost(apiBase.hostname)) {
      throw new Error(
        "Invalid configuration: STRIPE_API_BASE: tests only, a loopback http(s) address",
      );
    }
  }
  return Object.freeze({
    secretKey: e.STRIPE_SECRET_KEY!,
    webhookSecret: e.STRIPE_WEBHOOK_SECRET!,
    prices: Object.freeze({ pro: e.STRIPE_PRICE_PRO!, business: e.STRIPE_PRICE_BUSINESS! }),
    apiBase,
  });
}

/** The secrets of CURSOR_SECRET, in order; undefined when it is unset or empty. */
function cursorSecrets(value: string | undefined): readonly string[] | undefined {
  const list = (value ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  if (list.length === 0) return undefined;
  if (list.some((s) => s.length < MIN_CURSOR_SECRET)) {
    throw new Error(
      `Invalid configuration: CURSOR_SECRET: each secret must be at least ${MIN_CURSOR_SECRET} ` +
        "characters (openssl rand -base64 32 makes one); separate several with commas",
    );
  }
  return Object.freeze(list);
}

/** The replicas of DATABASE_READ_URL: PostgreSQL URLs, only beside DATABASE_URL. */
function readUrls(value: string, primary: string | undefined): readonly string[] {
  const list = value.split(",").map((s) => s.trim()).filter(Boolean);
  if (list.length === 0) return Object.freeze([]);
  const bad = (why: string) => new Error(`Invalid configuration: DATABASE_READ_URL: ${why}`);
  if (!primary) throw bad("needs DATABASE_URL (replicas of the embedded database do not exist)");
  for (const url of list) {
    // Never echoed: a URL carries a password.
    if (!/^postgres(ql)?:\/\/[^\s]+$/.test(url)) {
      throw bad(
        "each URL must start with postgres:// or postgresql:// (separate several with commas; " +
          "write a comma inside a password as %2C)",
      );
    }
  }
  return Object.freeze(list);
}

/** Reads and validates the configuration; throws a readable error naming every bad variable. */
export function readConfig(env: Record<string, string | undefined> = Deno.env.toObject()): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new Error(`Invalid configuration: ${lines.join("; ")}`);
  }
  const e = parsed.data;
  const publicBaseUrl = (e.PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, "");
  if (e.OAUTH_CIMD_ALLOW_LOOPBACK && !isLoopbackHost(new URL(publicBaseUrl).hostname)) {
    throw new Error(
      "Invalid configuration: OAUTH_CIMD_ALLOW_LOOPBACK: only for development, with a loopback " +
        "PUBLIC_BASE_URL",
    );
  }
  const webhookAllow = e.WATCH_WEBHOOK_ALLOW.split(",")
    .map((h) => bareHost(h.trim()))
    .filter(Boolean);
  // Only loopback hosts may skip the webhook SSRF guard: the setting is for a receiver on the
  // developer's own machine, never a way to reach a private network from a server.
  const notLoopback = webhookAllow.find((h) => !isLoopbackHost(h));
  if (notLoopback) {
    throw new Error(
      `Invalid configuration: WATCH_WEBHOOK_ALLOW: "${notLoopback}" is not a loopback host ` +
        "(only localhost, 127.x.x.x and ::1, for development)",
    );
  }
  return Object.freeze({
    stripe: stripeConfig(env, e),
    port: e.PORT,
    databaseUrl: e.DATABASE_URL,
    databaseReadUrls: readUrls(e.DATABASE_READ_URL, e.DATABASE_URL),
    dataDir: e.DATA_DIR,
    publicBaseUrl,
    oauthAllowLoopbackDocuments: e.OAUTH_CIMD_ALLOW_LOOPBACK,
    seedDemo: env.SEED_DEMO?.trim() ? e.SEED_DEMO! : e.DATABASE_URL === undefined,
    encoder: env.ENCODER?.trim() ? e.ENCODER! : true,
    memoryBudgetMb: e.MEMORY_BUDGET_MB,
    smtpUrl: e.SMTP_URL || undefined,
    mailFrom: e.MAIL_FROM,
    contactEmail: e.CONTACT_EMAIL,
    trustProxy: e.TRUST_PROXY,
    metricsToken: e.METRICS_TOKEN,
    openaiAppsChallenge: e.OPENAI_APPS_CHALLENGE,
    webhookAllow: Object.freeze(webhookAllow),
    deliveryConcurrency: e.WATCH_DELIVERY_CONCURRENCY,
    bodyTimeoutMs: e.BODY_TIMEOUT_MS,
    cursorSecrets: cursorSecrets(e.CURSOR_SECRET),
    db: Object.freeze({
      poolMax: e.DB_POOL_MAX,
      connectTimeoutS: e.DB_CONNECT_TIMEOUT_S,
      statementTimeoutMs: e.DB_STATEMENT_TIMEOUT_MS,
      transactionPooler: e.DB_TRANSACTION_POOLER,
      searchConcurrency: e.DB_SEARCH_CONCURRENCY,
      listIndexMaxRows: e.LIST_INDEX_MAX_ROWS,
      readMaxLagMs: e.DB_READ_MAX_LAG_MS,
    }),
  });
}
