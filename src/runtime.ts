import type { Config } from "./config.ts";
import type { Deps } from "./context.ts";
import { databasePath, openStorage } from "./db/connection.ts";
import { SqliteStore } from "./db/store.ts";
import { Writer } from "./db/writer.ts";
import { DnsResolver } from "./dns/resolver.ts";
import { createLogger, type Logger } from "./log.ts";

/** Opens storage and builds the shared dependencies. `dbPath` ":memory:" is for tests. */
export function createDeps(config: Config, opts: { dbPath?: string; log?: Logger } = {}): Deps {
  const storage = openStorage(opts.dbPath ?? databasePath(config.dataDir));
  const log = opts.log ?? createLogger(config.logLevel);
  const writer = new Writer(storage.sqlite);
  writer.onHoldTimeout = () => log.warn("a request kept its writes open past the hold limit; they were committed without waiting for its answer");
  const store = new SqliteStore(storage.sqlite, writer);
  return {
    config,
    sqlite: storage.sqlite,
    db: storage.db,
    writer,
    store,
    queue: store.read.jobs,
    log,
    dns: new DnsResolver(config.dnsServers),
  };
}
