import type { Database } from "bun:sqlite";
import type { Config } from "./config.ts";
import type { Store } from "./db/store.ts";
import type { Writer } from "./db/writer.ts";
import type { DnsResolver } from "./dns/resolver.ts";
import type { JobQueue } from "./db/job-queue.ts";
import type { Logger } from "./log.ts";

/**
 * What services need, passed explicitly: no request context, no globals. Built once by
 * server.ts (or a test) and handed to createApp and to the job handlers.
 */
export interface Deps {
  config: Config;
  sqlite: Database;
  /** Group-commit writer: every write on a request or job path goes through it. */
  writer: Writer;
  /** The persistence layer's repositories (services move onto it from sqlite/writer). */
  store: Store;
  queue: JobQueue;
  log: Logger;
  /** Every DNS lookup goes through this (POSTHORN_DNS_SERVERS). */
  dns: DnsResolver;
}
