/**
 * The watches as the edges see them: one object with the operations REST, MCP, the dashboard
 * and the CLI call, bound to the database and the options (public origin, SSRF policy, how test
 * events are sent). Managing watches and their deliveries costs no quota.
 */
import type { Sql } from "../db/open.ts";
import {
  createWatch,
  deleteWatch,
  getWatch,
  listWatches,
  type Owner,
  updateWatch,
  type WatchOptions,
} from "./watches.ts";
import { listDeliveries } from "./attempts.ts";
import type {
  DeliveryList,
  Watch,
  WatchList,
  WatchTestResult,
  WatchWithSecrets,
} from "./schemas.ts";
import { sendTestEvent, type WebhookOptions } from "./webhook.ts";

export type { Owner } from "./watches.ts";

/** The operations on an account's watches. */
export interface WatchService {
  create(owner: Owner, body: unknown): Promise<WatchWithSecrets>;
  list(owner: Owner): Promise<WatchList>;
  get(owner: Owner, id: number): Promise<Watch>;
  update(owner: Owner, id: number, body: unknown): Promise<WatchWithSecrets>;
  delete(owner: Owner, id: number): Promise<void>;
  deliveries(owner: Owner, id: number): Promise<DeliveryList>;
  /** Sends a sample signed event to the watch's webhook now, and logs the attempt. */
  test(owner: Owner, id: number): Promise<WatchTestResult>;
}

export type WatchServiceOptions = WatchOptions & WebhookOptions;

/** The watch operations on `sql`. */
export function createWatchService(sql: Sql, options: WatchServiceOptions): WatchService {
  return {
    create: (owner, body) => createWatch(sql, owner, body, options),
    list: (owner) => listWatches(sql, owner.accountId),
    get: (owner, id) => getWatch(sql, owner.accountId, id),
    update: (owner, id, body) => updateWatch(sql, owner, id, body, options),
    delete: (owner, id) => deleteWatch(sql, owner.accountId, id),
    deliveries: async (owner, id) => {
      await getWatch(sql, owner.accountId, id);
      return await listDeliveries(sql, id);
    },
    test: (owner, id) => sendTestEvent(sql, owner, id, options),
  };
}
