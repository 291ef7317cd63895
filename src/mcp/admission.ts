/**
 * The admission of the MCP endpoint: one HTTP request's exchange (who calls, the usage its quota
 * headers show, whether a call was charged) and its tool call. A tools/call of a catalog tool is
 * admitted with the key check, in the one statement that finds the key, checks plan and existence
 * and charges (metering/admission.ts, as REST does), before the SDK runs; the tool takes that
 * admission once (`admitCall`), or admits itself when there was none; a charge that no tool took
 * (the SDK refused the request first) is given back when the request ends (`settle`).
 *
 * The SDK's server factory receives nothing of the request but `authInfo`, so the exchange rides
 * in `authInfo.extra` (authInfoOf, exchangeOf): the one channel the SDK offers for it.
 */
import type { AuthInfo } from "@modelcontextprotocol/server";
import { authenticate, type Caller, recentCaller } from "../accounts/credentials.ts";
import type { Content } from "../catalog/content.ts";
import { parseInput } from "../catalog/params.ts";
import { DetailSchema, withToolDefaults } from "../catalog/compact.ts";
import type { Sql } from "../db/open.ts";
import {
  type Admission,
  admit,
  OPERATIONS,
  refund,
  usageAfterRefund,
} from "../metering/admission.ts";
import { type Prepared, prepareOperation } from "../metering/operations.ts";
import type { QueryContext } from "../catalog/common.ts";
import type { UsageState } from "../platform/plans.ts";
import { isProtocolOnly, toolCallOf } from "./messages.ts";
import { takesDetail, type ToolDefinition } from "./tools.ts";

/** What admitting a call needs. */
export interface AdmissionDeps {
  sql: Sql;
  context: QueryContext;
  content: Content;
}

/** A tools/call of a catalog tool, admitted: its prepared work and the admission's outcome. */
export interface AdmittedCall {
  name: string;
  prepared: Prepared;
  admission: Admission;
  /** When it was charged (a refund goes to that month and day). */
  at: Date;
}

/** One HTTP request to the endpoint, from its key check to its answer. */
export class Exchange {
  /** The usage after the request's last charge or refund, for the X-Quota-* headers. */
  usage: UsageState;
  /** True when a call of this request was charged and answered. */
  charged = false;
  #pending: AdmittedCall | undefined;

  constructor(
    readonly deps: AdmissionDeps,
    readonly rawKey: string | undefined,
    readonly caller: Caller,
    readonly requestId: string | undefined,
    pending?: AdmittedCall,
  ) {
    this.usage = caller.usage;
    this.#pending = pending;
  }

  /**
   * The admitted call of `tool`: the one admitted with the key check when it is this tool's (it
   * is handed over once), else admitted now. Throws invalid_parameter for bad arguments.
   */
  async admitCall(tool: ToolDefinition, args: unknown): Promise<AdmittedCall> {
    const pending = this.#pending;
    this.#pending = undefined;
    const call = pending?.name === tool.name
      ? pending
      : await admitTool(this.deps, this.rawKey, tool, prepare(this.deps, tool, args));
    if (pending && pending !== call) await this.refund(pending);
    this.usage = call.admission.caller.usage;
    return call;
  }

  /** Gives back a call's charge (its answer failed, or no tool took it). */
  async refund(call: AdmittedCall): Promise<void> {
    if (!call.admission.charged) return;
    const { caller } = call.admission;
    this.usage = usageAfterRefund(
      caller.usage,
      await refund(this.deps.sql, caller, call.at, "mcp", call.admission.fingerprint),
    );
  }

  /** Ends the request: a call charged with the key check that no tool took gives its unit back. */
  async settle(): Promise<void> {
    const pending = this.#pending;
    this.#pending = undefined;
    if (pending) await this.refund(pending);
  }
}

/**
 * The call's work, from its arguments with the tool's own defaults (catalog/compact.ts); `detail` is
 * checked here too, so a bad one is refused before anything is charged.
 */
function prepare(deps: AdmissionDeps, tool: ToolDefinition, args: unknown): Prepared {
  if (takesDetail(tool)) parseInput(DetailSchema, args);
  const given = withToolDefaults(tool.operation, args);
  return prepareOperation(tool.operation, deps, (schema) => parseInput(schema, given));
}

/** Admits a prepared call of `tool` (tier and cost from the shared table, named as the tool). */
async function admitTool(
  deps: AdmissionDeps,
  rawKey: string | undefined,
  tool: ToolDefinition,
  prepared: Prepared,
): Promise<AdmittedCall> {
  const operation = { ...OPERATIONS[prepared.operation], name: tool.name };
  const at = new Date();
  const admission = await admit(
    deps.sql,
    rawKey,
    operation,
    prepared.existence,
    at,
    "mcp",
    prepared.prefetch,
    prepared.call,
  );
  return { name: tool.name, prepared, admission, at };
}

/**
 * The exchange of a request: its key checked (throwing 401 and 403) and, when the body calls a
 * catalog tool with good arguments, that call admitted in the same statement. Protocol messages
 * that cost nothing are answered for a recently seen key without a database round trip;
 * anything else costs one key lookup.
 */
export async function openExchange(
  deps: AdmissionDeps,
  tools: ReadonlyMap<string, ToolDefinition>,
  rawKey: string | undefined,
  body: unknown,
  requestId?: string,
): Promise<Exchange> {
  const called = toolCallOf(body);
  const tool = called && tools.get(called.name);
  if (tool) {
    let prepared: Prepared | undefined;
    try {
      prepared = prepare(deps, tool, called.args);
    } catch {
      // Bad arguments: the tool answers invalid_parameter once the key is known good.
    }
    if (prepared) {
      const call = await admitTool(deps, rawKey, tool, prepared);
      return new Exchange(deps, rawKey, call.admission.caller, requestId, call);
    }
  }
  const caller = isProtocolOnly(body)
    ? await recentCaller(deps.sql, rawKey)
    : await authenticate(deps.sql, rawKey);
  return new Exchange(deps, rawKey, caller, requestId);
}

/**
 * The SDK hands `authInfo` through to the server factory untouched; our key check is the
 * authentication, so the exchange rides there. The raw key never does: `token` is its prefix.
 */
export function authInfoOf(exchange: Exchange): AuthInfo {
  const { caller } = exchange;
  return {
    token: caller.keyPrefix,
    clientId: String(caller.accountId),
    scopes: [caller.plan],
    extra: { exchange },
  };
}

/** The exchange authInfoOf put in `authInfo`. */
export function exchangeOf(authInfo: AuthInfo | undefined): Exchange {
  const exchange = authInfo?.extra?.exchange;
  // Only handleMcp calls the SDK handler, always with an exchange.
  if (!(exchange instanceof Exchange)) throw new Error("MCP request without a checked caller");
  return exchange;
}
