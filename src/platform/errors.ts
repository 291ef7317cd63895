/**
 * Domain errors. The query layer and the auth code throw these; `src/http` maps them to a JSON
 * response and `src/mcp` to an `isError` tool result, each in one place. `body` is the REST
 * error body of docs/DECISIONS.md section 4, shared by both surfaces.
 */
import { type Plan, PLAN_NAMES } from "./plans.ts";
export abstract class ApiError extends Error {
  abstract readonly status: number;
  abstract readonly code: string;

  /** The JSON error body: `{error, message, ...fields of the code}`. */
  get body(): Record<string, unknown> {
    return { error: this.code, message: this.message, ...this.extra() };
  }

  protected extra(): Record<string, unknown> {
    return {};
  }
}

export class MissingApiKeyError extends ApiError {
  readonly status = 401;
  readonly code = "missing_api_key";
  constructor() {
    super("An API key is required: send it in the X-API-Key header");
  }
}

export class InvalidApiKeyError extends ApiError {
  readonly status = 401;
  readonly code = "invalid_api_key";
  constructor() {
    super("The API key is not valid");
  }
}

/** An OAuth access token that is unknown, expired, or of a revoked grant (RFC 6750 invalid_token). */
export class InvalidTokenError extends ApiError {
  readonly status = 401;
  readonly code = "invalid_token";
  constructor() {
    super("The access token is not valid: it expired or was revoked; sign in again");
  }
}

export class KeyRevokedError extends ApiError {
  readonly status = 403;
  readonly code = "key_revoked";
  constructor(readonly revokedBy: "owner" | "admin") {
    super(`The API key was revoked by ${revokedBy === "owner" ? "its owner" : "an administrator"}`);
  }
  protected override extra() {
    return { revoked_by: this.revokedBy };
  }
}

/** Where a customer changes plan: the account area (sign-in, then the upgrade buttons). */
export const UPGRADE_PATH = "/account";

/**
 * A call above the caller's plan, said as a customer reads it ("Listing opportunities needs the
 * Pro plan; you are on Free"), with the operation's name for code and where to upgrade. The
 * upgrade URL is the path until an edge that knows the public base makes it absolute
 * (withUpgradeUrl).
 */
export class PlanRequiredError extends ApiError {
  readonly status = 403;
  readonly code = "plan_required";
  upgradeUrl = UPGRADE_PATH;
  constructor(
    readonly requiredPlan: Plan,
    readonly currentPlan: Plan,
    readonly operation: string,
    action = `"${operation}"`,
  ) {
    super(
      `${action} needs the ${PLAN_NAMES[requiredPlan]} plan; you are on ${PLAN_NAMES[currentPlan]}`,
    );
  }
  protected override extra() {
    return {
      required_plan: this.requiredPlan,
      current_plan: this.currentPlan,
      operation: this.operation,
      upgrade_url: this.upgradeUrl,
    };
  }
}

export class NotFoundError extends ApiError {
  readonly status = 404;
  readonly code = "not_found";
}

export class MethodNotAllowedError extends ApiError {
  readonly status = 405;
  readonly code = "method_not_allowed";
  constructor(method: string, readonly allow: string) {
    super(`Method ${method} is not allowed here; use ${allow}`);
  }
}

export interface ParameterProblem {
  param: string;
  message: string;
}

export class InvalidParameterError extends ApiError {
  readonly status = 422;
  readonly code = "invalid_parameter";
  constructor(readonly details: ParameterProblem[]) {
    super(
      details.length === 1
        ? `Invalid parameter "${details[0].param}": ${details[0].message}`
        : `Invalid parameters: ${details.map((d) => `"${d.param}"`).join(", ")}`,
    );
  }
  protected override extra() {
    return { details: this.details };
  }
}

/**
 * A `cursor` that cannot continue this list: damaged or edited (`malformed`), or made by a list
 * of other filters or another sort (`other_list`). 422, before anything is charged.
 */
export class InvalidCursorError extends ApiError {
  readonly status = 422;
  readonly code = "invalid_cursor";
  constructor(readonly reason: "malformed" | "other_list") {
    super(
      reason === "malformed"
        ? 'Invalid parameter "cursor": it is damaged or was not made by this service; pass ' +
          "next_cursor back exactly as it was answered"
        : 'Invalid parameter "cursor": it continues a list of other filters or another sort; ' +
          "pass the same filters and sort as the request that answered it",
    );
  }
  protected override extra() {
    return { param: "cursor", reason: this.reason };
  }
}

/**
 * A `page` deeper than an offset can be answered in time (page * page_size over `maxDepth`):
 * the way on is the `cursor` of next_cursor. 422, before anything is charged.
 */
export class PageTooDeepError extends ApiError {
  readonly status = 422;
  readonly code = "page_too_deep";
  constructor(readonly page: number, readonly pageSize: number, readonly maxDepth: number) {
    super(
      `Page ${page} of ${pageSize} items ends past item ${maxDepth}, the deepest a page number ` +
        "reaches; continue with cursor: pass each answer's next_cursor as cursor",
    );
  }
  protected override extra() {
    return { param: "cursor", max_depth: this.maxDepth };
  }
}

export class QuotaExceededError extends ApiError {
  readonly status = 429;
  readonly code = "quota_exceeded";
  upgradeUrl = UPGRADE_PATH;
  constructor(readonly current: number, readonly limit: number, readonly resetAt: string) {
    super(
      `The monthly quota of ${limit} calls is used up; it resets at ${resetAt}, or a higher ` +
        "plan adds calls at once",
    );
  }
  protected override extra() {
    return {
      current: this.current,
      limit: this.limit,
      reset_at: this.resetAt,
      upgrade_url: this.upgradeUrl,
    };
  }
}

/**
 * `error` with its upgrade URL made absolute on `publicBaseUrl` (plan_required and
 * quota_exceeded carry one); any other error as it is. The edges call it where they know the base.
 */
export function withUpgradeUrl<E>(error: E, publicBaseUrl: string): E {
  if (
    (error instanceof PlanRequiredError || error instanceof QuotaExceededError) &&
    error.upgradeUrl.startsWith("/")
  ) {
    error.upgradeUrl = `${publicBaseUrl}${error.upgradeUrl}`;
  }
  return error;
}

/** Too many requests of one kind in a short window (not the monthly quota). */
export class RateLimitedError extends ApiError {
  readonly status = 429;
  readonly code = "rate_limited";
  constructor(what: string, readonly retryAfterSeconds: number) {
    super(`Too many ${what}; try again in ${retryAfterSeconds} seconds`);
  }
  protected override extra() {
    return { retry_after: this.retryAfterSeconds };
  }
}

export class ServiceUnavailableError extends ApiError {
  readonly status = 503;
  readonly code = "service_unavailable";
  constructor(
    message = "The service cannot reach its database right now; try again shortly",
  ) {
    super(message);
  }
}

/** A request body that did not arrive in time (src/platform/body.ts). */
export class RequestTimeoutError extends ApiError {
  readonly status = 408;
  readonly code = "request_timeout";
  constructor(seconds: number) {
    super(`The request body did not arrive within ${seconds} seconds`);
  }
}

/** A request body larger than the service takes (src/platform/body.ts). */
export class PayloadTooLargeError extends ApiError {
  readonly status = 413;
  readonly code = "payload_too_large";
  constructor(maxBytes: number) {
    super(`The request body is larger than ${maxBytes} bytes`);
  }
}

/**
 * A call the credential's OAuth scopes do not cover (src/accounts/scopes.ts): 403
 * insufficient_scope, naming the scope a new sign-in must grant (RFC 6750 section 3.1).
 */
export class InsufficientScopeError extends ApiError {
  readonly status = 403;
  readonly code = "insufficient_scope";
  constructor(readonly requiredScope: string) {
    super(
      `This app was not allowed to ${
        requiredScope === "watches" ? "manage your watches" : "do this"
      }: its OAuth grant lacks the "${requiredScope}" scope. Revoke it under "Connected apps" ` +
        `and sign in again, granting it; or use an API key`,
    );
  }
  protected override extra() {
    return { required_scope: this.requiredScope };
  }
}

/** A request target longer than the service reads (src/platform/limits.ts). */
export class UriTooLongError extends ApiError {
  readonly status = 414;
  readonly code = "uri_too_long";
  constructor(maxBytes: number) {
    super(`The request's URL is longer than ${maxBytes} bytes`);
  }
}

/** Request headers larger in all than the service reads (src/platform/limits.ts). */
export class HeadersTooLargeError extends ApiError {
  readonly status = 431;
  readonly code = "headers_too_large";
  constructor(maxBytes: number) {
    super(`The request's headers are larger than ${maxBytes} bytes in all`);
  }
}

/** True for a statement cancelled by the statement time-out (SQLSTATE 57014). */
function isStatementTimeout(error: unknown): boolean {
  return error instanceof Error && (error as Error & { code?: string }).code === "57014";
}

class InternalError extends ApiError {
  readonly status = 500;
  readonly code = "internal_error";
  constructor() {
    super("An unexpected error occurred");
  }
}

/**
 * True for errors that mean the database cannot be reached (connection refused or lost,
 * start-up, shutdown), as opposed to a bug in a statement.
 */
function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const e = error as Error & { code?: string };
  const codes = [
    "ECONNREFUSED",
    "ECONNRESET",
    "ETIMEDOUT",
    "EPIPE",
    "CONNECTION_CLOSED",
    "CONNECTION_ENDED",
    "CONNECTION_DESTROYED",
    "CONNECT_TIMEOUT",
    "57P01", // admin_shutdown
    "57P02", // crash_shutdown
    "57P03", // cannot_connect_now
    "08000",
    "08003",
    "08006",
    "08001",
    "08004",
  ];
  return codes.includes(e.code ?? "") ||
    /ECONNREFUSED|connection (refused|closed)/i.test(e.message);
}

/** Turns any thrown value into an ApiError; unknown errors become `internal_error`. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (isDatabaseUnavailable(error)) return new ServiceUnavailableError();
  if (isStatementTimeout(error)) {
    return new ServiceUnavailableError(
      "The query took too long and was stopped; narrow it (fewer or rarer words) or try again",
    );
  }
  return new InternalError();
}

/**
 * A refusal of an account or key operation (unknown account, unverified account, key limit,
 * taken e-mail, ...), whoever asked: the operator CLI, the account area or the first start. It
 * is not an HTTP error; each caller turns it into its own answer.
 */
export class AccountError extends Error {
  override name = "AccountError";
}
