import { ConfigError, type Config } from "./config.ts";
import type { Deps } from "./context.ts";
import { databasePath, openStorage } from "./db/connection.ts";
import { openPostgresStore } from "./db/store-postgres.ts";
import { SqliteStore } from "./db/store.ts";
import { Writer } from "./db/writer.ts";
import { DnsResolver } from "./dns/resolver.ts";
import { createLogger, type Logger } from "./log.ts";

type DepsOptions = { dbPath?: string; log?: Logger };

/** Opens the SQLite storage and builds the shared dependencies. `dbPath` ":memory:" is for tests. */
export function createDeps(config: Config, opts: DepsOptions = {}): Deps {
  const storage = openStorage(opts.dbPath ?? databasePath(config.dataDir));
  const log = opts.log ?? createLogger(config.logLevel);
  const writer = new Writer(storage.sqlite);
  writer.onHoldTimeout = () => log.warn("a request kept its writes open past the hold limit; they were committed without waiting for its answer");
  const store = new SqliteStore(storage.sqlite, writer);
  return {
    config,
    sqlite: storage.sqlite,
    writer,
    store,
    queue: store.read.jobs,
    log,
    dns: new DnsResolver(config.dnsServers),
  };
}

/**
 * Where code still reaches for the SQLite handle or writer directly on PostgreSQL: a loud error
 * instead of a silent wrong database. Goes away with the last such caller.
 */
const sqliteOnly = (what: string) =>
  new Proxy({}, {
    get: () => {
      throw new Error(`${what} is SQLite-only and is not available with POSTHORN_DATABASE_URL`);
    },
  }) as never;

/** The dependencies for `config`: PostgreSQL when POSTHORN_DATABASE_URL is set, else SQLite. */
export async function openDeps(config: Config, opts: DepsOptions = {}): Promise<Deps> {
  if (!config.databaseUrl) return createDeps(config, opts);
  const log = opts.log ?? createLogger(config.logLevel);
  const store = await openPostgresStore(
    config.databaseUrl,
    { poolSize: config.databasePool, poolWaitMs: config.databasePoolWaitMs },
    (detail) => new ConfigError("POSTHORN_DATABASE_URL", detail),
  );
  return {
    config,
    sqlite: sqliteOnly("deps.sqlite"),
    writer: sqliteOnly("deps.writer"),
    store,
    queue: store.read.jobs,
    log,
    dns: new DnsResolver(config.dnsServers),
  };
}
