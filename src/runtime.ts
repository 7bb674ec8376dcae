import { ConfigError, type Config } from "./config.ts";
import type { Deps } from "./context.ts";
import { databasePath, migrate, openDatabase, openStorage } from "./db/connection.ts";
import { migratePostgres } from "./db/migrate-pg.ts";
import { connectPostgres, openPostgresStore } from "./db/store-postgres.ts";
import { BackgroundCheckpointer } from "./db/background-checkpointer.ts";
import { SqliteStore, type Store } from "./db/store.ts";
import { Writer } from "./db/writer.ts";
import { DnsResolver } from "./dns/resolver.ts";
import { createLogger, type Logger } from "./log.ts";
import { giveDomainsEd25519Keys } from "./upgrades/dkim-ed25519.ts";

type DepsOptions = {
  dbPath?: string;
  log?: Logger;
  /** A long-running process (`serve`): the SQLite log is checkpointed on a thread of its own (db/background-checkpointer.ts). */
  checkpointInBackground?: boolean;
};

const databaseUrlError = (detail: string) => new ConfigError("POSTHORN_DATABASE_URL", detail);

/** Opens the SQLite storage and builds the shared dependencies. `dbPath` ":memory:" is for tests. */
export function createDeps(config: Config, opts: DepsOptions = {}): Deps {
  const path = opts.dbPath ?? databasePath(config.dataDir);
  const storage = openStorage(path);
  const log = opts.log ?? createLogger(config.logLevel);
  const writer = new Writer(storage.sqlite);
  writer.onHoldTimeout = () => log.warn("a request kept its writes open past the hold limit; they were committed without waiting for its answer");
  // An in-memory database has no log; a short CLI command leaves the checkpoints to SQLite.
  const checkpointer =
    path === ":memory:" || !opts.checkpointInBackground
      ? null
      : new BackgroundCheckpointer(storage.sqlite, path, { onError: (error) => log.warn("checkpointing the database's log on the event loop: its worker failed", { error }) }).start();
  return depsOf(config, new SqliteStore(storage.sqlite, writer, checkpointer), log);
}

const depsOf = (config: Config, store: Store, log: Logger): Deps => ({ config, store, queue: store.read.jobs, log, dns: new DnsResolver(config.dnsServers) });

/** Applies pending migrations to the configured database; the tags applied. */
export async function migrateDatabase(config: Config): Promise<string[]> {
  if (!config.databaseUrl) {
    const sqlite = openDatabase(databasePath(config.dataDir));
    try {
      return migrate(sqlite);
    } finally {
      sqlite.close();
    }
  }
  const sql = await connectPostgres(config.databaseUrl, 1, databaseUrlError);
  try {
    return await migratePostgres(sql);
  } finally {
    await sql.close();
  }
}

/**
 * The dependencies for `config`: PostgreSQL when POSTHORN_DATABASE_URL is set, else SQLite.
 * Opening migrates; then what SQL could not do for the migrations is done in code.
 */
export async function openDeps(config: Config, opts: DepsOptions = {}): Promise<Deps> {
  const deps = config.databaseUrl ? await openPostgresDeps(config, opts) : createDeps(config, opts);
  const given = await giveDomainsEd25519Keys(deps.store);
  if (given > 0) deps.log.info("gave existing domains their Ed25519 DKIM keys (pending records to publish)", { domains: given });
  return deps;
}

async function openPostgresDeps(config: Config, opts: DepsOptions): Promise<Deps> {
  const log = opts.log ?? createLogger(config.logLevel);
  const store = await openPostgresStore(config.databaseUrl!, { poolSize: config.databasePool, poolWaitMs: config.databasePoolWaitMs }, databaseUrlError);
  return depsOf(config, store, log);
}
