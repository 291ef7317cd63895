/**
 * REST routes of watches, the API's only non-GET endpoints: POST/GET /api/v1/watches,
 * GET/PATCH/DELETE /api/v1/watches/{id}, GET /api/v1/watches/{id}/deliveries and
 * POST /api/v1/watches/{id}/test. Check order as elsewhere: method -> key -> scope (403
 * insufficient_scope for an OAuth app not granted `watches`) -> body and parameters (422) -> plan
 * (403) -> existence (404) -> answer; nothing is ever charged.
 */
import { apiKeyOf, authenticate, type Caller } from "../accounts/credentials.ts";
import type { Sql } from "../db/open.ts";
import {
  InvalidParameterError,
  MethodNotAllowedError,
  PayloadTooLargeError,
} from "../platform/errors.ts";
import { DEFAULT_BODY_TIMEOUT_MS, readBodyBytes } from "../platform/body.ts";
import type { Outcome } from "../platform/request_log.ts";
import { corsHeaders, errorResponse, json, quotaHeaders } from "../platform/responses.ts";
import { logFailure } from "../platform/request_log.ts";
import { toApiError } from "../platform/errors.ts";
import { parseParams } from "../catalog/params.ts";
import { WatchIdSchema } from "../watches/schemas.ts";
import { requireScope } from "../accounts/scopes.ts";
import type { WatchService } from "../watches/service.ts";

/** Bytes of a JSON body read at most. */
const BODY_LIMIT = 16_384;

type Action = (
  watches: WatchService,
  caller: Caller,
  input: { id?: number; body?: unknown },
) => Promise<{ status: number; body?: unknown }>;

interface WatchRoute {
  pattern: URLPattern;
  methods: Record<string, Action>;
}

const owner = (caller: Caller) => ({ accountId: caller.accountId, plan: caller.plan });

const ROUTES: WatchRoute[] = [
  {
    pattern: new URLPattern({ pathname: "/api/v1/watches" }),
    methods: {
      GET: async (w, c) => ({ status: 200, body: await w.list(owner(c)) }),
      POST: async (w, c, { body }) => ({ status: 201, body: await w.create(owner(c), body) }),
    },
  },
  {
    pattern: new URLPattern({ pathname: "/api/v1/watches/:id" }),
    methods: {
      GET: async (w, c, { id }) => ({ status: 200, body: await w.get(owner(c), id!) }),
      PATCH: async (w, c, { id, body }) => ({
        status: 200,
        body: await w.update(owner(c), id!, body),
      }),
      DELETE: async (w, c, { id }) => {
        await w.delete(owner(c), id!);
        return { status: 204 };
      },
    },
  },
  {
    pattern: new URLPattern({ pathname: "/api/v1/watches/:id/deliveries" }),
    methods: {
      GET: async (w, c, { id }) => ({ status: 200, body: await w.deliveries(owner(c), id!) }),
    },
  },
  {
    pattern: new URLPattern({ pathname: "/api/v1/watches/:id/test" }),
    methods: {
      POST: async (w, c, { id }) => ({ status: 200, body: await w.test(owner(c), id!) }),
    },
  },
];

/** The methods allowed on every watch path, for CORS preflights. */
export const WATCH_METHODS = "GET, POST, PATCH, DELETE, OPTIONS";

/** The Allow header of a route: its methods, and HEAD wherever GET is (the app serves it). */
function allowOf(methods: Record<string, Action>): string {
  return Object.keys(methods).flatMap((m) => m === "GET" ? ["GET", "HEAD"] : [m]).join(", ");
}

/** True when `path` (without a trailing slash) is one of the watch routes. */
export function isWatchPath(path: string): boolean {
  return path === "/api/v1/watches" || path.startsWith("/api/v1/watches/");
}

/**
 * The JSON body, read only now that the method, the key and the scope are known good, within
 * the body deadline and BODY_LIMIT (422 beyond it, naming the body).
 */
async function readJson(request: Request, timeoutMs: number): Promise<unknown> {
  let bytes: Uint8Array | null;
  try {
    bytes = await readBodyBytes(request, timeoutMs, BODY_LIMIT);
  } catch (error) {
    if (!(error instanceof PayloadTooLargeError)) throw error;
    throw new InvalidParameterError([{
      param: "body",
      message: `must be at most ${BODY_LIMIT} bytes`,
    }]);
  }
  const text = bytes ? new TextDecoder().decode(bytes) : "";
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new InvalidParameterError([{ param: "body", message: "must be valid JSON" }]);
  }
}

/**
 * Answers a request under /api/v1/watches, or undefined for a path that is not a watch route
 * (the caller answers 404).
 */
export async function serveWatches(
  request: Request,
  url: URL,
  path: string,
  deps: { sql: Sql; watches: WatchService; bodyTimeoutMs?: number },
): Promise<Outcome | undefined> {
  for (const r of ROUTES) {
    const match = r.pattern.exec({ pathname: path });
    if (!match) continue;
    const action = r.methods[request.method];
    const route = r.pattern.pathname;
    if (!action) {
      throw new MethodNotAllowedError(request.method, allowOf(r.methods));
    }
    const caller = await authenticate(deps.sql, apiKeyOf(request, url));
    try {
      // Every watch route reads or writes what only `watches` covers (feed URLs and webhook
      // secrets included), so the scope is checked before the body is even read.
      requireScope(caller, "watches");
      const raw = match.pathname.groups.id;
      const { id } = raw === undefined
        ? { id: undefined }
        : parseParams(WatchIdSchema, { id: raw });
      const body = request.method === "POST" || request.method === "PATCH"
        ? await readJson(request, deps.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS)
        : undefined;
      const answer = await action(deps.watches, caller, { id, body });
      const headers = quotaHeaders(caller.usage);
      const response = answer.status === 204
        ? new Response(null, { status: 204, headers: { ...corsHeaders(), ...headers } })
        : json(answer.status, answer.body, headers);
      return { response, caller, route, quota: "free" };
    } catch (error) {
      if (toApiError(error).status === 500) logFailure(error, request, url);
      return { response: errorResponse(error, caller.usage), caller, route };
    }
  }
  return undefined;
}
