import type { Config } from "./config.ts";
import type { Store } from "./db/store.ts";
import type { DnsResolver } from "./dns/resolver.ts";
import type { JobQueue } from "./db/job-queue.ts";
import type { Logger } from "./log.ts";

/**
 * What services need, passed explicitly: no request context, no globals. Built once by
 * server.ts (or a test) and handed to createApp and to the job handlers.
 */
export interface Deps {
  config: Config;
  /** The persistence layer: every read and write of the database goes through it. */
  store: Store;
  queue: JobQueue;
  log: Logger;
  /** Every DNS lookup goes through this (POSTHORN_DNS_SERVERS). */
  dns: DnsResolver;
}
