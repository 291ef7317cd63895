/**
 * The REST edge: a route table on URLPattern and the check order of docs/DECISIONS.md section 4
 * (method -> key -> parameters -> plan -> existence -> charge -> answer); errors are mapped to
 * JSON in one place (platform/responses.ts).
 */
import {
  admit,
  type Operation,
  OPERATIONS,
  refund,
  usageAfterRefund,
} from "../metering/admission.ts";
import { apiKeyOf, authenticate } from "../accounts/credentials.ts";
import { type OperationName, type Prepared, prepareOperation } from "../metering/operations.ts";
import type { Content } from "../catalog/content.ts";
import type { Sql } from "../db/open.ts";
import {
  InvalidParameterError,
  MethodNotAllowedError,
  NotFoundError,
  QuotaExceededError,
  toApiError,
  withUpgradeUrl,
} from "../platform/errors.ts";
import { openApiDocument } from "./openapi.ts";
import { parseParams, parseQuery } from "../catalog/params.ts";
import {
  errorResponse,
  json,
  preflight,
  QUOTA_CHARGED,
  quotaHeaders,
} from "../platform/responses.ts";
import { logFailure, type Outcome } from "../platform/request_log.ts";
import type { WatchService } from "../watches/service.ts";
import { isWatchPath, serveWatches, WATCH_METHODS } from "./watches.ts";
import { serveExport } from "./export.ts";
import { fieldsOf, withFields } from "./fields.ts";
import type { Compaction } from "../catalog/compact.ts";

/** What the REST edge needs, passed in. */
export interface RestDeps {
  sql: Sql;
  /** The cached content operations (src/catalog/content.ts), shared with the MCP endpoint. */
  content: Content;
  /** The watch operations (src/watches/service.ts); without them /api/v1/watches is unknown. */
  watches?: WatchService;
  /** How long a watch write's body may take to arrive before a 408 (platform/body.ts). */
  bodyTimeoutMs?: number;
}

interface Route {
  pattern: URLPattern;
  /**
   * The pattern's text up to its first parameter (all of it when it has none): a path that does
   * not start with it cannot match, and a pattern without parameters is matched by comparing
   * the text, so a pattern is run only where it may match (each run is a call into the runtime,
   * 5% of a detail's own CPU when every route was tried in turn).
   */
  prefix: string;
  /** True when the pattern has no parameters. */
  exact: boolean;
  operation: Operation & { name: OperationName };
  /** Where the operation's input comes from: the path parameters or the query string. */
  input: "path" | "query";
  /** The path parameters as the operation's input names them (default: as they are). */
  named?: (params: Record<string, string>) => Record<string, string>;
}

function route(
  pathname: string,
  operation: Route["operation"],
  input: Route["input"],
  named?: Route["named"],
): Route {
  const parameter = pathname.indexOf(":");
  const prefix = parameter < 0 ? pathname : pathname.slice(0, parameter);
  const pattern = new URLPattern({ pathname });
  return { pattern, prefix, exact: parameter < 0, operation, input, named };
}

/**
 * A theme's path segment: digits (or a minus and digits) are its id, anything else its slug. The
 * other one is set empty (absent to the parser), so that the path wins over an `id` or `slug` of
 * the query string.
 */
function themeRef({ id, ...rest }: Record<string, string>): Record<string, string> {
  return /^-?\d+$/.test(id) ? { ...rest, id, slug: "" } : { ...rest, id: "", slug: id };
}

const ROUTES: Route[] = [
  route("/api/v1/opportunities", OPERATIONS.listOpportunities, "query"),
  route("/api/v1/opportunities/:id", OPERATIONS.getOpportunity, "path"),
  route("/api/v1/opportunities/:id/similar", OPERATIONS.findSimilar, "query"),
  route("/api/v1/ideas/match", OPERATIONS.matchIdea, "query"),
  route("/api/v1/blog", OPERATIONS.listBlogPosts, "query"),
  route("/api/v1/blog/:slug", OPERATIONS.getBlogPost, "path"),
  route("/api/v1/overview", OPERATIONS.getOverview, "query"),
  route("/api/v1/categories", OPERATIONS.listCategories, "query"),
  route("/api/v1/themes/trending", OPERATIONS.listTrendingThemes, "query"),
  route("/api/v1/themes/:id", OPERATIONS.getTheme, "path", themeRef),
  route("/api/v1/themes/:id/history", OPERATIONS.getThemeHistory, "query", themeRef),
  route("/api/v1/usage", OPERATIONS.getUsage, "query"),
];

const REST_METHODS = "GET, HEAD, OPTIONS";

function decodePath(groups: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(groups)) {
    if (v === undefined) continue;
    try {
      out[k] = decodeURIComponent(v);
    } catch {
      throw new InvalidParameterError([{ param: k, message: "is not valid percent-encoding" }]);
    }
  }
  return out;
}

/**
 * `error` naming the path parameter as the URL does: a route whose input renames it (the
 * theme's `{id}`, read as `slug` when it is not digits) is answered about `id`, as the OpenAPI
 * document names it.
 */
function asPathNamed(error: unknown, r: Route, groups: Record<string, string | undefined>) {
  const [path] = Object.keys(groups);
  if (!r.named || !path || !(error instanceof InvalidParameterError)) return error;
  const renamed = Object.keys(r.named({ [path]: "x" })).concat(
    Object.keys(r.named({ [path]: "1" })),
  );
  const details = error.details.map((d) =>
    renamed.includes(d.param) && !(d.param in groups) ? { ...d, param: path } : d
  );
  return new InvalidParameterError(details);
}

/** `url` with the path parameters set in its query string (a query route with `:id`). */
function withPathParams(url: URL, params: Record<string, string>): URL {
  const names = Object.keys(params);
  if (names.length === 0) return url;
  const out = new URL(url);
  for (const name of names) out.searchParams.set(name, params[name]);
  return out;
}

/** An answer that took no call: X-Quota-Charged says so (a refusal, a failure). */
function chargedNothing(response: Response): Response {
  response.headers.set(QUOTA_CHARGED, "0");
  return response;
}

/**
 * Builds the REST edge: answers every request under /api/v1/ (CORS preflight, the OpenAPI
 * document, the routes) with its outcome for the log line.
 */
export function createRestHandler(
  deps: RestDeps,
): (request: Request, url: URL) => Promise<Outcome> {
  return async function serveRest(request: Request, url: URL): Promise<Outcome> {
    let path = url.pathname;
    if (path.length > 8 && path.endsWith("/")) path = path.slice(0, -1);
    const watchPath = deps.watches !== undefined && isWatchPath(path);
    if (request.method === "OPTIONS") {
      return { response: preflight(watchPath ? WATCH_METHODS : REST_METHODS) };
    }
    if (watchPath) {
      const outcome = await serveWatches(request, url, path, {
        sql: deps.sql,
        watches: deps.watches!,
        bodyTimeoutMs: deps.bodyTimeoutMs,
      });
      if (outcome) return outcome;
    }
    if (path === "/api/v1/openapi.json") {
      if (request.method !== "GET") throw new MethodNotAllowedError(request.method, "GET, HEAD");
      return { response: json(200, openApiDocument()), route: "/api/v1/openapi.json" };
    }
    // Before the routes: "/api/v1/opportunities/:id" would read "export" as an id.
    if (path === "/api/v1/opportunities/export") {
      return { ...await serveExport(request, url, deps), route: path };
    }
    for (const r of ROUTES) {
      if (r.exact ? path !== r.prefix : !path.startsWith(r.prefix)) continue;
      const groups = r.exact ? {} : r.pattern.exec({ pathname: path })?.pathname.groups;
      if (!groups) continue;
      if (request.method !== "GET") throw new MethodNotAllowedError(request.method, "GET, HEAD");
      return { ...await rest(request, url, r, groups), route: r.pattern.pathname };
    }
    throw new NotFoundError(`Cannot find "${path}"`);
  };

  /** key -> parameters -> plan -> existence -> charge (one statement) -> answer. */
  async function rest(
    request: Request,
    url: URL,
    r: Route,
    groups: Record<string, string | undefined>,
  ): Promise<Outcome> {
    const key = apiKeyOf(request, url);
    let prepared: Prepared;
    let fields: Compaction | undefined;
    try {
      fields = fieldsOf(r.operation.name, url);
      const params = (r.named ?? ((p) => p))(decodePath(groups));
      prepared = prepareOperation(
        r.operation.name,
        deps,
        (schema) =>
          r.input === "path"
            ? parseParams(schema, params)
            : parseQuery(schema, withPathParams(url, params)),
      );
    } catch (error) {
      // A bad parameter is answered only once the key is known to be good (401/403 first).
      const caller = await authenticate(deps.sql, key);
      return { response: errorResponse(asPathNamed(error, r, groups), caller.usage), caller };
    }
    const admittedAt = new Date();
    const { caller, refusal, charged, fetched, fingerprint } = await admit(
      deps.sql,
      key,
      r.operation,
      prepared.existence,
      admittedAt,
      "rest",
      prepared.prefetch,
      prepared.call,
    );
    if (refusal) {
      const quota = refusal instanceof QuotaExceededError ? "rejected" : undefined;
      const body = withUpgradeUrl(refusal, deps.content.publicBaseUrl);
      return { response: chargedNothing(errorResponse(body, caller.usage)), caller, quota };
    }
    try {
      const result = withFields(await prepared.work(caller.dataVersion, caller, fetched), fields);
      const quota = charged ? "charged" : "free";
      const headers = { ...quotaHeaders(caller.usage), [QUOTA_CHARGED]: charged ? "1" : "0" };
      return { response: json(200, result, headers), caller, quota };
    } catch (error) {
      // The answer's quota headers are as the counter stands after the refund.
      const used = charged
        ? await refund(deps.sql, caller, admittedAt, "rest", fingerprint)
        : undefined;
      const usage = usageAfterRefund(caller.usage, used);
      if (toApiError(error).status === 500) logFailure(error, request, url);
      return { response: chargedNothing(errorResponse(error, usage)), caller };
    }
  }
}
